import type { z } from 'zod';
import type { TenantAccess } from '../../../auth/tenant-access.js';
import type { Db, SqlClient, Tx } from '../../../db/client.js';
import { addDays, daysBetween } from '../../../lib/day.js';
import { args, fields, pagination } from '../../../lib/dto.js';
import { validationFailed } from '../../../lib/errors.js';
import { assertPeriod } from '../../../lib/period.js';
import { localDate, startOfDay } from '../../../lib/time.js';
import { defineEnum } from '../../../lib/vocabulary.js';
import { settingsFor, settingsOf, type TenantSettings } from '../../platform/tenant/tenant.settings.js';
import { memberOf } from '../../platform/user/user.members.js';
import { publicHolidays } from '../../../lib/holiday-regions.js';
import { holidaysByRegion } from '../holiday/holiday.service.js';
import {
  averageAllowanceMinutes,
  averageWindowDays,
  checkWorkingTime,
  contextFrom,
  dayContextFrom,
  type Violation,
  type WorkingDay,
  type WorkingTimeRuleSet,
  type WorkInterval,
  workingTimeRules,
} from './working-time.rules.js';

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

export interface TeamViolation extends Violation {
  tenantUserId: string;
}

interface EntryRow extends Record<string, unknown> {
  tenantUserId: string;
  holidayRegion: string | null;
  startedAt: Date;
  endedAt: Date;
  breakMinutes: number;
}

/**
 * Finished entries the rules judge `from` to `to` by, in one statement:
 * from 24 weeks before `from` (the averages) to the day after `to` (a night
 * shift that runs on), of one member on the (tenantId, tenantUserId,
 * startedAt) index or of the team on the (tenantId, startedAt) one, with the
 * member's holiday region.
 */
async function entriesOf(
  sql: SqlClient,
  access: TenantAccess,
  settings: TenantSettings,
  from: string,
  to: string,
  tenantUserId?: string,
  context: 'averages' | 'day' = 'averages',
): Promise<EntryRow[]> {
  const first = context === 'averages' ? contextFrom(from) : dayContextFrom(from);
  const values: unknown[] = [startOfDay(first, settings.timezone), startOfDay(addDays(to, 2), settings.timezone)];
  const bind = (value: unknown) => `$${values.push(value)}`;
  const inTenant = access.sqlTenantWide('Entry', 'e', bind);
  const ofMember = tenantUserId === undefined ? '' : `AND e."tenantUserId" = ${bind(tenantUserId)}`;
  return sql.query<EntryRow>(
    `SELECT e."tenantUserId", u."holidayRegion", e."startedAt", e."endedAt", e."breakMinutes"
       FROM entries e JOIN tenant_users u ON u.id = e."tenantUserId"
      WHERE ${inTenant} ${ofMember} AND e."startedAt" >= $1 AND e."startedAt" < $2 AND e."endedAt" IS NOT NULL
      ORDER BY e."tenantUserId", e."startedAt"`,
    values,
  );
}

/**
 * Whole public holidays by date, per region: the tenant's own holidays (read
 * once) take the place of a region's on the same day; half days are no
 * statutory holidays (docs/decisions.md).
 */
async function holidayNames(db: Db | Tx, access: TenantAccess, settings: TenantSettings, from: string, to: string) {
  const inEffect = await holidaysByRegion(db, access, from, to);
  const byRegion = new Map<string | null, Map<string, string>>();
  return (region: string | null): Map<string, string> => {
    const effective = region ?? settings.holidayRegion;
    let names = byRegion.get(effective);
    if (!names) {
      names = new Map();
      for (const [date, holiday] of inEffect(effective)) if (holiday.fraction >= 1) names.set(date, holiday.name);
      byRegion.set(effective, names);
    }
    return names;
  };
}

const toInterval = (row: EntryRow): WorkInterval => ({ startedAt: row.startedAt, endedAt: row.endedAt, breakMinutes: Number(row.breakMinutes) });

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

/**
 * The minutes a member recorded (finished entries, overlaps and breaks not taken off) in the averaging windows of
 * the days `from` to `to`: an aggregate on the (tenantId, tenantUserId, startedAt) index, no rows. The net time of
 * any one window is at most this.
 */
async function recordedMinutes(
  sql: SqlClient,
  access: TenantAccess,
  settings: TenantSettings & { workingTimeRules: 'de' | 'eu' },
  tenantUserId: string,
  from: string,
  to: string,
): Promise<number> {
  const values: unknown[] = [
    startOfDay(addDays(from, 1 - averageWindowDays[settings.workingTimeRules]), settings.timezone),
    startOfDay(addDays(to, 2), settings.timezone),
  ];
  const bind = (value: unknown) => `$${values.push(value)}`;
  const [row] = await sql.query<{ minutes: number | string | null }>(
    `SELECT sum(extract(epoch FROM e."endedAt" - e."startedAt")) / 60 AS minutes FROM entries e
      WHERE ${access.sqlTenantWide('Entry', 'e', bind)} AND e."tenantUserId" = ${bind(tenantUserId)}
        AND e."startedAt" >= $1 AND e."startedAt" < $2 AND e."endedAt" IS NOT NULL`,
    values,
  );
  return Number(row?.minutes ?? 0);
}

/** Days at most this far apart are judged from one read of their member's entries (the reaction's batches). */
const batchSpanDays = 31;

/**
 * The violations of members' working days (none under the rule set `none`): what the outbox reaction announces
 * for a batch of entry writes. One read of the holidays, and one of a member's entries per run of days less than
 * a month apart (a batch mostly holds a member's writes of a few days), not one of each per day.
 */
