import { z } from 'zod';
import { actorReference } from '../../../auth/actor.js';
import type { TenantAccess } from '../../../auth/tenant-access.js';
import type { Db, Tx } from '../../../db/client.js';
import type { Reads } from '../../../db/replicas.js';
import { recordEvent, withDays } from '../../../events/outbox.js';
import type { TenantUser } from '../../../generated/prisma/client.js';
import type { Clock } from '../../../lib/clock.js';
import { args, dto, fields } from '../../../lib/dto.js';
import { validationFailed } from '../../../lib/errors.js';
import { localDate } from '../../../lib/time.js';
import { settingsFor, type TenantSettings } from '../../platform/tenant/tenant.settings.js';
import { dayFacts } from '../member-days/member-days.facts.js';
import { memberDays } from '../member-days/member-days.inputs.js';
import { dayColumn, dayText } from '../../../lib/day.js';
import { memberOf } from '../../platform/user/user.members.js';

const days = (description: string, min: number) => fields.decimal(description, { min, max: 366 });

export const SetVacationDto = dto('SetVacationDto', 'A member’s vacation days of one year.', {
  allowanceDays: days('Vacation days for a whole year (a year the member joined in is pro rata)', 0),
  carriedOverDays: days('Days carried over from the year before; left out or null: what was left of it', 0).nullable().optional(),
  carryOverExpires: fields.date('Carried-over days not taken by then are lost (default: March 31)').nullable().optional(),
});

export const CorrectVacationDto = dto('CorrectVacationDto', 'A correction of a member’s vacation days, with its reason (kept as the audit trail).', {
  days: days('Days added (negative: taken away)', -366).refine((value) => Number(value) !== 0, 'must not be 0'),
  reason: z.string().trim().min(1).max(2000).describe('Why'),
});

const tenantId = fields.id('Tenant id');
const tenantUserId = fields.id('The member (tenantUserId)');
// A path segment (users/{tenantUserId}/vacation/2027): the REST layer hands path values over as text.
const year = z
  .string()
  .regex(/^(20\d\d|2100)$/, 'must be a year from 2000 to 2100, like 2027')
  .describe('The year, 2000 to 2100');
export const VacationArgs = args({ tenantId, tenantUserId, year });
export const SetVacationArgs = args({ tenantId, tenantUserId, year, input: SetVacationDto });
export const CorrectVacationArgs = args({ tenantId, tenantUserId, year, input: CorrectVacationDto });

export interface VacationCorrectionView {
  id: string;
  days: number;
  reason: string;
  actorType: string;
  actorId: string | null;
  createdAt: Date;
}

/** A member's vacation account of one year, in days (halves where a half day was taken). */
export interface Vacation {
  tenantUserId: string;
  year: number;
  /** Days for a whole year, as set. */
  allowanceDays: number;
  /** The part of them for the months of the year the member belongs to the tenant. */
  proRataAllowanceDays: number;
  carriedOverDays: number;
  carryOverExpires: string;
  /** Carried-over days not taken by their expiry (once it has passed). */
  expiredDays: number;
  correctionDays: number;
  /** Approved vacation days up to today. */
  takenDays: number;
  /** Approved vacation days after today, and days requested and not yet decided. */
  plannedDays: number;
  leftDays: number;
  corrections: VacationCorrectionView[];
}

/** Years back a carry-over is followed (each year's carry-over is what the one before left). */
const carryYears = 10;

const round = (value: number) => Math.round(value * 10) / 10;

/**
 * The allowance of `year` for its full months of employment, from the day the member joined (`joined`) to their last day
 * (`left`, null: open-ended): a twelfth per full month, rounded up to a half day (BUrlG § 5). A month counts when the
 * member is employed all of it (joined on its 1st, left on its last day or later).
 */
