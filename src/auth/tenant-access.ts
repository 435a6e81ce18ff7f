import type { Db } from '../db/client.js';
import { AppError, forbidden, notFound } from '../lib/errors.js';
import type { TenantStatus } from '../generated/prisma/enums.js';
import type { Actor } from './actor.js';
import { canAny, canSome, grantsOf, type ActionOn, type Grant, type Permission, type Role, type Subject } from './permissions.js';

/**
 * What the tenant guard resolved for one caller in one tenant: the role, the
 * caller's `tenantUserId` (null for API keys and the system), and the
 * permissions of that role. Services take it as proof that the caller may
 * enter the tenant, scope every query by `tenantId`, and check grants on it
 * themselves when a caller (a worker, the CLI) has no API layer in front.
 */
/** The fields of a tenant the guard reads. */
export interface TenantRecord {
  id: string;
  name: string;
  slug: string;
  status: TenantStatus;
}

export interface TenantAccess {
  readonly tenantId: string;
  readonly tenant: TenantRecord;
  readonly actor: Actor;
  readonly role: Role;
  readonly tenantUserId: string | null;
  readonly grants: readonly Grant[];
  /** May do `action` on `subject`, at least on the caller's own records. */
  can<S extends Subject>(action: ActionOn<S>, subject: S): boolean;
  /** May do `action` on every record of `subject`. */
  canAny<S extends Subject>(action: ActionOn<S>, subject: S): boolean;
  /** `can` for a declared pair (a route's or an operation's permission). */
  holds(permission: Permission): boolean;
  /** Throws FORBIDDEN unless `can(action, subject)`. */
  assert<S extends Subject>(action: ActionOn<S>, subject: S): void;
}

/** The refusal every layer uses, so that REST, GraphQL and jobs word it alike. */
export const permissionRefusal = (action: string, subject: string): AppError =>
  forbidden(`You may not ${action} ${subject} in this tenant`);

function accessFor(
  tenant: TenantRecord,
  actor: Actor,
  role: Role,
  tenantUserId: string | null,
): TenantAccess {
  return {
    tenantId: tenant.id,
    tenant,
    actor,
    role,
    tenantUserId,
    grants: grantsOf(role),
    can: (action, subject) => canSome(role, action, subject),
    canAny: (action, subject) => canAny(role, action, subject),
    holds: ([action, subject]) => canSome(role, action, subject),
    assert(action, subject) {
      if (!canSome(role, action, subject)) throw permissionRefusal(action, subject);
    },
  };
}

/**
 * The guard's decision for one tenant: another tenant's resources are
 * reported as 404, never 403, so a caller learns nothing about tenants they do
 * not belong to; a suspended tenant is refused to everyone.
 */
function decide(actor: Actor, tenant: TenantRecord, membership: { id: string; role: Role } | undefined): TenantAccess {
  let access: TenantAccess;
  switch (actor.type) {
    case 'api_key':
      if (actor.tenantId !== tenant.id) throw notFound('Tenant', tenant.id);
      access = accessFor(tenant, actor, 'admin', null);
      break;
    case 'system':
      access = accessFor(tenant, actor, 'owner', null);
      break;
    case 'user':
      // A superadmin acts as owner in every tenant, whatever their own membership says.
      if (actor.isSuperadmin) access = accessFor(tenant, actor, 'owner', membership?.id ?? null);
      else if (membership) access = accessFor(tenant, actor, membership.role, membership.id);
      else throw notFound('Tenant', tenant.id);
      break;
  }
  if (tenant.status === 'suspended') throw new AppError('TENANT_SUSPENDED', `Tenant ${tenant.id} is suspended`);
  return access;
}

/** The tenant guard: one query for the tenant and the caller's membership in it. */
export async function resolveTenantAccess(db: Db, actor: Actor, tenantId: string): Promise<TenantAccess> {
  const tenant = await db.tenant.findUnique({
    where: { id: tenantId },
    select: {
      id: true,
      name: true,
      slug: true,
      status: true,
      users:
        actor.type === 'user'
          ? { where: { userId: actor.userId, status: 'active' }, select: { id: true, role: true }, take: 1 }
          : false,
    },
  });
  if (!tenant) throw notFound('Tenant', tenantId);
  const { users, ...record } = tenant;
  return decide(actor, record, users?.[0]);
}

/** The guard for an API key's own tenant, read in the same statement as the key. */
export function keyTenantAccess(actor: Extract<Actor, { type: 'api_key' }>, tenant: TenantRecord): TenantAccess {
  return decide(actor, tenant, undefined);
}

/** Access for the CLI and workers, which act as owner of the tenant they are told to work on. */
export function systemAccess(tenant: TenantRecord, actor: Actor): TenantAccess {
  return accessFor(tenant, actor, 'owner', null);
}
