import type { z } from 'zod';
import type { TenantAccess } from '../../../auth/tenant-access.js';
import type { Db } from '../../../db/client.js';
import type { Reads } from '../../../db/replicas.js';
import type { Clock } from '../../../lib/clock.js';
import { args, fields } from '../../../lib/dto.js';
import { defineEnum } from '../../../lib/vocabulary.js';
import { settingsFor } from '../../platform/tenant/tenant.settings.js';
import { vacationAccount, type Vacation } from '../vacation/vacation.service.js';
import { memberOf } from '../../platform/user/user.members.js';
import { dayFacts, type DayFacts } from '../member-days/member-days.facts.js';
import { memberDays } from '../member-days/member-days.inputs.js';
import { balanceOf, workedByDay } from '../member-days/member-days.worked.js';
import { assertPeriod } from '../../../lib/period.js';
import { correctionsIn, recordCorrection, type CorrectTimeBalanceArgs, type TimeBalanceCorrectionView } from './time-balance.corrections.js';
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
  /** Corrections of the account that count on its days (overtime paid out or forfeited: negative). */
  correctionMinutes: number;
  /** worked + credited - expected + corrections */
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
  /** The corrections from `from` to `to`, oldest first: the audit trail. */
  corrections: TimeBalanceCorrectionView[];
  /** The tenant's `balanceCapMinutes` (null: none). */
  balanceCapMinutes: number | null;
  /** Whether the balance of the period is above the cap. */
  overCap: boolean;
}

const zero = (): BalanceFigures => ({
  expectedMinutes: 0,
  workedMinutes: 0,
  creditedMinutes: 0,
  holidayMinutes: 0,
  correctionMinutes: 0,
  balanceMinutes: 0,
  vacationDays: 0,
});

/** The cap flag of a balance: above the tenant's cap, if it has one. */
const capOf = (balanceCapMinutes: number | null, balanceMinutes: number) => ({
  balanceCapMinutes,
  overCap: balanceCapMinutes !== null && balanceMinutes > balanceCapMinutes,
});

/** A correction on the balance: apart from the day's worked, credited and expected minutes, which it does not change. */
function addCorrection(into: BalanceFigures, minutes: number): void {
  into.correctionMinutes += minutes;
  into.balanceMinutes += minutes;
}

function add(into: BalanceFigures, day: DayFacts, worked: number): void {
  into.expectedMinutes += day.expectedMinutes;
  into.workedMinutes += worked;
  into.creditedMinutes += day.creditedMinutes;
  into.holidayMinutes += day.holidayMinutes;
  into.balanceMinutes += balanceOf(worked, day);
  into.vacationDays += day.vacationDays;
}

/**
 * Time balances: what a member was expected to work, what they worked, what
 * absences credited, and the difference, per day or month. Members read
 * their own; managers and admins everyone's.
 */
export function createTimeBalanceService({ db, reads, clock }: { db: Db; reads: Reads; clock: Clock }) {
  return {
    /** A member's balance over a period (at most five years). */
    async balance(access: TenantAccess, input: z.output<typeof TimeBalanceArgs>): Promise<TimeBalance> {
      assertPeriod(input.from, input.to);
      const member = await memberOf(db, access, input.tenantUserId);
      access.assertMayChange('read', 'TimeBalance', { tenantUserId: member.id });
      const settings = await settingsFor(db, access);
      const [inputs, worked, lacking, vacation, corrections] = await reads.run(access, ({ db, sql }) =>
        Promise.all([
          memberDays(db, access, member, settings, input.from, input.to),
          workedByDay(sql, access, member.id, input.from, input.to, settings.timezone),
          lackingBreaks(sql, db, access, settings, member, input.from, input.to),
          vacationAccount(db, access, member, settings, Number(input.to.slice(0, 4)), clock.today(settings.timezone)),
          correctionsIn(db, access, member.id, input.from, input.to),
        ]),
      );
      const correctedByDay = new Map<string, number>();
      for (const correction of corrections) correctedByDay.set(correction.date, (correctedByDay.get(correction.date) ?? 0) + correction.minutes);
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
        const minutes = (worked.get(day.date)?.minutes ?? 0) - (lacking.get(day.date) ?? 0);
        add(period, day, minutes);
        add(totals, day, minutes);
        const corrected = correctedByDay.get(day.date) ?? 0;
        addCorrection(period, corrected);
        addCorrection(totals, corrected);
        period.end = day.date;
        period.runningBalanceMinutes = totals.balanceMinutes;
      }
      return {
        tenantUserId: member.id,
        from: input.from,
        to: input.to,
        timezone: settings.timezone,
        groupBy: input.groupBy,
        totals,
        periods,
        vacation,
        corrections,
        ...capOf(settings.balanceCapMinutes, totals.balanceMinutes),
      };
    },

    /** Corrects a member's balance with a reason (admins): overtime paid out or forfeited; records `time_balance.corrected`. */
    async correct(access: TenantAccess, { tenantUserId, input }: z.output<typeof CorrectTimeBalanceArgs>): Promise<TimeBalanceCorrectionView> {
      access.assert('update', 'TimeBalance');
      return db.$transaction(async (tx) => {
        const member = await memberOf(tx, access, tenantUserId);
        const date = input.date ?? clock.today((await settingsFor(tx, access)).timezone);
        return recordCorrection(tx, access, member.id, { minutes: input.minutes, reason: input.reason, date });
      });
    },
  };
}

export type TimeBalanceService = ReturnType<typeof createTimeBalanceService>;