export function proRata(allowanceDays: number, year: number, joined: string, left: string | null = null): number {
  const joinYear = Number(joined.slice(0, 4));
  const leaveYear = left === null ? Number.POSITIVE_INFINITY : Number(left.slice(0, 4));
  if (joinYear < year && leaveYear > year) return allowanceDays;
  if (joinYear > year || leaveYear < year) return 0;
  const firstMonth = joinYear < year ? 1 : Number(joined.slice(5, 7)) + (joined.slice(8, 10) === '01' ? 0 : 1);
  const lastMonth = leaveYear > year || left === null ? 12 : Number(left.slice(5, 7)) - (left === lastDayOfMonth(left) ? 0 : 1);
  const months = Math.max(0, lastMonth - firstMonth + 1);
  return Math.ceil(((allowanceDays * months) / 12) * 2) / 2;
}

const lastDayOfMonth = (day: string): string => {
  const [year, month] = day.split('-').map(Number) as [number, number];
  return dayText(new Date(Date.UTC(year, month, 0)));
};

/**
 * A member's vacation account of `year` (the years before it followed for its carry-over): what the balance and the vacation
 * routes show. `today` (the clock's, in the tenant's zone) parts days taken from days planned, and says which carry-overs expired.
 */
export async function vacationAccount(
  tx: Tx | Db,
  access: TenantAccess,
  member: TenantUser,
  settings: TenantSettings,
  year: number,
  today: string,
): Promise<Vacation> {
  const first = year - carryYears;
  const [allowances, corrections] = await Promise.all([
    tx.vacationAllowance.findMany({
      where: { tenantUserId: member.id, year: { gte: first, lte: year }, ...access.tenantWide('Vacation') },
      orderBy: { year: 'asc' },
    }),
    tx.vacationCorrection.findMany({
      where: { tenantUserId: member.id, year: { gte: first, lte: year }, ...access.tenantWide('Vacation') },
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    }),
  ]);
  const startYear = allowances[0]?.year ?? year;
  const inputs = await memberDays(tx, access, member, settings, `${startYear}-01-01`, `${year}-12-31`, ['approved', 'pending']);
  // The employment dates, where set; else the membership's creation (vacation was always pro rata from it).
  const joined = member.employmentStart ? dayText(member.employmentStart) : localDate(member.createdAt, settings.timezone);
  const left = member.employmentEnd ? dayText(member.employmentEnd) : null;
  const pendingIds = new Set(inputs.absences.filter((absence) => absence.status === 'pending').map((absence) => absence.id));
  const vacationOnly = { ...inputs, absences: inputs.absences.filter((absence) => absence.deductsVacation) };
  const facts = dayFacts(`${startYear}-01-01`, `${year}-12-31`, vacationOnly);
  let carried = 0;
  let result: Vacation | undefined;
  for (let current = startYear; current <= year; current++) {
    const row = allowances.find((allowance) => allowance.year === current);
    const allowanceDays = row ? Number(row.allowanceDays) : 0;
    const carriedOverDays = row?.carriedOverDays != null ? Number(row.carriedOverDays) : carried;
    const carryOverExpires = row?.carryOverExpires ? dayText(row.carryOverExpires) : `${current}-03-31`;
    let takenDays = 0;
    let plannedDays = 0;
    let usedByExpiry = 0;
    for (const day of facts) {
      if (day.vacationDays === 0 || !day.date.startsWith(`${current}-`)) continue;
      const pending = day.absenceIds.some((id) => pendingIds.has(id));
      if (!pending && day.date <= today) takenDays += day.vacationDays;
      else plannedDays += day.vacationDays;
      if (day.date <= carryOverExpires) usedByExpiry += day.vacationDays;
    }
    const expiredDays = today > carryOverExpires ? Math.max(0, carriedOverDays - usedByExpiry) : 0;
    const own = corrections.filter((correction) => correction.year === current);
    const correctionDays = own.reduce((sum, correction) => sum + Number(correction.days), 0);
    const proRataAllowanceDays = proRata(allowanceDays, current, joined, left);
    const leftDays = round(proRataAllowanceDays + carriedOverDays - expiredDays + correctionDays - takenDays - plannedDays);
    result = {
      tenantUserId: member.id,
      year: current,
      allowanceDays,
      proRataAllowanceDays,
      carriedOverDays: round(carriedOverDays),
      carryOverExpires,
      expiredDays: round(expiredDays),
      correctionDays: round(correctionDays),
      takenDays: round(takenDays),
      plannedDays: round(plannedDays),
      leftDays,
      corrections: own.map((correction) => ({ ...correction, days: Number(correction.days) })),
    };
    carried = Math.max(0, leftDays);
  }
  return result as Vacation;
}

