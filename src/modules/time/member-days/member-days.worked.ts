/**
 * What a member worked, per day, and the one balance of working time. The
 * balance and the timesheet both read `workedByDay` and both compute
 * `balanceOf`, so a day's worked minutes and its balance are the same on
 * either (issue 38: the query and the formula were written twice).
 */
import type { TenantAccess } from '../../../auth/tenant-access.js';
import type { Sql } from '../../../db/client.js';
import { nextDay } from '../../../lib/day.js';
import { startOfDay } from '../../../lib/time.js';
import type { DayFacts } from './member-days.facts.js';

export interface WorkedDay {
  /** The minutes of the day's entries. */
  minutes: number;
  /** The first entry's start and the last one's end that day, HH:MM in the zone. */
  start: string;
  end: string;
  /** From the first start to the last end: what of it was not worked is the day's breaks. */
  spanMinutes: number;
}

/**
 * Minutes worked per day of `timezone` from `from` to `to` (calendar days),
 * summed by the database over the (tenantId, tenantUserId, startedAt) index:
 * finished entries that started that day, whatever their status. Days
 * without such an entry are not in the map.
 */
export async function workedByDay(
  sql: Sql,
  access: TenantAccess,
  tenantUserId: string,
  from: string,
  to: string,
  timezone: string,
): Promise<Map<string, WorkedDay>> {
  const values: unknown[] = [tenantUserId, startOfDay(from, timezone), startOfDay(nextDay(to), timezone), timezone];
  const inTenant = access.sqlTenantWide('Entry', 'e', (value) => `$${values.push(value)}`);
  const rows = await sql.query<{ day: string; start: string; end: string; span: number; minutes: number }>(
    `SELECT to_char(e."startedAt" AT TIME ZONE $4, 'YYYY-MM-DD') AS day,
            to_char(min(e."startedAt") AT TIME ZONE $4, 'HH24:MI') AS start,
            to_char(max(e."endedAt") AT TIME ZONE $4, 'HH24:MI') AS end,
            (extract(epoch FROM max(e."endedAt") - min(e."startedAt")) / 60)::int AS span,
            sum(e."durationMinutes")::int AS minutes
       FROM entries e
      WHERE ${inTenant} AND e."tenantUserId" = $1 AND e."startedAt" >= $2 AND e."startedAt" < $3 AND e."endedAt" IS NOT NULL
      GROUP BY 1`,
    values,
  );
  return new Map(rows.map((row) => [row.day, { minutes: Number(row.minutes), start: row.start, end: row.end, spanMinutes: Number(row.span) }]));
}

/** The balance of working time, of a day or of any sum of days: worked + credited − expected. */
export function balanceOf(workedMinutes: number, day: Pick<DayFacts, 'creditedMinutes' | 'expectedMinutes'>): number {
  return workedMinutes + day.creditedMinutes - day.expectedMinutes;
}
