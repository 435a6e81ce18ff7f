import { z } from 'zod';
import { isHolidayRegion } from '../../../lib/holiday-regions.js';
import type { Actor } from '../../../auth/actor.js';
import type { Grant } from '../../../auth/permissions.js';
import type { TenantAccess } from '../../../auth/tenant-access.js';
import type { Db, Tx } from '../../../db/client.js';
import type { Reads } from '../../../db/replicas.js';
import { tenantPage } from '../../../db/list.js';
import { fragment } from '../../../db/parameters.js';
import { shapesResult, type PrismaQuery } from '../../../db/query.js';
import { recordEvent, withDays } from '../../../events/outbox.js';
import type { Prisma, TenantUser } from '../../../generated/prisma/client.js';
import type { TenantRole, TenantUserStatus } from '../../../generated/prisma/enums.js';
import type { Clock } from '../../../lib/clock.js';
import { args, dto, fields, pagination } from '../../../lib/dto.js';
import { enums } from '../../../lib/enums.js';
import { dayText, optionalDayColumn } from '../../../lib/day.js';
import { conflictReasons, forbidden, notFound, validationFailed } from '../../../lib/errors.js';
import { assertMoneyScale, currencyOfSettings } from '../../../lib/money.js';
import { defineEnum } from '../../../lib/vocabulary.js';

const role = enums.TenantRole.schema('Role in the tenant');

/** Why a change to a tenant's members is refused with 409. */
export const userConflicts = conflictReasons('User', {
  ALREADY_MEMBER: { code: 'CONFLICT', description: 'The person is already invited to or a member of this tenant' },
  INVITATION_PENDING: { code: 'INVALID_STATE', description: 'An invitation becomes active when the person signs in, not by hand' },
  LAST_OWNER: { code: 'CONFLICT', description: 'The last active owner of a tenant cannot be demoted, deactivated or removed; make someone else owner first' },
});
/** The statuses a member can be set to by hand (an invitation becomes active by signing in). */
export const memberStatusChange = defineEnum('MemberStatusChange', ['active', 'deactivated']);
const rate = (what: string) => fields.money(`${what}, per hour, in the tenant's currency`, { min: 0, max: 1_000_000 });
const employment = {
  employmentStart: fields
    .date('The first day of employment: nothing is expected before it, vacation is pro rata from it (null: as before, from the membership)')
    .nullable()
    .optional(),
  employmentEnd: fields
    .date('The last day of employment: nothing is expected after it, vacation is pro rata up to it (null: open-ended)')
    .nullable()
    .optional(),
};

export const CreateUserDto = dto('CreateUserDto', 'Invite a person to the tenant by e-mail.', {
  email: z.email('must be an e-mail address').max(320).describe('They become a member when they sign in with this address'),
  role: role.default('member'),
  name: z.string().trim().min(1).max(200).optional().describe('Display name until they sign in'),
  hourlyRate: rate('Billing rate').optional(),
  costRate: rate('Cost rate').optional(),
  ...employment,
});

export const UpdateUserDto = dto('UpdateUserDto', "Changes to a member's role, status or rates.", {
  name: z.string().trim().min(1).max(200).optional().describe('Display name'),
  role: role.optional(),
  status: memberStatusChange.schema('Deactivate a member, or reactivate one').optional(),
  hourlyRate: rate('Billing rate').nullable().optional(),
  costRate: rate('Cost rate').nullable().optional(),
  holidayRegion: z
    .string()
    .trim()
    .refine(isHolidayRegion, 'must be a holiday region of date-holidays such as DE, DE-BY or US-CA')
    .nullable()
    .optional()
    .describe("The member's own public-holiday region (a date-holidays code such as DE-BY); null: the tenant's"),
  ...employment,
});

const tenantId = fields.id('Tenant id');
const memberId = fields.id('The tenantUserId');
export const ListUsersArgs = args({
  tenantId,
  role: role.optional().describe('Only members with this role'),
  status: enums.TenantUserStatus.schema('Only members with this status').optional(),
  ...pagination,
});
export const TenantArgs = args({ tenantId });
export const UserArgs = args({ tenantId, id: memberId });
export const InviteUserArgs = args({ tenantId, input: CreateUserDto });
export const UpdateUserArgs = args({ tenantId, id: memberId, input: UpdateUserDto });