/**
 * Vacation allowances: days per year per member, pro rata in the year they
 * joined, carried over into the next year until an expiry date, and
 * corrected by hand with a reason (never changed or deleted: the audit
 * trail). Members read their own; managers read; admins manage.
 */
export function createVacationService({ db, reads, clock }: { db: Db; reads: Reads; clock: Clock }) {
  async function read(tx: Tx | Db, access: TenantAccess, tenantUserId: string, year: number): Promise<Vacation> {
    const member = await memberOf(tx, access, tenantUserId);
    const settings = await settingsFor(tx, access);
    return vacationAccount(tx, access, member, settings, year, clock.today(settings.timezone));
  }

  return {
    /** A member's vacation account of one year (members: their own). */
    async get(access: TenantAccess, { tenantUserId, year }: z.output<typeof VacationArgs>): Promise<Vacation> {
      access.assertMayChange('read', 'Vacation', { tenantUserId });
      return reads.run(access, ({ db }) => read(db, access, tenantUserId, Number(year)));
    },

    /** Sets a member's allowance of one year; records `vacation.updated`. */
    async set(access: TenantAccess, { tenantUserId, year: yearText, input }: z.output<typeof SetVacationArgs>): Promise<Vacation> {
      access.assert('update', 'Vacation');
      const year = Number(yearText);
      return db.$transaction(async (tx) => {
        await memberOf(tx, access, tenantUserId);
        const values = {
          allowanceDays: input.allowanceDays,
          carriedOverDays: input.carriedOverDays ?? null,
          carryOverExpires: input.carryOverExpires ? dayColumn(input.carryOverExpires) : null,
        };
        if (values.carryOverExpires && !input.carryOverExpires?.startsWith(`${year}-`)) {
          throw validationFailed([{ path: 'carryOverExpires', message: `must be a day of ${year}` }]);
        }
        const row = await tx.vacationAllowance.upsert({
          where: { tenantUserId_year: { tenantUserId, year } },
          create: access.stamp({ tenantUserId, year, ...values }),
          update: values,
        });
        await recordEvent(tx, access, { type: 'vacation.updated', subjectId: row.id, data: withDays(row, ['carryOverExpires']) });
        return read(tx, access, tenantUserId, year);
      });
    },

    /** Adds a correction with its reason; records `vacation.corrected`. */
    async correct(access: TenantAccess, { tenantUserId, year: yearText, input }: z.output<typeof CorrectVacationArgs>): Promise<Vacation> {
      access.assert('update', 'Vacation');
      const year = Number(yearText);
      return db.$transaction(async (tx) => {
        await memberOf(tx, access, tenantUserId);
        const actor = actorReference(access.actor);
        const correction = await tx.vacationCorrection.create({
          data: access.stamp({
            tenantUserId,
            year,
            days: input.days,
            reason: input.reason,
            actorType: actor.type,
            actorId: actor.id,
          }),
        });
        await recordEvent(tx, access, { type: 'vacation.corrected', subjectId: correction.id, data: correction });
        return read(tx, access, tenantUserId, year);
      });
    },
  };
}

export type VacationService = ReturnType<typeof createVacationService>;
