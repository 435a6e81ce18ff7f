/**
 * Working time on the write path: what an entry write warns of, and what the outbox reaction announces for a
 * batch of writes. Both judge a member's written days from one statement per run of days (the entries of the
 * days and the two before them, the member's holiday region, the tenant's own holidays of the days), so the check
 * costs a write about an index read. The averages (§3's 24 weeks, the directive's 17) would read half a year of
 * entries: the warnings leave them to the event and the reads, and the reaction reads those weeks only when the
 * time recorded in them (summed by the same statement) exceeds what the law allows in one window.
 * docs/decisions.md, "Working-time rules".
 */
import type { TenantAccess } from '../../../auth/tenant-access.js';
import type { Db, Sql, SqlClient, Tx } from '../../../db/client.js';
import { addDays, daysBetween } from '../../../lib/day.js';
import { publicHolidays } from '../../../lib/holiday-regions.js';
import { startOfDay } from '../../../lib/time.js';
import type { TenantSettings } from '../../platform/tenant/tenant.settings.js';
import { type EntryRow, entriesOf, holidayNames, toInterval } from './working-time.reads.js';
import { averageAllowanceMinutes, averageWindowDays, checkWorkingTime, dayContextFrom, type Violation } from './working-time.rules.js';

/** A violation of one member's day. */
export interface MemberViolation extends Violation {
  tenantUserId: string;
}

interface DayContextRow extends EntryRow {
  /** The tenant's own holidays of the days judged. */
  ownHolidays: { date: string; name: string; fraction: number }[] | null;
  /** The minutes recorded in the averaging windows of the days judged (overlaps and breaks not taken off); null unless asked. */
  windowMinutes: number | string | null;
}

/**
 * A member's entries from two days before `from` to the day after `to` (a night shift that runs on), with their
 * holiday region, the tenant's own holidays from `from` to `to`, and, given `windowDays`, the minutes recorded in
 * the windows of that many days ending on `from` to `to`: one statement on the (tenantId, tenantUserId, startedAt)
 * index, the sum an aggregate of the same index (no rows).
 */
async function dayContext(
  sql: SqlClient,
  access: TenantAccess,
  settings: TenantSettings,
  tenantUserId: string,
  from: string,
  to: string,
  windowDays: number | null,
): Promise<DayContextRow[]> {
  const values: unknown[] = [startOfDay(dayContextFrom(from), settings.timezone), startOfDay(addDays(to, 2), settings.timezone), from, to, tenantUserId];
  const bind = (value: unknown) => `$${values.push(value)}`;
  const recorded =
    windowDays === null
      ? 'NULL'
      : `(SELECT sum(extract(epoch FROM w."endedAt" - w."startedAt")) / 60 FROM entries w
          WHERE ${access.sqlTenantWide('Entry', 'w', bind)} AND w."tenantUserId" = $5
            AND w."startedAt" >= ${bind(startOfDay(addDays(from, 1 - windowDays), settings.timezone))} AND w."startedAt" < $2 AND w."endedAt" IS NOT NULL)`;
  return sql.query<DayContextRow>(
    `SELECT e."tenantUserId", e."startedAt", e."endedAt", e."breakMinutes", u."holidayRegion",
            (SELECT json_agg(json_build_object('date', to_char(h.date, 'YYYY-MM-DD'), 'name', h.name, 'fraction', h.fraction))
               FROM holidays h WHERE ${access.sqlTenantWide('Holiday', 'h', bind)} AND h.date BETWEEN $3::date AND $4::date) AS "ownHolidays",
            ${recorded} AS "windowMinutes"
       FROM entries e JOIN tenant_users u ON u.id = e."tenantUserId"
      WHERE ${access.sqlTenantWide('Entry', 'e', bind)} AND e."tenantUserId" = $5
        AND e."startedAt" >= $1 AND e."startedAt" < $2 AND e."endedAt" IS NOT NULL
      ORDER BY e."startedAt"`,
    values,
  );
}

