import type { z } from 'zod';
import type { TenantAccess } from '../../../auth/tenant-access.js';
import type { Db, Sql, SqlClient, Tx } from '../../../db/client.js';
import type { Reads } from '../../../db/replicas.js';
import type { BesideWrites } from '../../beside-writes.js';
import { daysBetween } from '../../../lib/day.js';
import { args, fields, pagination } from '../../../lib/dto.js';
import { validationFailed } from '../../../lib/errors.js';
import { assertPeriod } from '../../../lib/period.js';
import { localDate } from '../../../lib/time.js';
import { defineEnum } from '../../../lib/vocabulary.js';
import { settingsFor, settingsOf, type TenantSettings } from '../../platform/tenant/tenant.settings.js';
import { memberOf } from '../../platform/user/user.members.js';
import { type DayAhead, dayAhead, dayRuleViolations, type MemberViolation, writtenDayViolations } from './working-time.days.js';
import { type EntryRow, entriesOf, holidayNames, toInterval } from './working-time.reads.js';
import { checkWorkingTime, type Violation, type WorkingDay, type WorkingTimeRuleSet, type WorkInterval, workingTimeRules } from './working-time.rules.js';

export const workingTimeRule = defineEnum('WorkingTimeRule', workingTimeRules, 'A rule of working-time law a day broke');

const tenantId = fields.id('Tenant id');

export const WorkingTimeArgs = args({
  tenantId,
  tenantUserId: fields.id('The member (tenantUserId)'),
  from: fields.date('The first day'),
  to: fields.date('The last day (inclusive; less than 5 years after from)'),
});

/** The team's violations span at most this many days: every member's entries of the period (and 24 weeks before it) are read. */
export const maxTeamPeriodDays = 366;

export const ListViolationsArgs = args({
  tenantId,
  from: fields.date('The first day'),
  to: fields.date(`The last day (inclusive; at most ${maxTeamPeriodDays} days after from)`),
  tenantUserId: fields.id("Only this member's violations").optional(),
  rule: workingTimeRule.schema('Only violations of this rule').optional(),
  ...pagination,
});

export interface WorkingTimeTotals {
  workedMinutes: number;
  breakMinutes: number;
  lackingBreakMinutes: number;
  violations: number;
}

export interface MemberWorkingTime {
  tenantUserId: string;
  from: string;
  to: string;
  timezone: string;
  ruleSet: WorkingTimeRuleSet;
  days: WorkingDay[];
  violations: Violation[];
  totals: WorkingTimeTotals;
}

/** A violation of one member's day, in the team's list. */
export type TeamViolation = MemberViolation;

/** A member's rows, in the order the statement gave them (by member, then start). */
function byMember(rows: readonly EntryRow[]): Map<string, { region: string | null; entries: WorkInterval[] }> {
  const members = new Map<string, { region: string | null; entries: WorkInterval[] }>();
  for (const row of rows) {
    let member = members.get(row.tenantUserId);
    if (!member) {
      member = { region: row.holidayRegion, entries: [] };
      members.set(row.tenantUserId, member);
    }
    member.entries.push(toInterval(row));
  }
  return members;
}

/** A member's working days and violations from `from` to `to` (no violations under the rule set `none`). */
export async function memberWorkingDays(
  sql: SqlClient,
  db: Db | Tx,
  access: TenantAccess,
  settings: TenantSettings,
  member: { id: string; holidayRegion?: string | null },
  from: string,
  to: string,
) {
  // One after the other: in the outbox's transaction both run on its one connection.
  const rows = await entriesOf(sql, access, settings, from, to, member.id);
  const holidays = await holidayNames(db, access, settings, from, to);
  return checkWorkingTime({
    entries: rows.map(toInterval),
    timezone: settings.timezone,
    // Without the member's region at hand, the entries' join has it (no entries: no violation to find).
    holidays: holidays(member.holidayRegion === undefined ? (rows[0]?.holidayRegion ?? null) : member.holidayRegion),
    ruleSet: settings.workingTimeRules,
    from,
    to,
  });
}

/**
 * With `settings.deductStatutoryBreaks`, the minutes each day's breaks lack of
 * the statutory minimum (§4 ArbZG, whatever the rule set), which worked time
 * loses in the balance and the timesheet; without it, none.
 */
export async function lackingBreaks(
  sql: SqlClient,
  db: Db | Tx,
  access: TenantAccess,
  settings: TenantSettings,
  member: { id: string; holidayRegion: string | null },
  from: string,
  to: string,
): Promise<Map<string, number>> {
  if (!settings.deductStatutoryBreaks) return new Map();
  const { days } = await memberWorkingDays(sql, db, access, { ...settings, workingTimeRules: 'none' }, member, from, to);
  return new Map(days.filter((day) => day.lackingBreakMinutes > 0).map((day) => [day.date, day.lackingBreakMinutes]));
}

/** The entry a write answers with, as its warnings judge it. */
export interface WrittenEntry {
  id: string;
  tenantUserId: string;
  startedAt: Date;
  endedAt: Date;
  breakMinutes: number;
}

/**
 * Working time under the law (CONTRACT.md section 11): a member's days and
 * violations (members: their own), and the team's violations (managers and
 * admins). Computed from the entries on every read, so an edit that removes
 * a violation removes it here at once.
 */
