import type { Db } from '../db/client.js';
import { AppError, forbidden, notFound } from '../lib/errors.js';
import type { TenantStatus } from '../generated/prisma/enums.js';
import type { Actor } from './actor.js';
import {
  grantsOf,
  switchesOf,
  ownership,
  ownershipRefusal,
  reachesOf,
  tenantFieldOf,
  type Action,
  type ActionOn,
  type Grant,
  type OwnedSubject,
  type OwnerField,
  type Permission,
  type Role,
  type Subject,
  type TenantField,
} from './permissions.js';

/** The fields of a tenant the guard reads. */
export interface TenantRecord {
  id: string;
  name: string;
  slug: string;
  status: TenantStatus;
  /** The stored settings: some switch grants on (`membersSeeRates`). */
  settings: unknown;
}

/**
 * The records of a subject a caller may act on, as a Prisma `where`: the
 * tenant, and for grants that reach only the caller's own records (or only
 * others'), the owner field. A caller without a member id of their own (an
 * API key, the system) owns nothing: `{ [owner]: { in: [] } }`.
 *
 * Spread it last into a `where` (`{ id, ...access.scope('read', 'Note') }`),
 * so that no condition of the caller's can replace one of the scope's.
 */
export type Scope<S extends Subject> = TenantScope<S> &
  (S extends OwnedSubject ? { [Field in OwnerField<S>]?: string | { not: string } | { in: string[] } } : unknown);

/** Every record of a subject in the tenant, whoever owns it: `{ tenantId }` (a tenant's own record: `{ id }`). */
export type TenantScope<S extends Subject> = { [Field in TenantField<S>]: string };

/** A record of an owned subject, as far as ownership needs it. */
export type Owned<S extends OwnedSubject> = { [Field in OwnerField<S>]: string | null };

/** Adds a value to a raw statement's parameters and returns its placeholder (`$3`). */
export type BindParameter = (value: unknown) => string;

/**
 * What the tenant guard resolved for one caller in one tenant: the role, the
 * caller's `tenantUserId` (null for API keys and the system), and the
 * permissions of that role. Services take it as proof that the caller may
 * enter the tenant, and read and write the tenant's records only through it:
 * `scope` (and `sqlScope`) in every `where`, `stamp` on every new record,
 * and the access itself as the origin of every event. A worker or the CLI,
 * which has no guard in front, acts through `systemAccess`.
 */
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
  /**
   * The records of `subject` the caller may `action` in this tenant, as a
   * Prisma `where` to spread into every query of them; FORBIDDEN when the
   * caller may not `action` it at all.
   */
  scope<S extends Subject>(action: ActionOn<S>, subject: S): Scope<S>;
  /** `scope` as an SQL predicate over the table aliased `alias`, for raw statements (search, reports). */
  sqlScope<S extends Subject>(action: ActionOn<S>, subject: S, alias: string, bind: BindParameter): string;
  /**
   * Every record of `subject` in this tenant, whoever owns it and whatever
   * the caller's grant on it, as a Prisma `where`: for the rules a service
   * keeps over the whole tenant (a name taken, entries that overlap, what a
   * budget has spent, the events of an entry whose history the caller may
   * read). Never to answer with records: what the caller may read is `scope`.
   */
  tenantWide<S extends Subject>(subject: S): TenantScope<S>;
  /** `tenantWide` as an SQL predicate over the table aliased `alias`. */
  sqlTenantWide(subject: Subject, alias: string, bind: BindParameter): string;
  /** A new record of this tenant: `data` with the tenant stamped on it (after `data`, so nothing in it can name another). */
  stamp<Data extends object>(data: Data): Data & { tenantId: string };
  /** The record belongs to the caller (their entry, their note, the task assigned to them...). */
  owns<S extends OwnedSubject>(subject: S, record: Owned<S>): boolean;
  /** Throws FORBIDDEN unless the caller may `action` this record: their grant reaches it (any, own, or others'). */
  assertMayChange<S extends OwnedSubject>(action: ActionOn<S>, subject: S, record: Owned<S>, verb?: string): void;
}

/** The refusal every layer uses, so that REST, GraphQL and jobs word it alike. */
export const permissionRefusal = (action: string, subject: string): AppError => forbidden(`You may not ${action} ${subject} in this tenant`);

const isOwned = (subject: Subject): subject is OwnedSubject => Object.hasOwn(ownership, subject);

/** SQL names are quoted as Prisma maps them: the model's field names are the column names. */
const column = (alias: string, field: string): string => `${alias}."${field}"`;