/** Whole public holidays by date, as holidaysByRegion has them: the tenant's own take the region's place; a half day is none. */
function holidaysOf(first: Pick<DayContextRow, 'holidayRegion' | 'ownHolidays'>, settings: TenantSettings, from: string, to: string): Map<string, string> {
  const names = new Map<string, string>();
  const region = first.holidayRegion ?? settings.holidayRegion;
  if (region) for (const holiday of publicHolidays(region, from, to)) names.set(holiday.date, holiday.name);
  for (const own of first.ownHolidays ?? []) {
    if (Number(own.fraction) >= 1) names.set(own.date, own.name);
    else names.delete(own.date);
  }
  return names;
}

/** Days at most this far apart are judged from one statement (a batch mostly holds a member's writes of a few days). */
const runSpanDays = 31;

/** A member's days, sorted, in runs of days less than `runSpanDays` apart: [first, last] of each. */
function runsOf(days: ReadonlySet<string>): [string, string][] {
  const sorted = [...days].sort();
  const runs: [string, string][] = [];
  for (const day of sorted) {
    const last = runs.at(-1);
    if (last && daysBetween(last[0], day) <= runSpanDays) last[1] = day;
    else runs.push([day, day]);
  }
  return runs;
}

/**
 * The violations of members' written days: the day rules alone (`averages: false`, the warnings), or every rule
 * (the reaction's events). None under the rule set `none`.
 */
async function judgeDays(
  sql: SqlClient,
  db: Db | Tx,
  access: TenantAccess,
  settings: TenantSettings,
  daysByMember: ReadonlyMap<string, ReadonlySet<string>>,
  averages: boolean,
): Promise<MemberViolation[]> {
  const ruleSet = settings.workingTimeRules;
  if (ruleSet === 'none') return [];
  const written = [...daysByMember.values()].flatMap((each) => [...each]).sort();
  let tenantHolidays: Promise<(region: string | null) => Map<string, string>> | undefined;
  const found: MemberViolation[] = [];
  for (const [tenantUserId, days] of daysByMember) {
    for (const [from, to] of runsOf(days)) {
      // One after the other: in the outbox's transaction every statement runs on its one connection.
      const rows = await dayContext(sql, access, settings, tenantUserId, from, to, averages ? averageWindowDays[ruleSet] : null);
      const first = rows[0];
      if (!first) continue;
      const atStake = averages && Number(first.windowMinutes ?? 0) > averageAllowanceMinutes[ruleSet];
      let judged: { entries: EntryRow[]; holidays: Map<string, string> } = { entries: rows, holidays: holidaysOf(first, settings, from, to) };
      if (atStake) {
        // The weeks before are read only now: the time recorded in them could break an average.
        tenantHolidays ??= holidayNames(db, access, settings, written[0] as string, written.at(-1) as string);
        const names = await tenantHolidays;
        const entries = await entriesOf(sql, access, settings, from, to, tenantUserId, 'averages');
        judged = { entries, holidays: names(first.holidayRegion) };
      }
      const { violations } = checkWorkingTime({
        entries: judged.entries.map(toInterval),
        timezone: settings.timezone,
        holidays: judged.holidays,
        ruleSet,
        from,
        to,
        dayRulesOnly: !atStake,
      });
      for (const violation of violations) if (days.has(violation.date)) found.push({ ...violation, tenantUserId });
    }
  }
  return found;
}

/** What an entry write warns of: the day rules' violations of its member's day, in one statement. */
export function dayRuleViolations(sql: SqlClient, db: Db | Tx, access: TenantAccess, settings: TenantSettings, tenantUserId: string, day: string) {
  return judgeDays(sql, db, access, settings, new Map([[tenantUserId, new Set([day])]]), false);
}

/**
 * What the outbox reaction announces for a batch of entry writes: every rule's violations of the written days, the
 * averages read from the weeks before only where the time recorded in them could break one.
 */
