import type { ActorType } from '../generated/prisma/enums.js';
import { forbidden } from '../lib/errors.js';

/** Who is calling. Resolved once per request by the authentication gate. */
export type Actor =
  | {
      type: 'user';
      userId: string;
      email: string;
      name: string;
      isSuperadmin: boolean;
    }
  | { type: 'api_key'; apiKeyId: string; tenantId: string; name: string }
  /** Workers and the CLI. */
  | { type: 'system'; name: string };

export const systemActor = (name: string): Actor => ({ type: 'system', name });

/** Superadmin-only work (creating tenants, /admin): a superadmin, or the system (CLI). */
export function requireSuperadmin(actor: Actor): void {
  const allowed = actor.type === 'system' || (actor.type === 'user' && actor.isSuperadmin);
  if (!allowed) throw forbidden('Only a superadmin may do this');
}

/** How events and records name an actor: `{type, id}`, as webhook envelopes carry it. */
export function actorReference(actor: Actor): { type: ActorType; id: string | null } {
  switch (actor.type) {
    case 'user':
      return { type: 'user', id: actor.userId };
    case 'api_key':
      return { type: 'api_key', id: actor.apiKeyId };
    case 'system':
      return { type: 'system', id: null };
  }
}
