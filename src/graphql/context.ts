import type { Actor } from '../auth/actor.js';
import { resolveTenantAccess, type TenantAccess } from '../auth/tenant-access.js';
import type { Db } from '../db/client.js';
import type { Logger } from '../lib/logger.js';
import type { Services } from '../services.js';
import { unauthenticated } from '../lib/errors.js';

/** What every resolver gets. Built per request after the authentication gate has run. */
export interface GraphQLContext {
  requestId: string;
  log: Logger;
  /** Null only where a public operation runs (none today); the gate rejects anonymous calls first. */
  actor: Actor | null;
  db: Db;
  services: Services;
  /** The tenant guard, memoised per request: one lookup per tenant however many fields ask. */
  tenantAccess(tenantId: string): Promise<TenantAccess>;
}

export interface ContextDependencies {
  db: Db;
  services: Services;
}

export function createGraphQLContext(
  { db, services }: ContextDependencies,
  request: { actor: Actor | null; requestId: string; log: Logger },
): GraphQLContext {
  const accessByTenant = new Map<string, Promise<TenantAccess>>();
  return {
    ...request,
    db,
    services,
    tenantAccess(tenantId) {
      const { actor } = request;
      if (actor === null) return Promise.reject(new Error('tenantAccess needs an authenticated actor'));
      let access = accessByTenant.get(tenantId);
      if (!access) {
        access = resolveTenantAccess(db, actor, tenantId);
        accessByTenant.set(tenantId, access);
      }
      return access;
    },
  };
}

/** The caller of an operation that passed the `authenticated` scope. */
export function actorOf(context: GraphQLContext): Actor {
  if (context.actor === null) throw unauthenticated();
  return context.actor;
}