export function createWorkingTimeService({ db, sql, reads, besideWrites }: { db: Db; sql: Sql; reads: Reads; besideWrites: BesideWrites }) {
  /**
   * The day of each entry write under way, read beside its transaction for the warnings of its answer: by request
   * (the caller's access, one per request and tenant), then member and day. A read that failed is undefined: the
   * warnings then read the day after the commit, as without it.
   */
  const daysAhead = new WeakMap<TenantAccess, Map<string, Promise<DayAhead | undefined>>>();
  besideWrites.onEntryWrite(({ access, tenantUserId, startedAt, endedAt }) => {
    // A timer warns of nothing while it runs; under the rule set `none` nothing is judged.
    if (endedAt === null) return;
    const settings = settingsOf(access.tenant);
    if (settings.workingTimeRules === 'none') return;
    const day = localDate(startedAt, settings.timezone);
    const read = dayAhead(sql, access, settings, tenantUserId, day).catch(() => undefined);
    let byDay = daysAhead.get(access);
    if (!byDay) {
      byDay = new Map();
      daysAhead.set(access, byDay);
    }
    byDay.set(`${tenantUserId} ${day}`, read);
  });

  return {
    /** A member's working days and violations over a period (less than five years). */
    async member(access: TenantAccess, input: z.output<typeof WorkingTimeArgs>): Promise<MemberWorkingTime> {
      assertPeriod(input.from, input.to);
      const member = await memberOf(db, access, input.tenantUserId);
      access.assertMayChange('read', 'WorkingTime', { tenantUserId: member.id });
      const settings = await settingsFor(db, access);
      const result = await reads.run(access, (replica) => memberWorkingDays(replica.sql, replica.db, access, settings, member, input.from, input.to));
      const totals: WorkingTimeTotals = { workedMinutes: 0, breakMinutes: 0, lackingBreakMinutes: 0, violations: result.violations.length };
      for (const day of result.days) {
        totals.workedMinutes += day.workedMinutes;
        totals.breakMinutes += day.breakMinutes;
        totals.lackingBreakMinutes += day.lackingBreakMinutes;
      }
      return { tenantUserId: member.id, from: input.from, to: input.to, timezone: settings.timezone, ruleSet: settings.workingTimeRules, ...result, totals };
    },

    /** The team's violations over a period (at most a year), by day, member and rule; filtered and paged. */
    async violations(access: TenantAccess, input: z.output<typeof ListViolationsArgs>): Promise<TeamViolation[]> {
      assertPeriod(input.from, input.to);
      if (daysBetween(input.from, input.to) > maxTeamPeriodDays) {
        throw validationFailed([{ path: 'to', message: `must be at most ${maxTeamPeriodDays} days after from` }]);
      }
      if (input.tenantUserId !== undefined) await memberOf(db, access, input.tenantUserId);
      const settings = await settingsFor(db, access);
      if (settings.workingTimeRules === 'none') return [];
      const [rows, holidays] = await reads.run(access, (replica) =>
        Promise.all([
          entriesOf(replica.sql, access, settings, input.from, input.to, input.tenantUserId),
          holidayNames(replica.db, access, settings, input.from, input.to),
        ]),
      );
      const found: TeamViolation[] = [];
      for (const [tenantUserId, member] of byMember(rows)) {
        const { violations } = checkWorkingTime({
          entries: member.entries,
          timezone: settings.timezone,
          holidays: holidays(member.region),
          ruleSet: settings.workingTimeRules,
          from: input.from,
          to: input.to,
        });
        for (const violation of violations) if (input.rule === undefined || violation.rule === input.rule) found.push({ ...violation, tenantUserId });
      }
      const order = new Map(workingTimeRules.map((rule, index) => [rule, index]));
      found.sort(
        (a, b) => b.date.localeCompare(a.date) || a.tenantUserId.localeCompare(b.tenantUserId) || (order.get(a.rule) as number) - (order.get(b.rule) as number),
      );
      return found.slice(input.offset, input.offset + input.limit);
    },

    /**
     * What the answer of an entry write warns of: the day rules' violations of
     * the working day the entry starts on (in the tenant's zone) with the
     * written entry, from the day read beside a new entry's write, else from
     * one statement after the commit (edits, stops). None under the rule set `none`.
     */
    async warnings(access: TenantAccess, written: WrittenEntry): Promise<Violation[]> {
      // The settings the tenant guard read for this request: no second read of the tenant on the write path.
      const settings = settingsOf(access.tenant);
      const day = localDate(written.startedAt, settings.timezone);
      // The day read beside the write's transaction, if the write announced it (a new entry); taken once.
      const key = `${written.tenantUserId} ${day}`;
      const ahead = daysAhead.get(access)?.get(key);
      daysAhead.get(access)?.delete(key);
      const read = await ahead;
      if (read) return writtenDayViolations(read, settings, written, day);
      return (await dayRuleViolations(sql, db, access, settings, written.tenantUserId, day)).map(({ tenantUserId: _member, ...violation }) => violation);
    },
  };
}

export type WorkingTimeService = ReturnType<typeof createWorkingTimeService>;
