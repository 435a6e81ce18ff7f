import { z } from 'zod';
import { requireSuperadmin, type Actor } from '../../../auth/actor.js';
import { systemAccess, type TenantAccess } from '../../../auth/tenant-access.js';
import type { Db } from '../../../db/client.js';
import { shapesResult, type PrismaQuery } from '../../../db/query.js';
import { addMember } from '../user/user.service.js';
import type { Prisma, Tenant } from '../../../generated/prisma/client.js';
import type { Clock } from '../../../lib/clock.js';
import { args, dto, fields, pagination } from '../../../lib/dto.js';
import { conflictReasons, notFound } from '../../../lib/errors.js';
import { assertMoneyScale } from '../../../lib/money.js';
import { defaultTenantSettings, settingsOf, storedSettings, TenantSettingsDto, type TenantSettings } from './tenant.settings.js';
import { assertRatesFit } from './tenant.rates.js';

/** Why a write to a tenant is refused with 409. */
export const tenantConflicts = conflictReasons('Tenant', {
  SLUG_TAKEN: { code: 'CONFLICT', description: 'Another tenant has this slug' },
});

const slugSchema = z
  .string()
  .trim()
  .toLowerCase()
  .regex(/^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/, 'must be 1 to 63 lower-case letters, digits or -, not starting or ending with -')
  .describe('Unique short name used in URLs and the CLI');

export const CreateTenantDto = dto('CreateTenantDto', 'A new tenant (superadmin only).', {
  name: z.string().trim().min(1).max(200).describe('Display name'),
  slug: slugSchema,
  ownerEmail: z.email('must be an e-mail address').max(320).optional().describe('Invite this person as the owner'),
  settings: TenantSettingsDto.optional(),
});

export const UpdateTenantDto = dto('UpdateTenantDto', 'Changes to a tenant; settings left out keep their value.', {
  name: z.string().trim().min(1).max(200).optional().describe('Display name'),
  settings: TenantSettingsDto.optional(),
});

const tenantId = fields.id('Tenant id');
export const ListTenantsArgs = args({ ...pagination });
export const TenantArgs = args({ tenantId });
export const CreateTenantArgs = args({ input: CreateTenantDto });
export const UpdateTenantArgs = args({ tenantId, input: UpdateTenantDto });

export type TenantQuery = PrismaQuery<Prisma.TenantInclude, Prisma.TenantSelect>;

/** 400 naming `defaultHourlyRate` when it has more decimals than the settings' currency. */
function assertRateFits(settings: Pick<TenantSettings, 'currency' | 'defaultHourlyRate'>, path: string): void {
  assertMoneyScale(settings.currency, { [path]: settings.defaultHourlyRate });
}

export function createTenantService({ db, clock }: { db: Db; clock: Clock }) {
  return {
    /** Creates a tenant, optionally inviting its owner. Superadmins and the system only. */
    async create(actor: Actor, { name, slug, ownerEmail, settings }: z.output<typeof CreateTenantDto>, query: TenantQuery = {}): Promise<Tenant> {
      requireSuperadmin(actor);
      assertRateFits({ ...defaultTenantSettings, ...settings }, 'settings.defaultHourlyRate');
      return db.$transaction(async (tx) => {
        if (await tx.tenant.findUnique({ where: { slug }, select: { id: true } })) {
          throw tenantConflicts.refuse('SLUG_TAKEN', `The slug "${slug}" is already taken`, { errors: [{ path: 'slug', message: 'is already taken' }] });
        }
        const tenant = await tx.tenant.create({
          data: { name, slug, settings: storedSettings(null, { ...defaultTenantSettings, ...settings }, settings ?? {}) },
        });
        if (ownerEmail !== undefined) {
          await addMember(tx, systemAccess(tenant, actor), { email: ownerEmail, role: 'owner' }, clock.now());
        }
        return shapesResult(query) ? tx.tenant.findUniqueOrThrow({ ...query, where: { id: tenant.id } }) : tenant;
      });
    },

    /** The tenants the caller belongs to (all of them for a superadmin; its own for an API key), newest first. */
    async list(actor: Actor, { limit, offset }: z.output<typeof ListTenantsArgs>, query: TenantQuery = {}): Promise<Tenant[]> {
      const where: Prisma.TenantWhereInput =
        actor.type === 'api_key'
          ? { id: actor.tenantId }
          : actor.type === 'user' && !actor.isSuperadmin
            ? { users: { some: { userId: actor.userId, status: 'active' } } }
            : {};
      return db.tenant.findMany({ ...query, where, orderBy: { id: 'desc' }, take: limit, skip: offset });
    },

    /** The tenant the guard admitted the caller to. */
    async get(access: TenantAccess, query: TenantQuery = {}): Promise<Tenant> {
      return db.tenant.findUniqueOrThrow({ ...query, where: access.scope('read', 'Tenant') });
    },

    /** Renames a tenant or changes its settings (merged over the current ones). */
    async update(access: TenantAccess, { name, settings }: z.output<typeof UpdateTenantDto>, query: TenantQuery = {}): Promise<Tenant> {
      const own = access.scope('update', 'Tenant');
      return db.$transaction(async (tx) => {
        const current = await tx.tenant.findUniqueOrThrow({ where: own });
        const before = settingsOf(current);
        const after = settings === undefined ? before : { ...before, ...settings };
        if (settings !== undefined) {
          assertRateFits(after, settings.defaultHourlyRate === undefined ? 'settings.currency' : 'settings.defaultHourlyRate');
          // The tenant's own rates are in its currency: a new one keeps their numbers, if they fit it.
          if (after.currency !== before.currency) await assertRatesFit(tx, access, { kind: 'tenant' }, after.currency, 'settings.currency');
        }
        return tx.tenant.update({
          ...query,
          where: own,
          data: {
            ...(name === undefined ? {} : { name }),
            ...(settings === undefined ? {} : { settings: storedSettings(current, after, settings) }),
          },
        });
      });
    },

    /** A tenant by id or slug, for the CLI. */
    async findByIdOrSlug(idOrSlug: string): Promise<Tenant> {
      const tenant = await db.tenant.findFirst({ where: { OR: [{ id: idOrSlug }, { slug: idOrSlug.toLowerCase() }] } });
      if (!tenant) throw notFound('Tenant', idOrSlug);
      return tenant;
    },
  };
}

export type TenantService = ReturnType<typeof createTenantService>;