export type TenantUserQuery = PrismaQuery<Prisma.TenantUserInclude, Prisma.TenantUserSelect>;

/** What `users/me` answers: the caller's membership (empty for API keys and superadmins without one), role and grants. */
export interface Membership {
  tenantId: string;
  role: TenantRole;
  permissions: readonly Grant[];
  actorType: Actor['type'];
  member: TenantUser | null;
}

export interface NewMember {
  email: string;
  role: TenantRole;
  name?: string | undefined;
  hourlyRate?: string | undefined;
  costRate?: string | undefined;
  employmentStart?: string | null | undefined;
  employmentEnd?: string | null | undefined;
}

type EmploymentInput = { employmentStart?: string | null | undefined; employmentEnd?: string | null | undefined };

/** The employment columns of a write (only those it names), after checking the end is not before the start (400 naming employmentEnd). */
function employmentOf(input: EmploymentInput, current?: Pick<TenantUser, 'employmentStart' | 'employmentEnd'>) {
  const start = input.employmentStart === undefined ? (current?.employmentStart ? dayText(current.employmentStart) : null) : input.employmentStart;
  const end = input.employmentEnd === undefined ? (current?.employmentEnd ? dayText(current.employmentEnd) : null) : input.employmentEnd;
  if (start !== null && end !== null && end < start) {
    throw validationFailed([{ path: 'employmentEnd', message: `must not be before employmentStart (${start})` }]);
  }
  return {
    ...(input.employmentStart === undefined ? {} : { employmentStart: optionalDayColumn(input.employmentStart) }),
    ...(input.employmentEnd === undefined ? {} : { employmentEnd: optionalDayColumn(input.employmentEnd) }),
  };
}

/** A member as events carry it: with the currency of its rates, the tenant's. */
const withCurrency = (access: TenantAccess, member: TenantUser) => ({
  ...withDays(member, ['employmentStart', 'employmentEnd']),
  currency: currencyOfSettings(access.tenant.settings),
});

/**
 * Adds a member inside the caller's transaction (invitations, imports, and
 * the owner of a new tenant). A person who already signed in with this
 * verified address is active at once; otherwise they are invited until they
 * sign in. A deactivated member is invited again. `now` is the clock's: a
 * new membership begins then (its `createdAt`, from which vacation is pro rata).
 */
export async function addMember(tx: Tx, access: TenantAccess, member: NewMember, now: Date): Promise<TenantUser> {
  // A member's own rates are in the tenant's currency.
  assertMoneyScale(currencyOfSettings(access.tenant.settings), { hourlyRate: member.hourlyRate, costRate: member.costRate });
  const email = member.email.toLowerCase();
  // On the tenant's unique (tenantId, email): one membership per address, whoever reads it.
  const existing = await tx.tenantUser.findFirst({ where: { email, ...access.tenantWide('TenantUser') } });
  if (existing && existing.status !== 'deactivated') {
    throw userConflicts.refuse('ALREADY_MEMBER', `${email} is already ${existing.status === 'invited' ? 'invited to' : 'a member of'} this tenant`, {
      errors: [{ path: 'email', message: 'is already a member' }],
    });
  }
  const user = await tx.user.findUnique({ where: { email }, select: { id: true, name: true, emailVerified: true } });
  // An unverified address proves nothing: that person waits like anyone invited.
  const linked = user?.emailVerified ? user : null;
  const values = {
    // A deactivated member invited again keeps the dates not sent: the check is against them.
    ...employmentOf(member, existing ?? undefined),
    role: member.role,
    name: member.name ?? linked?.name ?? existing?.name ?? null,
    userId: linked?.id ?? existing?.userId ?? null,
    status: (linked || existing?.userId ? 'active' : 'invited') as TenantUserStatus,
    ...(member.hourlyRate === undefined ? {} : { hourlyRate: member.hourlyRate }),
    ...(member.costRate === undefined ? {} : { costRate: member.costRate }),
  };
  const saved = existing
    ? await tx.tenantUser.update({ where: { id: existing.id }, data: values })
    : await tx.tenantUser.create({ data: access.stamp({ email, ...values, createdAt: now }) });
  await recordEvent(tx, access, { type: 'user.added', subjectId: saved.id, data: withCurrency(access, saved) });
  return saved;
}

