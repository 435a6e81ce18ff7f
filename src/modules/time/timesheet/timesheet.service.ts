import { z } from 'zod';
import type { TenantAccess } from '../../../auth/tenant-access.js';
import type { Db } from '../../../db/client.js';
import type { Reads } from '../../../db/replicas.js';
import { args, fields } from '../../../lib/dto.js';
import { languageField } from '../../../lib/i18n.js';
import { exportFormats } from '../../../lib/table-file.js';
import { settingsFor } from '../../platform/tenant/tenant.settings.js';
import { dayFacts } from '../member-days/member-days.facts.js';
import { memberDays } from '../member-days/member-days.inputs.js';
import { balanceOf, workedByDay } from '../member-days/member-days.worked.js';
import { memberOf } from '../../platform/user/user.members.js';
import { weekdayOf } from '../../../lib/week.js';
import { dayText } from '../../../lib/day.js';
import type { WorkingTimeRule } from '../working-time/working-time.rules.js';
import { memberWorkingDays } from '../working-time/working-time.service.js';

const month = z
  .string()
  .regex(/^\d{4}-(0[1-9]|1[0-2])$/, 'must be a month like 2027-03')
  .describe('The month, like 2027-03');
const timesheetFields = { tenantId: fields.id('Tenant id'), tenantUserId: fields.id('The member (tenantUserId)'), month };
export const TimesheetArgs = args(timesheetFields);
/** Over REST, with the file format. */
export const TimesheetParameters = z.strictObject({
  ...timesheetFields,
  format: z.enum(exportFormats).default('json').describe('json (the default), or a file to sign: csv, xlsx or pdf'),
  language: languageField('The language of the file (csv, xlsx, pdf; default en)').optional(),
});

export interface TimesheetDay {
  date: string;
  weekday: string;
  /** The first entry's start and the last one's end that day, HH:MM in the tenant's zone; null without entries. */
  start: string | null;
  end: string | null;
  /** Between start and end, the minutes not worked. */
  breakMinutes: number;
  workedMinutes: number;
  expectedMinutes: number;
  creditedMinutes: number;
  holidayMinutes: number;
  balanceMinutes: number;
  /** The approved absences of the day, by type name (a half day says which). */
  absence: string | null;
  holiday: string | null;
  /** The working-time rules the day breaks (the tenant's rule set; docs/decisions.md). */
  violations: WorkingTimeRule[];
}

export interface Timesheet {
  tenantUserId: string;
  memberName: string;
  month: string;
  timezone: string;
  days: TimesheetDay[];
  totals: { breakMinutes: number; expectedMinutes: number; workedMinutes: number; creditedMinutes: number; holidayMinutes: number; balanceMinutes: number };
}

const weekdayNames = { mon: 'Mon', tue: 'Tue', wed: 'Wed', thu: 'Thu', fri: 'Fri', sat: 'Sat', sun: 'Sun' } as const;

/** The last day of a month (`2028-02` -> `2028-02-29`). */
function lastDayOf(monthText: string): string {
  const [year, monthNumber] = monthText.split('-').map(Number) as [number, number];
  return dayText(new Date(Date.UTC(year, monthNumber, 0)));
}

/**
 * Monthly timesheets to sign: each day of a member's month with the start
 * and end of their work, breaks, worked, expected and credited time,
 * absences and holidays, and the month's balance. Members get their own;
 * managers and admins everyone's.
 */
export function createTimesheetService({ db, reads }: { db: Db; reads: Reads }) {
  return {
    /** One member's month. */
    async timesheet(access: TenantAccess, input: z.output<typeof TimesheetArgs>): Promise<Timesheet> {
      const member = await memberOf(db, access, input.tenantUserId);
      access.assertMayChange('read', 'Timesheet', { tenantUserId: member.id });
      const settings = await settingsFor(db, access);
      const from = `${input.month}-01`;
      const to = lastDayOf(input.month);
      const [inputs, law, worked] = await reads.run(access, ({ db, sql }) =>
        Promise.all([
          memberDays(db, access, member, settings, from, to),
          memberWorkingDays(sql, db, access, settings, member, from, to),
          // The balance's entries, with each day's first start and last end (its breaks).
          workedByDay(sql, access, member.id, from, to, settings.timezone),
        ]),
      );
      const broken = new Map<string, WorkingTimeRule[]>();
      for (const violation of law.violations) broken.set(violation.date, [...(broken.get(violation.date) ?? []), violation.rule]);
      // With deductStatutoryBreaks, worked time loses what the day's breaks lack of the statutory minimum.
      const lacking = new Map(settings.deductStatutoryBreaks ? law.days.map((day) => [day.date, day.lackingBreakMinutes]) : []);
      const names = new Map(inputs.absences.map((absence) => [absence.id, absence.halfDay ? `${absence.typeName} (${absence.halfDay})` : absence.typeName]));
      const totals = { breakMinutes: 0, expectedMinutes: 0, workedMinutes: 0, creditedMinutes: 0, holidayMinutes: 0, balanceMinutes: 0 };
      const days = dayFacts(from, to, inputs).map((day): TimesheetDay => {
        const entries = worked.get(day.date);
        const entryMinutes = entries?.minutes ?? 0;
        // The break column stays as taken; worked time loses what it lacks (deductStatutoryBreaks).
        const workedMinutes = entryMinutes - (lacking.get(day.date) ?? 0);
        const balanceMinutes = balanceOf(workedMinutes, day);
        const breakMinutes = entries ? Math.max(0, entries.spanMinutes - entryMinutes) : 0;
        totals.breakMinutes += breakMinutes;
        totals.expectedMinutes += day.expectedMinutes;
        totals.workedMinutes += workedMinutes;
        totals.creditedMinutes += day.creditedMinutes;
        totals.holidayMinutes += day.holidayMinutes;
        totals.balanceMinutes += balanceMinutes;
        return {
          date: day.date,
          weekday: weekdayNames[weekdayOf(day.date)],
          start: entries?.start ?? null,
          end: entries?.end ?? null,
          breakMinutes,
          workedMinutes,
          expectedMinutes: day.expectedMinutes,
          creditedMinutes: day.creditedMinutes,
          holidayMinutes: day.holidayMinutes,
          balanceMinutes,
          absence: day.absenceIds.map((id) => names.get(id)).join(', ') || null,
          holiday: day.holiday ? (day.holiday.fraction < 1 ? `${day.holiday.name} (half day)` : day.holiday.name) : null,
          violations: broken.get(day.date) ?? [],
        };
      });
      return { tenantUserId: member.id, memberName: member.name ?? member.email, month: input.month, timezone: settings.timezone, days, totals };
    },
  };
}

export type TimesheetService = ReturnType<typeof createTimesheetService>;