/** The access of a role already decided (by the guard below; tests build it directly). */
export function accessFor(tenant: TenantRecord, actor: Actor, role: Role, tenantUserId: string | null): TenantAccess {
  const tenantId = tenant.id;
  const switches = switchesOf(tenant.settings);
  const reachOf = reachesOf(role, switches);
  const may = (action: Action, subject: Subject): boolean => reachOf(action, subject) !== 'none';
  /** The owner condition of (action, subject), or null when every record of the tenant is reachable. */
  function ownerCondition(action: ActionOn<Subject>, subject: Subject): { field: string; reach: 'own' | 'others' } | null {
    const reach = reachOf(action, subject);
    if (reach === 'none') throw permissionRefusal(action, subject);
    if (reach === 'any') return null;
    // A limited grant without an owner declared cannot compile (permissions.ts); this guards the data, not the types.
    if (!isOwned(subject)) throw new Error(`${subject} has a grant limited to ${reach} records but no owner declared`);
    return { field: ownership[subject].field, reach };
  }
  const tenantWide = <S extends Subject>(subject: S): TenantScope<S> => ({ [tenantFieldOf(subject)]: tenantId }) as TenantScope<S>;
  const sqlTenantWide = (subject: Subject, alias: string, bind: BindParameter): string => `${column(alias, tenantFieldOf(subject))} = ${bind(tenantId)}`;
  const owns = (subject: OwnedSubject, record: Record<string, string | null>): boolean =>
    tenantUserId !== null && record[ownership[subject].field] === tenantUserId;
  return {
    tenantId,
    tenant,
    actor,
    role,
    tenantUserId,
    grants: grantsOf(role, switches),
    can: may,
    canAny: (action, subject) => reachOf(action, subject) === 'any',
    holds: ([action, subject]) => may(action, subject),
    assert(action, subject) {
      if (!may(action, subject)) throw permissionRefusal(action, subject);
    },
    scope<S extends Subject>(action: ActionOn<S>, subject: S): Scope<S> {
      const condition = ownerCondition(action, subject);
      const inTenant = tenantWide(subject);
      if (condition === null) return inTenant as Scope<S>;
      if (tenantUserId === null) return (condition.reach === 'own' ? { ...inTenant, [condition.field]: { in: [] } } : inTenant) as Scope<S>;
      return { ...inTenant, [condition.field]: condition.reach === 'own' ? tenantUserId : { not: tenantUserId } } as Scope<S>;
    },
    sqlScope(action, subject, alias, bind) {
      const condition = ownerCondition(action, subject);
      const inTenant = sqlTenantWide(subject, alias, bind);
      if (condition === null) return inTenant;
      if (tenantUserId === null) return condition.reach === 'own' ? `${inTenant} AND FALSE` : inTenant;
      const owner = column(alias, condition.field);
      // IS DISTINCT FROM: a record without an owner (an unassigned task) is someone else's.
      return `${inTenant} AND ${owner} ${condition.reach === 'own' ? '=' : 'IS DISTINCT FROM'} ${bind(tenantUserId)}`;
    },
    tenantWide,
    sqlTenantWide,
    stamp: (data) => ({ ...data, tenantId }),
    owns: (subject, record) => owns(subject, record),
    assertMayChange(action, subject, record, verb = action) {
      const condition = ownerCondition(action, subject);
      if (condition === null) return;
      if (owns(subject, record) === (condition.reach === 'own')) return;
      throw forbidden(ownershipRefusal(subject, { verb, role, reach: condition.reach }));
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

/**
 * The records of `subject` the caller may `action` in any of the tenants of
 * `accesses`, as one Prisma `where`; none at all when no access grants it.
 */
export function scopeAcross<S extends Subject>(
  accesses: Iterable<TenantAccess>,
  action: ActionOn<S>,
  subject: S,
): { OR: Scope<S>[] } | { id: { in: string[] } } {
  const scopes = [...accesses].filter((access) => access.can(action, subject)).map((access) => access.scope(action, subject));
  return scopes.length === 0 ? { id: { in: [] } } : { OR: scopes };
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
      settings: true,
      users: actor.type === 'user' ? { where: { userId: actor.userId, status: 'active' }, select: { id: true, role: true }, take: 1 } : false,
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

/**
 * Access of a member where no session stands in front but a credential that stands for them (a calendar feed's
 * token): their role's grants and their own records, as the guard would give them, so the matrix decides what
 * they see. `actor` names the entry point for logs and events.
 */
export function memberAccess(tenant: TenantRecord, actor: Actor, member: { id: string; role: Role }): TenantAccess {
  return accessFor(tenant, actor, member.role, member.id);
}