export function createUserService({ db, reads, clock }: { db: Db; reads: Reads; clock: Clock }) {
  /** Serialises membership changes of one tenant, so that two concurrent changes cannot remove its last owner. */
  async function lockTenant(tx: Tx, access: TenantAccess): Promise<void> {
    await tx.$queryRaw`SELECT 1 FROM tenants t WHERE ${fragment((bind) => access.sqlTenantWide('Tenant', 't', bind))} FOR UPDATE`;
  }

  async function findMember(tx: Tx | Db, access: TenantAccess, id: string): Promise<TenantUser> {
    const member = await tx.tenantUser.findFirst({ where: { id, ...access.scope('read', 'TenantUser') } });
    if (!member) throw notFound('User', id);
    return member;
  }

  async function activeOwners(tx: Tx, access: TenantAccess): Promise<number> {
    return tx.tenantUser.count({ where: { role: 'owner', status: 'active', ...access.tenantWide('TenantUser') } });
  }

  /** Owners alone grant, change or take the owner role. */
  function requireOwnerFor(access: TenantAccess, member: TenantUser | undefined, newRole: TenantRole | undefined): void {
    const touchesOwner = newRole === 'owner' || member?.role === 'owner';
    if (touchesOwner && access.role !== 'owner') throw forbidden('Only an owner may grant, change or take the owner role');
  }

  async function reread(tx: Tx, id: string, query: TenantUserQuery, row: TenantUser): Promise<TenantUser> {
    return shapesResult(query) ? tx.tenantUser.findUniqueOrThrow({ ...query, where: { id } }) : row;
  }

  return {
    /** Members of the tenant, newest first, filtered by role and status. */
    async list(
      access: TenantAccess,
      { limit, offset, role: roleFilter, status }: z.output<typeof ListUsersArgs>,
      query: TenantUserQuery = {},
    ): Promise<TenantUser[]> {
      return reads.run(access, ({ db }) =>
        db.tenantUser.findMany({
          ...query,
          ...tenantPage(access.scope('read', 'TenantUser'), { limit, offset }, { ...(roleFilter ? { role: roleFilter } : {}), ...(status ? { status } : {}) }),
        }),
      );
    },

    /** One member of the tenant. */
    async get(access: TenantAccess, id: string, query: TenantUserQuery = {}): Promise<TenantUser> {
      const member = await db.tenantUser.findFirst({ ...query, where: { id, ...access.scope('read', 'TenantUser') } });
      if (!member) throw notFound('User', id);
      return member;
    },

    /** The caller's own membership and what it may do. */
    async me(access: TenantAccess): Promise<Membership> {
      const member = access.tenantUserId ? await db.tenantUser.findUnique({ where: { id: access.tenantUserId } }) : null;
      const { tenantId, role, grants, actor } = access;
      return { tenantId, role, permissions: grants, actorType: actor.type, member };
    },

    /** Invites an e-mail address (see addMember). Only owners may invite owners. */
    async invite(access: TenantAccess, data: z.output<typeof CreateUserDto>, query: TenantUserQuery = {}): Promise<TenantUser> {
      access.assert('create', 'TenantUser');
      requireOwnerFor(access, undefined, data.role);
      return db.$transaction(async (tx) => {
        await lockTenant(tx, access);
        const member = await addMember(tx, access, data, clock.now());
        return reread(tx, member.id, query, member);
      });
    },

    /** Changes role, status, name or rates; never leaves the tenant without an active owner. */
    async update(access: TenantAccess, id: string, data: z.output<typeof UpdateUserDto>, query: TenantUserQuery = {}): Promise<TenantUser> {
      access.assert('update', 'TenantUser');
      return db.$transaction(async (tx) => {
        await lockTenant(tx, access);
        const member = await findMember(tx, access, id);
        if (Object.keys(data).length === 0) return reread(tx, id, query, member);
        assertMoneyScale(currencyOfSettings(access.tenant.settings), { hourlyRate: data.hourlyRate, costRate: data.costRate });
        if (data.role !== undefined && data.role !== member.role) requireOwnerFor(access, member, data.role);
        if (data.status !== undefined && data.status !== member.status && member.role === 'owner') requireOwnerFor(access, member, undefined);
        if (data.status === 'active' && member.status === 'invited') {
          throw userConflicts.refuse('INVITATION_PENDING', 'An invitation becomes active when the person signs in', {
            errors: [{ path: 'status', message: 'cannot activate an invitation' }],
          });
        }
        const staysActiveOwner = (data.role ?? member.role) === 'owner' && (data.status ?? member.status) === 'active';
        if (member.role === 'owner' && member.status === 'active' && !staysActiveOwner && (await activeOwners(tx, access)) <= 1) {
          throw userConflicts.refuse('LAST_OWNER', 'The last owner of a tenant cannot be demoted or deactivated; make someone else owner first');
        }
        const { employmentStart: _start, employmentEnd: _end, ...plain } = data;
        const updated = await tx.tenantUser.update({ where: { id }, data: { ...plain, ...employmentOf(data, member) } });
        await recordEvent(tx, access, { type: 'user.updated', subjectId: id, data: withCurrency(access, updated) });
        return reread(tx, id, query, updated);
      });
    },

    /**
     * Removes a member. An invitation nobody accepted is deleted; a member is
     * deactivated, so that their time entries keep their author. The last
     * owner cannot be removed.
     */
    async remove(access: TenantAccess, id: string, query: TenantUserQuery = {}): Promise<TenantUser> {
      access.assert('delete', 'TenantUser');
      return db.$transaction(async (tx) => {
        await lockTenant(tx, access);
        const member = await findMember(tx, access, id);
        if (member.role === 'owner') requireOwnerFor(access, member, undefined);
        if (member.role === 'owner' && member.status === 'active' && (await activeOwners(tx, access)) <= 1) {
          throw userConflicts.refuse('LAST_OWNER', 'The last owner of a tenant cannot be removed; make someone else owner first');
        }
        const removed =
          member.status === 'invited' && member.userId === null
            ? await tx.tenantUser.delete({ ...query, where: { id } })
            : await tx.tenantUser.update({ ...query, where: { id }, data: { status: 'deactivated' } });
        await recordEvent(tx, access, { type: 'user.removed', subjectId: id, data: withCurrency(access, member) });
        return removed;
      });
    },

    /** On sign-in: every pending invitation for this verified address becomes an active membership. */
    async activateInvitations(user: { id: string; email: string; name: string; isSuperadmin: boolean }): Promise<number> {
      const actor: Actor = { type: 'user', userId: user.id, email: user.email, name: user.name, isSuperadmin: user.isSuperadmin };
      const invitations = await db.tenantUser.findMany({
        where: { email: user.email.toLowerCase(), status: 'invited', userId: null },
      });
      for (const invitation of invitations) {
        await db.$transaction(async (tx) => {
          const { tenant, ...activated } = await tx.tenantUser.update({
            where: { id: invitation.id },
            data: { userId: user.id, status: 'active', name: invitation.name ?? user.name },
            include: { tenant: { select: { settings: true } } },
          });
          // Before any access: the person is becoming a member of this tenant now.
          await recordEvent(
            tx,
            { tenantId: invitation.tenantId, actor },
            { type: 'user.updated', subjectId: invitation.id, data: { ...activated, currency: currencyOfSettings(tenant.settings) } },
          );
        });
      }
      return invitations.length;
    },
  };
}

export type UserService = ReturnType<typeof createUserService>;
