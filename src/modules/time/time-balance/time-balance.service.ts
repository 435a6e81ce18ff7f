import type { z } from 'zod';
import type { TenantAccess } from '../../../auth/tenant-access.js';
import type { Db, Sql } from '../../../db/client.js';
import type { Clock } from '../../../lib/clock.js';
import { args, fields } from '../../../lib/dto.js';
import { startOfDay } from '../../../lib/time.js';
import { defineEnum } from '../../../lib/vocabulary.js';
import { settingsFor } from '../../platform/tenant/tenant.settings.js';
import { vacationAccount, type Vacation } from '../vacation/vacation.service.js';
import { memberOf } from '../../platform/user/user.members.js';
import { dayFacts, type DayFacts } from '../member-days/member-days.facts.js';
import { memberDays } from '../member-days/member-days.inputs.js';
import { nextDay } from '../../../lib/day.js';
import { assertPeriod } from '../../../lib/period.js';
import { lackingBreaks } from '../working-time/working-time.service.js';

export const balanceGrouping = defineEnum('BalanceGrouping', ['day', 'month']);

export const TimeBalanceArgs = args({
  tenantId: fields.id('Tenant id'),
  tenantUserId: fields.id('The member (tenantUserId)'),
  from: fields.date('The first day'),
  to: fields.date('The last day (inclusive; at most 5 years after from)'),
  groupBy: balanceGrouping.schema('One period per day (default) or per month').default('day'),
});

export interface BalanceFigures {
  expectedMinutes: number;
  workedMinutes: number;
  creditedMinutes: number;
  holidayMinutes: number;
  /** worked + credited - expected */
  balanceMinutes: number;
  vacationDays: number;
}

export interface BalancePeriod extends BalanceFigures {
  /** The first day of the period (a day, or the first day of a month inside the range). */
  start: string;
  /** Its last day. */
  end: string;
  /** The balance from `from` up to the end of this period. */
  runningBalanceMinutes: number;
}

export interface TimeBalance {
  tenantUserId: string;
  from: string;
  to: string;
  timezone: string;
  groupBy: 'day' | 'month';
  totals: BalanceFigures;
  periods: BalancePeriod[];
  /** The vacation account of the year `to` falls in: days taken, planned and left. */
  vacation: Vacation;
}

const zero = (): BalanceFigures => ({ expectedMinutes: 0, workedMinutes: 0, creditedMinutes: 0, holidayMinutes: 0, balanceMinutes: 0, vacationDays: 0 });

function add(into: BalanceFigures, day: DayFacts, worked: number): void {
  into.expectedMinutes += day.expectedMinutes;
  into.workedMinutes += worked;
  into.creditedMinutes += day.creditedMinutes;
  into.holidayMinutes += day.holidayMinutes;
  into.balanceMinutes += worked + day.creditedMinutes - day.expectedMinutes;
  into.vacationDays += day.vacationDays;
}

/**
 * Minutes worked per day of the member's zone, summed by the database over
 * the (tenantId, tenantUserId, startedAt) index: finished entries that
 * started that day, whatever their status.
 */
export async function workedByDay(
  sql: Sql,
  access: TenantAccess,
  tenantUserId: string,
  from: string,
  to: string,
  timezone: string,
): Promise<Map<string, number>> {
  const values: unknown[] = [tenantUserId, startOfDay(from, timezone), startOfDay(nextDay(to), timezone), timezone];
  const inTenant = access.sqlTenantWide('Entry', 'e', (value) => `$${values.push(value)}`);
  const rows = await sql.query<{ day: string; minutes: number }>(
    `SELECT to_char(e."startedAt" AT TIME ZONE $4, 'YYYY-MM-DD') AS day, sum(e."durationMinutes")::int AS minutes
       FROM entries e
      WHERE ${inTenant} AND e."tenantUserId" = $1 AND e."startedAt" >= $2 AND e."startedAt" < $3 AND e."endedAt" IS NOT NULL
      GROUP BY 1`,
    values,
  );
  return new Map(rows.map((row) => [row.day, Number(row.minutes)]));
}

/**
 * Time balances: what a member was expected to work, what they worked, what
 * absences credited, and the difference, per day or month. Members read
 * their own; managers and admins everyone's.
 */
export function createTimeBalanceService({ db, sql, clock }: { db: Db; sql: Sql; clock: Clock }) {
  return {
    /** A member's balance over a period (at most five years). */
    async balance(access: TenantAccess, input: z.output<typeof TimeBalanceArgs>): Promise<TimeBalance> {
      assertPeriod(input.from, input.to);
      const member = await memberOf(db, access, input.tenantUserId);
      access.assertMayChange('read', 'TimeBalance', { tenantUserId: member.id });
      const settings = await settingsFor(db, access);
      const [inputs, worked, lacking, vacation] = await Promise.all([
        memberDays(db, access, member, settings, input.from, input.to),
        workedByDay(sql, access, member.id, input.from, input.to, settings.timezone),
        lackingBreaks(sql, db, access, settings, member, input.from, input.to),
        vacationAccount(db, access, member, settings, Number(input.to.slice(0, 4)), clock.today(settings.timezone)),
      ]);
      const totals = zero();
      const periods: BalancePeriod[] = [];
      for (const day of dayFacts(input.from, input.to, inputs)) {
        const start = input.groupBy === 'day' ? day.date : day.date.slice(0, 7) === input.from.slice(0, 7) ? input.from : `${day.date.slice(0, 7)}-01`;
        let period = periods.at(-1);
        if (!period || period.start !== start) {
          period = { start, end: day.date, ...zero(), runningBalanceMinutes: totals.balanceMinutes };
          periods.push(period);
        }
        // With deductStatutoryBreaks, less what the day's breaks lack of the statutory minimum.
        const minutes = (worked.get(day.date) ?? 0) - (lacking.get(day.date) ?? 0);
        add(period, day, minutes);
        add(totals, day, minutes);
        period.end = day.date;
        period.runningBalanceMinutes = totals.balanceMinutes;
      }
      return { tenantUserId: member.id, from: input.from, to: input.to, timezone: settings.timezone, groupBy: input.groupBy, totals, periods, vacation };
    },
  };
}

export type TimeBalanceService = ReturnType<typeof createTimeBalanceService>;
