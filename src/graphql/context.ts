import type { Actor } from '../auth/actor.js';
import type { ActionOn, Permission, Subject } from '../auth/permissions.js';
import { keyTenantAccess, permissionRefusal, resolveTenantAccess, scopeAcross, type TenantAccess, type TenantRecord } from '../auth/tenant-access.js';
import type { Db } from '../db/client.js';
import type { Logger } from '../lib/logger.js';
import { unauthenticated } from '../lib/errors.js';

/** What every resolver gets. Built per request after the authentication gate has run. */
export interface GraphQLContext {
  requestId: string;
  log: Logger;
  /** Null only where a public operation runs (none today); the gate rejects anonymous calls first. */
  actor: Actor | null;
  db: Db;
  // `services` (the domain services) is added by the modules layer: src/modules/services.ts.
  /** The tenant guard, memoised per request: one lookup per tenant however many fields ask. */
  tenantAccess(tenantId: string): Promise<TenantAccess>;
  /**
   * The records of `subject` the caller may `action` in the tenants this
   * request has entered through the guard, as a Prisma `where`. For relation
   * fields (`project.entriesConnection`): Pothos builds their filter into the
   * parent's query, before the parent's rows (and so its tenant) are known;
   * the parent was reached through its tenant's guard, which has answered by then.
   */
  scopeOfEnteredTenants<S extends Subject>(action: ActionOn<S>, subject: S): ReturnType<typeof scopeAcross<S>>;
  /**
   * The guard's answer for a tenant this request has entered, without waiting: fields asked thousands of times
   * per answer (a report's amounts) decide at once instead of each awaiting `tenantAccess`.
   */
  enteredTenant(tenantId: string): TenantAccess | undefined;
  /**
   * What this request builds once under `key`, such as a DataLoader that
   * batches a field's lookups for every row of a page into one statement.
   */
  once<Value>(key: string, create: () => Value): Value;
  /** Set when an operation of this request was a mutation: its caller's next reads must see what it wrote (src/db/replicas.ts). */
  readonly writes: { mutation: boolean };
}

export interface ContextDependencies {
  db: Db;
  services: GraphQLContext['services'];
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
  const built = new Map<string, unknown>();
  const entered: TenantAccess[] = [];
  /** Keeps the guard's answer; the callback is attached before any caller awaits it, so it runs first. */
  const remembered = (access: Promise<TenantAccess>): Promise<TenantAccess> => {
    access.then(
      (granted) => entered.push(granted),
      () => undefined,
    ); // a refusal is handled by whoever asked
    return access;
  };
  const { knownTenant, ...identity } = request;
  if (knownTenant && request.actor?.type === 'api_key') {
    const actor = request.actor;
    // Decided lazily, so that a refusal (a suspended tenant) surfaces where the guard is asked, as always.
    const access = remembered(Promise.resolve().then(() => keyTenantAccess(actor, knownTenant)));
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
        access = remembered(resolveTenantAccess(db, actor, tenantId));
        accessByTenant.set(tenantId, access);
      }
      return access;
    },
    scopeOfEnteredTenants: (action, subject) => scopeAcross(entered, action, subject),
    enteredTenant: (tenantId) => entered.find((access) => access.tenantId === tenantId),
    once<Value>(key: string, create: () => Value): Value {
      if (!built.has(key)) built.set(key, create());
      return built.get(key) as Value;
    },
    writes: { mutation: false },
  };
}

/**
 * The permission check of an operation inside a tenant, the one every entry
 * point makes: the tenant guard (asked once per request and tenant: another
 * tenant is a 404), then the grant (403 without it). GraphQL makes it in the
 * field's scope; REST's router makes it before it reads a body, and the
 * field's scope then finds the guard's answer in the request's memo.
 */
export async function permittedAccess(context: GraphQLContext, tenantId: string, permission: Permission): Promise<TenantAccess> {
  const access = await context.tenantAccess(tenantId);
  const [action, subject] = permission;
  if (!access.holds(permission)) throw permissionRefusal(action, subject);
  return access;
}

/** The caller of an operation that passed the `authenticated` scope. */
export function actorOf(context: GraphQLContext): Actor {
  if (context.actor === null) throw unauthenticated();
  return context.actor;
}