export function violationsOnDays(
  sql: SqlClient,
  db: Db | Tx,
  access: TenantAccess,
  settings: TenantSettings,
  daysByMember: ReadonlyMap<string, ReadonlySet<string>>,
): Promise<MemberViolation[]> {
  return judgeDays(sql, db, access, settings, daysByMember, true);
}

/** A member's day as an entry write's warnings judge it, read beside the write: everything but the written entry. */
export interface DayAhead {
  holidayRegion: string | null;
  ownHolidays: DayContextRow['ownHolidays'];
  /** The member's finished entries from two days before the day to the day after it, committed when it was read. */
  entries: { id: string; startedAt: string; endedAt: string; breakMinutes: number }[];
}

/**
 * The member's day for the warnings of an entry write, read beside its transaction (src/modules/beside-writes.ts):
 * what `dayContext` reads, from the member's row, so that a day without other entries still has the member's
 * holiday region; one statement on the same indexes. Undefined for a member not in the tenant (the write fails).
 */
export async function dayAhead(sql: Sql, access: TenantAccess, settings: TenantSettings, tenantUserId: string, day: string): Promise<DayAhead | undefined> {
  const values: unknown[] = [startOfDay(dayContextFrom(day), settings.timezone), startOfDay(addDays(day, 2), settings.timezone), day, tenantUserId];
  const bind = (value: unknown) => `$${values.push(value)}`;
  // A named statement: parsed and planned once per connection (its text is the same for every tenant), on every
  // entry write of a tenant with rules.
  const [row] = await sql.queryPrepared<DayAhead & Record<string, unknown>>(
    'working-time-day-ahead',
    `SELECT u."holidayRegion",
            (SELECT json_agg(json_build_object('date', to_char(h.date, 'YYYY-MM-DD'), 'name', h.name, 'fraction', h.fraction))
               FROM holidays h WHERE ${access.sqlTenantWide('Holiday', 'h', bind)} AND h.date = $3::date) AS "ownHolidays",
            coalesce((SELECT json_agg(json_build_object('id', e.id, 'startedAt', e."startedAt", 'endedAt', e."endedAt", 'breakMinutes', e."breakMinutes"))
               FROM entries e
              WHERE ${access.sqlTenantWide('Entry', 'e', bind)} AND e."tenantUserId" = $4
                AND e."startedAt" >= $1 AND e."startedAt" < $2 AND e."endedAt" IS NOT NULL), '[]') AS entries
       FROM tenant_users u WHERE ${access.sqlTenantWide('TenantUser', 'u', bind)} AND u.id = $4`,
    values,
  );
  return row;
}

/** What an entry write warns of, from its day read beside it: the day rules on the other entries and the written one. */
export function writtenDayViolations(
  ahead: DayAhead,
  settings: TenantSettings,
  written: { id: string; startedAt: Date; endedAt: Date; breakMinutes: number },
  day: string,
): Violation[] {
  const ruleSet = settings.workingTimeRules;
  if (ruleSet === 'none') return [];
  // A read that ran after the commit has the written entry already: it counts once, as written.
  const entries = ahead.entries
    .filter((entry) => entry.id !== written.id)
    .map((entry) => ({ startedAt: new Date(entry.startedAt), endedAt: new Date(entry.endedAt), breakMinutes: Number(entry.breakMinutes) }));
  entries.push({ startedAt: written.startedAt, endedAt: written.endedAt, breakMinutes: written.breakMinutes });
  entries.sort((a, b) => a.startedAt.getTime() - b.startedAt.getTime());
  const { violations } = checkWorkingTime({
    entries,
    timezone: settings.timezone,
    holidays: holidaysOf(ahead, settings, day, day),
    ruleSet,
    from: day,
    to: day,
    dayRulesOnly: true,
  });
  return violations.filter((violation) => violation.date === day);
}
