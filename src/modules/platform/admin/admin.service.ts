import { z } from 'zod';
import { requireSuperadmin, type Actor } from '../../../auth/actor.js';
import type { Db } from '../../../db/client.js';
import type { PrismaQuery } from '../../../db/query.js';
import type { Prisma, Tenant, User } from '../../../generated/prisma/client.js';
import type { Clock } from '../../../lib/clock.js';
import { args, dto, fields, pagination } from '../../../lib/dto.js';
import { enums } from '../../../lib/enums.js';
import { conflictReasons, notFound } from '../../../lib/errors.js';

/** Why an administration change is refused with 409. */
export const adminConflicts = conflictReasons('Admin', {
  LAST_SUPERADMIN: { code: 'CONFLICT', description: 'The last superadmin cannot be revoked; grant another one first' },
});

export const UpdateAdminTenantDto = dto('UpdateAdminTenantDto', 'Suspend or restore a tenant.', {
  status: enums.TenantStatus.schema('A suspended tenant answers 403 TENANT_SUSPENDED everywhere'),
});

export const UpdateAdminUserDto = dto('UpdateAdminUserDto', "Grant or revoke a user's superadmin rights.", {
  isSuperadmin: z.boolean().describe('Superadmins act as owner in every tenant and may use /admin'),
});

export const ListAdminTenantsArgs = args({
  status: enums.TenantStatus.schema().optional().describe('Only tenants with this status'),
  search: z.string().trim().min(1).max(200).optional().describe('Part of the name or slug'),
  ...pagination,
});

export const ListAdminUsersArgs = args({
  search: z.string().trim().min(1).max(320).optional().describe('Part of the e-mail address or name'),
  isSuperadmin: z.boolean().optional().describe('Only superadmins (true) or only others (false)'),
  ...pagination,
});

export const AdminStatsArgs = args({});
export const UpdateAdminTenantArgs = args({ tenantId: fields.id('Tenant id'), input: UpdateAdminTenantDto });
export const UpdateAdminUserArgs = args({ userId: fields.id('User id'), input: UpdateAdminUserDto });

export type AdminTenantQuery = PrismaQuery<Prisma.TenantInclude, Prisma.TenantSelect>;
export type AdminUserQuery = PrismaQuery<Prisma.UserInclude, Prisma.UserSelect>;

export interface AdminStats {
  tenants: number;
  suspendedTenants: number;
  users: number;
  superadmins: number;
  activeSessions: number;
  activeApiKeys: number;
  notes: number;
  entries: number;
  invoices: number;
  /** Outbox events not yet fanned out to webhooks and notifications. */
  pendingEvents: number;
  pendingWebhookDeliveries: number;
}

/** Operations across tenants, for superadmins (and the CLI). */
export function createAdminService({ db, clock }: { db: Db; clock: Clock }) {
  async function setSuperadmin(where: Prisma.UserWhereUniqueInput, isSuperadmin: boolean, query: AdminUserQuery = {}) {
    return db.$transaction(async (tx) => {
      // One change of superadmins at a time, so that the last one cannot be revoked concurrently.
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(7263810003)`;
      const user = await tx.user.findUnique({ where });
      if (!user) throw notFound('User', where.id ?? where.email);
      if (user.isSuperadmin && !isSuperadmin && (await tx.user.count({ where: { isSuperadmin: true } })) <= 1) {
        throw adminConflicts.refuse('LAST_SUPERADMIN', 'The last superadmin cannot be revoked; grant another one first');
      }
      return tx.user.update({ ...query, where: { id: user.id }, data: { isSuperadmin } });
    });
  }

  return {
    /** Every tenant, newest first. */
    async listTenants(actor: Actor, { status, search, limit, offset }: z.output<typeof ListAdminTenantsArgs>, query: AdminTenantQuery = {}): Promise<Tenant[]> {
      requireSuperadmin(actor);
      return db.tenant.findMany({
        ...query,
        where: {
          ...(status ? { status } : {}),
          ...(search ? { OR: [{ name: { contains: search, mode: 'insensitive' } }, { slug: { contains: search.toLowerCase() } }] } : {}),
        },
        orderBy: { id: 'desc' },
        take: limit,
        skip: offset,
      });
    },

    /** Suspends or restores a tenant. */
    async updateTenant(actor: Actor, tenantId: string, { status }: z.output<typeof UpdateAdminTenantDto>, query: AdminTenantQuery = {}): Promise<Tenant> {
      requireSuperadmin(actor);
      const existing = await db.tenant.findUnique({ where: { id: tenantId }, select: { id: true } });
      if (!existing) throw notFound('Tenant', tenantId);
      return db.tenant.update({ ...query, where: { id: tenantId }, data: { status } });
    },

    /** Every user who ever signed in, newest first. */
    async listUsers(actor: Actor, { search, isSuperadmin, limit, offset }: z.output<typeof ListAdminUsersArgs>, query: AdminUserQuery = {}): Promise<User[]> {
      requireSuperadmin(actor);
      return db.user.findMany({
        ...query,
        where: {
          ...(isSuperadmin === undefined ? {} : { isSuperadmin }),
          ...(search
            ? {
                OR: [{ email: { contains: search.toLowerCase() } }, { name: { contains: search, mode: 'insensitive' } }],
              }
            : {}),
        },
        orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
        take: limit,
        skip: offset,
      });
    },

    /** Grants or revokes superadmin; the last superadmin stays. */
    async updateUser(actor: Actor, userId: string, { isSuperadmin }: z.output<typeof UpdateAdminUserDto>, query: AdminUserQuery = {}): Promise<User> {
      requireSuperadmin(actor);
      return setSuperadmin({ id: userId }, isSuperadmin, query);
    },

    /** `tally superadmin grant|revoke <email>`: the person must have signed in once. */
    async setSuperadminByEmail(actor: Actor, email: string, isSuperadmin: boolean): Promise<User> {
      requireSuperadmin(actor);
      return setSuperadmin({ email: email.trim().toLowerCase() }, isSuperadmin);
    },

    /** Counts for the operator's dashboard. */
    async stats(actor: Actor): Promise<AdminStats> {
      requireSuperadmin(actor);
      const now = clock.now();
      // Sign-in sessions are better-auth's: it stamps and checks their expiry by the system clock, so they are counted by it too.
      const sessionsNow = new Date();
      const [tenants, suspendedTenants, users, superadmins, activeSessions, activeApiKeys, notes, entries, invoices, pendingEvents, pendingWebhookDeliveries] =
        await db.$transaction([
          db.tenant.count(),
          db.tenant.count({ where: { status: 'suspended' } }),
          db.user.count(),
          db.user.count({ where: { isSuperadmin: true } }),
          db.session.count({ where: { expiresAt: { gt: sessionsNow } } }),
          db.apiKey.count({ where: { revokedAt: null, expiresAt: { gt: now } } }),
          db.note.count(),
          db.entry.count(),
          db.invoice.count(),
          db.event.count({ where: { processedAt: null } }),
          db.webhookDelivery.count({ where: { status: 'pending' } }),
        ]);
      return {
        tenants,
        suspendedTenants,
        users,
        superadmins,
        activeSessions,
        activeApiKeys,
        notes,
        entries,
        invoices,
        pendingEvents,
        pendingWebhookDeliveries,
      };
    },
  };
}

export type AdminService = ReturnType<typeof createAdminService>;
