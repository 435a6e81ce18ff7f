import { z } from 'zod';
import type { TenantAccess } from '../../../auth/tenant-access.js';
import type { Db, Tx } from '../../../db/client.js';
import { recordEvent } from '../../../events/outbox.js';
import type { Holiday as HolidayRow } from '../../../generated/prisma/client.js';
import type { Clock } from '../../../lib/clock.js';
import { args, dto, fields } from '../../../lib/dto.js';
import { conflictReasons, notFound } from '../../../lib/errors.js';
import { settingsFor } from '../../platform/tenant/tenant.settings.js';
import { dayColumn, dayText } from '../../../lib/day.js';
import { memberOf } from '../../platform/user/user.members.js';
import { publicHolidays } from '../../../lib/holiday-regions.js';
import { assertPeriod } from '../../../lib/period.js';

/** Why a write to a holiday is refused with 409. */
export const holidayConflicts = conflictReasons('Holiday', {
  HOLIDAY_DATE_TAKEN: { code: 'CONFLICT', description: 'The tenant has a holiday of its own on this date already' },
});

/** A day off for everyone: a public holiday of the region, or one of the tenant's own. */
export interface Holiday {
  /** Null for a public holiday (it is the region's, not a record). */
  id: string | null;
  tenantId: string;
  date: string;
  name: string;
  /** The part of the day off: 1, or 0.5 for a half day. */
  fraction: number;
  source: 'public' | 'tenant';
  /** The date-holidays region a public holiday comes from. */
  region: string | null;
}

export const CreateHolidayDto = dto('CreateHolidayDto', 'A holiday of the tenant’s own: a company day, or December 24 as a half day.', {
  date: fields.date('The day'),
  name: z.string().trim().min(1).max(200).describe('What it is called'),
  fraction: z
    .number()
    .refine((value) => value === 1 || value === 0.5, 'must be 1 (a whole day) or 0.5 (a half day)')
    .default(1)
    .describe('The part of the day off: 1 or 0.5'),
});

const tenantId = fields.id('Tenant id');
export const ListHolidaysArgs = args({
  tenantId,
  from: fields.date('From this day (default: January 1 of this year)').optional(),
  to: fields.date('To this day, inclusive (default: December 31 of the year of `from`)').optional(),
  tenantUserId: fields.id('The holidays of this member’s region (their own, else the tenant’s)').optional(),
});
export const CreateHolidayArgs = args({ tenantId, input: CreateHolidayDto });
export const HolidayArgs = args({ tenantId, id: fields.id('Holiday id') });

const ownHoliday = (row: HolidayRow): Holiday => ({
  id: row.id,
  tenantId: row.tenantId,
  date: dayText(row.date),
  name: row.name,
  fraction: row.fraction,
  source: 'tenant',
  region: null,
});

/**
 * The holidays in effect for a member (or the whole tenant) between two days,
 * one per date: the tenant's own take the place of a public one on the same day
 * (December 24 made a half day by the tenant stays a half day).
 */
export async function holidaysIn(tx: Tx | Db, access: TenantAccess, region: string | null, from: string, to: string): Promise<Map<string, Holiday>> {
  return (await holidaysByRegion(tx, access, from, to))(region);
}

/**
 * `holidaysIn` for many regions: the tenant's own holidays are read once, and each region's public ones are
 * computed (in memory) the first time it is asked for. For readers over many members (absence reports).
 */
export async function holidaysByRegion(tx: Tx | Db, access: TenantAccess, from: string, to: string): Promise<(region: string | null) => Map<string, Holiday>> {
  const own = await tx.holiday.findMany({
    where: { date: { gte: dayColumn(from), lte: dayColumn(to) }, ...access.scope('read', 'Holiday') },
    orderBy: { date: 'asc' },
  });
  const byRegion = new Map<string | null, Map<string, Holiday>>();
  return (region) => {
    let byDate = byRegion.get(region);
    if (byDate) return byDate;
    byDate = new Map<string, Holiday>();
    if (region) {
      for (const holiday of publicHolidays(region, from, to)) {
        // A public holiday is no record of the tenant's: its view names the tenant that reads it.
        byDate.set(holiday.date, { id: null, tenantId: access.tenantId, ...holiday, fraction: 1, source: 'public', region });
      }
    }
    for (const row of own) byDate.set(dayText(row.date), ownHoliday(row));
    byRegion.set(region, byDate);
    return byDate;
  };
}

/** The holiday region of a member: their own, else the tenant's. */
export async function regionOf(tx: Tx | Db, access: TenantAccess, tenantUserId: string | undefined): Promise<string | null> {
  const tenantRegion = (await settingsFor(tx, access)).holidayRegion;
  if (!tenantUserId) return tenantRegion;
  return (await memberOf(tx, access, tenantUserId)).holidayRegion ?? tenantRegion;
}

/**
 * Holidays: the public ones of the tenant's (or a member's) region, from
 * date-holidays, and the tenant's own. Everyone reads them; admins add and
 * delete the tenant's own.
 */
export function createHolidayService({ db, clock }: { db: Db; clock: Clock }) {
  return {
    /** The holidays in effect between two days, by date. */
    async list(access: TenantAccess, input: z.output<typeof ListHolidaysArgs>): Promise<Holiday[]> {
      access.assert('read', 'Holiday');
      const settings = await settingsFor(db, access);
      const from = input.from ?? `${clock.today(settings.timezone).slice(0, 4)}-01-01`;
      const to = input.to ?? `${from.slice(0, 4)}-12-31`;
      assertPeriod(from, to);
      const region = await regionOf(db, access, input.tenantUserId);
      return [...(await holidaysIn(db, access, region, from, to)).values()].sort((a, b) => a.date.localeCompare(b.date));
    },

    /** Adds a holiday of the tenant's own; records `holiday.created`. */
    async create(access: TenantAccess, input: z.output<typeof CreateHolidayDto>): Promise<Holiday> {
      access.assert('create', 'Holiday');
      return db.$transaction(async (tx) => {
        const date = dayColumn(input.date);
        const taken = await tx.holiday.findFirst({ where: { date, ...access.tenantWide('Holiday') }, select: { id: true } });
        if (taken) {
          throw holidayConflicts.refuse('HOLIDAY_DATE_TAKEN', `Holiday ${taken.id} is on ${input.date} already`, {
            errors: [{ path: 'date', message: 'has a holiday of the tenant already' }],
          });
        }
        const row = await tx.holiday.create({ data: access.stamp({ date, name: input.name, fraction: input.fraction }) });
        const holiday = ownHoliday(row);
        await recordEvent(tx, access, { type: 'holiday.created', subjectId: row.id, data: holiday });
        return holiday;
      });
    },

    /** Deletes one of the tenant's own holidays; records `holiday.deleted`. */
    async remove(access: TenantAccess, id: string): Promise<Holiday> {
      return db.$transaction(async (tx) => {
        const row = await tx.holiday.findFirst({ where: { id, ...access.scope('delete', 'Holiday') } });
        if (!row) throw notFound('Holiday', id);
        await tx.holiday.delete({ where: { id } });
        const holiday = ownHoliday(row);
        await recordEvent(tx, access, { type: 'holiday.deleted', subjectId: id, data: holiday });
        return holiday;
      });
    },
  };
}

export type HolidayService = ReturnType<typeof createHolidayService>;