export async function violationsOnDays(
  sql: SqlClient,
  db: Db | Tx,
  access: TenantAccess,
  settings: TenantSettings,
  daysByMember: ReadonlyMap<string, ReadonlySet<string>>,
): Promise<TeamViolation[]> {
  const ruleSet = settings.workingTimeRules;
  if (ruleSet === 'none' || daysByMember.size === 0) return [];
  const checked = { ...settings, workingTimeRules: ruleSet };
  const all = [...daysByMember.values()].flatMap((days) => [...days]).sort();
  const holidays = await holidayNames(db, access, settings, all[0] as string, all.at(-1) as string);
  const found: TeamViolation[] = [];
  for (const [tenantUserId, days] of daysByMember) {
    const sorted = [...days].sort();
    let start = 0;
    while (start < sorted.length) {
      let end = start;
      while (end + 1 < sorted.length && daysBetween(sorted[start] as string, sorted[end + 1] as string) <= batchSpanDays) end += 1;
      const [from, to] = [sorted[start] as string, sorted[end] as string];
      // One after the other: in the outbox's transaction every statement runs on its one connection.
      const averagesAtStake = (await recordedMinutes(sql, access, checked, tenantUserId, from, to)) > averageAllowanceMinutes[ruleSet];
      const rows = await entriesOf(sql, access, settings, from, to, tenantUserId, averagesAtStake ? 'averages' : 'day');
      const { violations } = checkWorkingTime({
        entries: rows.map(toInterval),
        timezone: settings.timezone,
        holidays: holidays(rows[0]?.holidayRegion ?? null),
        ruleSet: settings.workingTimeRules,
        from,
        to,
        dayRulesOnly: !averagesAtStake,
      });
      for (const violation of violations) if (days.has(violation.date)) found.push({ ...violation, tenantUserId });
      start = end + 1;
    }
  }
  return found;
}

interface DayEntryRow extends EntryRow {
  ownHolidayName: string | null;
  ownHolidayFraction: number | null;
}

/**
 * The day rules' violations of one member's working day `day`, in one statement: the entries of the day and the
 * two before it, with the member's holiday region and the tenant's own holiday of the day. What an entry write
 * warns of; the averages (§3's 24 weeks, the directive's 17) would read half a year of entries on every write,
 * so the event and the reads give them (docs/decisions.md, "Working-time rules").
 */
async function dayRuleViolations(sql: SqlClient, access: TenantAccess, settings: TenantSettings, tenantUserId: string, day: string): Promise<Violation[]> {
  if (settings.workingTimeRules === 'none') return [];
  const values: unknown[] = [startOfDay(dayContextFrom(day), settings.timezone), startOfDay(addDays(day, 2), settings.timezone), day];
  const bind = (value: unknown) => `$${values.push(value)}`;
  const rows = await sql.query<DayEntryRow>(
    `SELECT e."startedAt", e."endedAt", e."breakMinutes", u."holidayRegion", h.name AS "ownHolidayName", h.fraction AS "ownHolidayFraction"
       FROM entries e JOIN tenant_users u ON u.id = e."tenantUserId"
       LEFT JOIN holidays h ON ${access.sqlTenantWide('Holiday', 'h', bind)} AND h.date = $3::date
      WHERE ${access.sqlTenantWide('Entry', 'e', bind)} AND e."tenantUserId" = ${bind(tenantUserId)}
        AND e."startedAt" >= $1 AND e."startedAt" < $2 AND e."endedAt" IS NOT NULL
      ORDER BY e."startedAt"`,
    values,
  );
  const first = rows[0];
  if (!first) return [];
  // As holidaysByRegion: the tenant's own holiday takes the place of the region's; a half day is no statutory holiday.
  const holidays = new Map<string, string>();
  if (first.ownHolidayName !== null) {
    if (Number(first.ownHolidayFraction) >= 1) holidays.set(day, first.ownHolidayName);
  } else {
    const region = first.holidayRegion ?? settings.holidayRegion;
    if (region) for (const holiday of publicHolidays(region, day, day)) holidays.set(holiday.date, holiday.name);
  }
  return checkWorkingTime({
    entries: rows.map(toInterval),
    timezone: settings.timezone,
    holidays,
    ruleSet: settings.workingTimeRules,
    from: day,
    to: day,
    dayRulesOnly: true,
  }).violations;
}

/**
 * Working time under the law (CONTRACT.md section 11): a member's days and
 * violations (members: their own), and the team's violations (managers and
 * admins). Computed from the entries on every read, so an edit that removes
 * a violation removes it here at once.
 */
export function createWorkingTimeService({ db, sql }: { db: Db; sql: SqlClient }) {
  return {
    /** A member's working days and violations over a period (less than five years). */
    async member(access: TenantAccess, input: z.output<typeof WorkingTimeArgs>): Promise<MemberWorkingTime> {
      assertPeriod(input.from, input.to);
      const member = await memberOf(db, access, input.tenantUserId);
      access.assertMayChange('read', 'WorkingTime', { tenantUserId: member.id });
      const settings = await settingsFor(db, access);
      const result = await memberWorkingDays(sql, db, access, settings, member, input.from, input.to);
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
      const [rows, holidays] = await Promise.all([
        entriesOf(sql, access, settings, input.from, input.to, input.tenantUserId),
        holidayNames(db, access, settings, input.from, input.to),
      ]);
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
     * the working day the entry starts on (in the tenant's zone), after the
     * write, in one statement. None under the rule set `none`.
     */
    async warnings(access: TenantAccess, tenantUserId: string, startedAt: Date): Promise<Violation[]> {
      // The settings the tenant guard read for this request: no second read of the tenant on the write path.
      const settings = settingsOf(access.tenant);
      return dayRuleViolations(sql, access, settings, tenantUserId, localDate(startedAt, settings.timezone));
    },
  };
}

export type WorkingTimeService = ReturnType<typeof createWorkingTimeService>;
