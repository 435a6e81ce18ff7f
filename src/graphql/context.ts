import type { Actor } from '../auth/actor.js';
import { keyTenantAccess, resolveTenantAccess, type TenantAccess, type TenantRecord } from '../auth/tenant-access.js';
import type { Db } from '../db/client.js';
import type { Logger } from '../lib/logger.js';
import { unauthenticated } from '../lib/errors.js';

/**
 * The domain services, one per module, built once per process. Each module
 * adds its own entry from its manifest (`declare module` on this interface),
 * so that this layer does not import the modules above it; src/services.ts
 * checks at compile time that the module list builds exactly these.
 */
export interface Services {}

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

export interface RequestIdentity {
  actor: Actor | null;
  requestId: string;
  log: Logger;
  /** The API key's tenant, read with the key in this request: its guard needs no second query. */
  knownTenant?: TenantRecord | undefined;
}

export function createGraphQLContext({ db, services }: ContextDependencies, request: RequestIdentity): GraphQLContext {
  const accessByTenant = new Map<string, Promise<TenantAccess>>();
  const { knownTenant, ...identity } = request;
  if (knownTenant && request.actor?.type === 'api_key') {
    const actor = request.actor;
    // Decided lazily, so that a refusal (a suspended tenant) surfaces where the guard is asked, as always.
    const access = Promise.resolve().then(() => keyTenantAccess(actor, knownTenant));
    access.catch(() => undefined); // a route that never asks must not leave it unhandled
    accessByTenant.set(knownTenant.id, access);
  }
  return {
    ...identity,
    db,
    services,
    tenantAccess(tenantId) {
      const { actor } = request;
      if (actor === null) return Promise.reject(unauthenticated());
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
