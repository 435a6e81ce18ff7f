/**
 * The statements behind reports. A summary reads one of three sources:
 * - `entries`, every entry of the period, grouped as asked (any time zone, any
 *   dimension, any filter);
 * - `dayTotals`, the table entry_day_totals, which the database keeps exact in
 *   the transaction of every entry write (its migration says how): one row per
 *   tenant-local day, project, billable flag and status. A year of a tenant
 *   with a million entries is some 60,000 rows there (tally seed's data).
 *   It serves the reports that need nothing finer: in the tenant's own time
 *   zone, not by member, task or tag, and for callers who read every entry;
 * - `weekTotals`, for those of them that need nothing finer than a week (not
 *   by day or month): the whole weeks of the period from entry_week_totals
 *   (the same sums by the tenant's week, kept the same way: some 15,000 rows
 *   for that year) and the days before the first and after the last whole
 *   week from entry_day_totals;
 * - `memberWeekTotals` and `tagWeekTotals`, for those by member or by tag
 *   that need nothing else but a week, a billable flag or a status: the whole
 *   weeks of the period from entry_dimension_week_totals (the same sums by
 *   week and member, and by week and tag: an entry with two tags is in two
 *   tag rows, as the report by tag counts it), kept the same way, and the
 *   days before the first and after the last whole week from
 *   entry_dimension_day_totals (the same sums by local day);
 * - `memberDayTotals` and `tagDayTotals`, the same by day or month, or over a
 *   period without a whole week: entry_dimension_day_totals alone.
 * `summarySourceOf` says which serves a summary; whatever the totals do not
 * hold (another time zone, a project, client, task, tag or invoiced filter,
 * member and tag together, a caller who reads only some entries) is read from
 * the entries.
 */
import type { TenantAccess } from '../../../auth/tenant-access.js';
import { Parameters } from '../../../db/parameters.js';
import type { TenantSettings } from '../../platform/tenant/tenant.settings.js';
import { wholeWeeksBetween } from './report.periods.js';
import type { ReportDimension, ReportFilter } from './report.contract.js';

/** The report's period in SQL terms: local dates, the instants they begin and end at, and the time zone. */
export interface ReportRange {
  from: string;
  to: string;
  timezone: string;
  fromInstant: Date;
  toInstant: Date;
  settings: TenantSettings;
}

/** Where a summary's numbers come from, aliased `e`. */
export interface SummarySource {
  name: 'entries' | 'dayTotals' | 'weekTotals' | 'memberWeekTotals' | 'tagWeekTotals' | 'memberDayTotals' | 'tagDayTotals';
  /** What it reads, for people (the bench prints it). */
  reads: string;
  /** The FROM item (a table, or a statement with its own parameters). */
  from(parameters: Parameters, range: ReportRange): string;
  /** The currency of a row's amounts: the entries' own, the tenant's for those without one. */
  currency(parameters: Parameters, range: ReportRange): string;
  /** The local date (or timestamp) a time dimension buckets. */
  local(parameters: Parameters, range: ReportRange): string;
  /** A project or task id, null for none. */
  id(column: 'projectId' | 'taskId'): string;
  /** The tag of a row, null for none, where the source has a row per tag (else the tag dimension unnests `e.tags`). */
  tag?: string;
  /** The period's conditions. */
  period(parameters: Parameters, range: ReportRange): string[];
  /** entries, durationMinutes, billableMinutes, billableAmount and costAmount, aggregated. */
  totals: string;
  /**
   * Whether a summary over it may use parallel workers: over the entries of a large tenant they about halve the
   * time; the totals' few thousand rows are read before workers have started (figures: docs/performance.md).
   */
  parallel: boolean;
}

export type TotalsRow = {
  /** Amounts of two currencies are never added up: each row is of one. */
  currency: string;
  entries: number;
  durationMinutes: string | number | null;
  billableMinutes: string | number | null;
  /** Exact decimal text, without trailing zeros ("1234.5"), as Prisma's Decimal prints. */
  billableAmount: string | null;
  costAmount: string | null;
};

/** A row of a rolled-up summary: how many of its dimensions it is grouped by (0: the totals). */
export type RolledUpRow = TotalsRow & { depth: number };

/** The totals of the rows of `e`, amounts still numeric (text only at the end: sums of sums stay exact). */
const totalsOver = (entries: string) => `coalesce(${entries}, 0)::int AS entries,
  coalesce(sum(e."durationMinutes"), 0)::bigint AS "durationMinutes",
  coalesce(sum(e."durationMinutes") FILTER (WHERE e.billable), 0)::bigint AS "billableMinutes",
  coalesce(sum(e."billableAmount"), 0) AS "billableAmount",
  coalesce(sum(e."costAmount"), 0) AS "costAmount"`;

/** The totals of grouped rows `g` added up again (a ROLLUP's groups). */
const totalsOfGroups = `coalesce(sum(g.entries), 0)::int AS entries,
  coalesce(sum(g."durationMinutes"), 0)::bigint AS "durationMinutes",
  coalesce(sum(g."billableMinutes"), 0)::bigint AS "billableMinutes",
  coalesce(sum(g."billableAmount"), 0) AS "billableAmount",
  coalesce(sum(g."costAmount"), 0) AS "costAmount"`;

/** The totals of `g` as they are returned: amounts as decimal text without trailing zeros. */
const totalsReturned = `g.currency, g.entries, g."durationMinutes", g."billableMinutes",
  trim_scale(g."billableAmount")::text AS "billableAmount", trim_scale(g."costAmount")::text AS "costAmount"`;

export const entriesSource: SummarySource = {
  name: 'entries',
  reads: 'entries',
  from: () => 'entries',
  currency: (parameters, range) => `coalesce(e.currency, ${parameters.add(range.settings.currency)})`,
  local: (parameters, range) => `(e."startedAt" AT TIME ZONE ${parameters.add(range.timezone)}::text)`,
  id: (column) => `e."${column}"`,
  // An entry counts on the day it started; running timers are left out.
  period: (parameters, range) => [
    'e."endedAt" IS NOT NULL',
    `e."startedAt" >= ${parameters.add(range.fromInstant)}`,
    `e."startedAt" < ${parameters.add(range.toInstant)}`,
  ],
  totals: totalsOver('count(*)'),
  parallel: true,
};

export const dayTotalsSource: SummarySource = {
  name: 'dayTotals',
  reads: 'entry_day_totals',
  from: () => 'entry_day_totals',
  // '' is the key of "none" there too.
  currency: (parameters, range) => `coalesce(nullif(e.currency, ''), ${parameters.add(range.settings.currency)})`,
  local: () => 'e.day',
  // '' is the key of "none" there.
  id: (column) => `nullif(e."${column}", '')`,
  // A day whose entries all went (deleted, moved) keeps a row of zeros.
  period: (parameters, range) => [`e.day >= ${parameters.add(range.from)}::date`, `e.day <= ${parameters.add(range.to)}::date`, 'e.entries <> 0'],
  totals: totalsOver('sum(e.entries)'),
  parallel: false,
};

/** The columns the two totals tables share over `alias`, the day (or the week's first day) aside. */
const totalsColumns = (alias: string): string =>
  ['"tenantId"', '"projectId"', 'billable', 'status', 'currency', 'entries', '"durationMinutes"', '"billableAmount"', '"costAmount"']
    .map((column) => `${alias}.${column}`)
    .join(', ');

/**
 * The whole weeks `weeks` of a period from the week totals, its other days from the day totals: rows of the day
 * totals' shape, each week's under its first day (which the week dimension keys to that week again).
 */
function weekTotalsSource(access: TenantAccess, weeks: { first: string; afterLast: string }): SummarySource {
  return {
    ...dayTotalsSource,
    name: 'weekTotals',
    reads: 'entry_week_totals, and entry_day_totals for the days outside whole weeks',
    from(parameters, range) {
      // The totals serve only callers who read every entry (summarySourceOf): the Entry scope is the tenant's.
      const readable = (alias: string) => access.sqlScope('read', 'Entry', alias, parameters.add);
      const first = `${parameters.add(weeks.first)}::date`;
      const afterLast = `${parameters.add(weeks.afterLast)}::date`;
      return `(SELECT w.week AS day, ${totalsColumns('w')} FROM entry_week_totals w
                WHERE ${readable('w')} AND w.week >= ${first} AND w.week < ${afterLast}
               UNION ALL
               SELECT d.day, ${totalsColumns('d')} FROM entry_day_totals d
                WHERE ${readable('d')}
                  AND (d.day >= ${parameters.add(range.from)}::date AND d.day < ${first} OR d.day >= ${afterLast} AND d.day <= ${parameters.add(range.to)}::date))`;
    },
    // The period is in the statement above.
    period: () => ['e.entries <> 0'],
  };
}

/** The columns of the member and tag totals over `alias` in the day totals' shape, the member or tag as `keyColumn`. */
const dimensionTotalsColumns = (alias: string, keyColumn: string): string =>
  `${alias}."tenantId", ${alias}.key AS ${keyColumn}, ${alias}.billable, ${alias}.status, ${alias}.currency,
   ${alias}.entries, ${alias}."durationMinutes", ${alias}."billableAmount", ${alias}."costAmount"`;

/**
 * A period by member (`user`) or by tag from the member and tag totals: its whole weeks `weeks` from
 * entry_dimension_week_totals and its other days from entry_dimension_day_totals, or, without `weeks`, every day from
 * the day rows. Rows of the day totals' shape without a project, each week's under its first day, with the member's
 * id as "tenantUserId" or the tag as `tag` ('' for none), so that the dimensions and filters over `e` read them as
 * they read entries.
 */
function dimensionTotalsSource(access: TenantAccess, dimension: 'user' | 'tag', weeks: { first: string; afterLast: string } | undefined): SummarySource {
  const keyColumn = dimension === 'user' ? '"tenantUserId"' : 'tag';
  const names = { user: ['memberWeekTotals', 'memberDayTotals'], tag: ['tagWeekTotals', 'tagDayTotals'] } as const;
  return {
    ...dayTotalsSource,
    name: names[dimension][weeks ? 0 : 1],
    reads: weeks
      ? `entry_dimension_week_totals (by ${dimension}), and entry_dimension_day_totals for the days outside whole weeks`
      : `entry_dimension_day_totals (by ${dimension})`,
    ...(dimension === 'tag' ? { tag: `nullif(e.tag, '')` } : {}),
    from(parameters, range) {
      // The totals serve only callers who read every entry (summarySourceOf): the Entry scope is the tenant's.
      const readable = (alias: string) => access.sqlScope('read', 'Entry', alias, parameters.add);
      const bind = parameters.add;
      const from = `${bind(range.from)}::date`;
      // Each run of days a range of the primary key: the ends are two reads, not one read of the whole period.
      const days = (start: string, end: string) =>
        `SELECT d.day, ${dimensionTotalsColumns('d', keyColumn)} FROM entry_dimension_day_totals d
          WHERE ${readable('d')} AND d.dimension = ${bind(dimension)} AND d.day >= ${start} AND d.day < ${end}`;
      const afterTo = `${bind(range.to)}::date + 1`;
      if (!weeks) return `(${days(from, afterTo)})`;
      const first = `${bind(weeks.first)}::date`;
      const afterLast = `${bind(weeks.afterLast)}::date`;
      return `(SELECT w.week AS day, ${dimensionTotalsColumns('w', keyColumn)} FROM entry_dimension_week_totals w
                WHERE ${readable('w')} AND w.dimension = ${bind(dimension)} AND w.week >= ${first} AND w.week < ${afterLast}
               UNION ALL ${days(from, first)}
               UNION ALL ${days(afterLast, afterTo)})`;
    },
    // The period is in the statement above.
    period: () => ['e.entries <> 0'],
  };
}

const finerThanDayTotals = new Set<ReportDimension>(['user', 'task', 'tag']);
const finerThanWeekTotals = new Set<ReportDimension>(['day', 'month']);
/** What the member and tag totals hold besides the member or the tag (a day or month: from their day rows alone). */
const inDimensionTotals = new Set<ReportDimension>(['user', 'tag', 'billable', 'status', 'week', 'day', 'month']);

/**
 * Where a summary is read from: the week and day totals, or the day totals, when they hold what it asks; the
 * member or tag totals for a summary by member (or of one member) or by tag that asks nothing else they lack;
 * else the entries. Every source gives the same answer (test/report-day-totals.test.ts).
 */
export function summarySourceOf(access: TenantAccess, range: ReportRange, dimensions: ReportDimension[], filter: ReportFilter): SummarySource {
  const served =
    access.canAny('read', 'Entry') &&
    range.timezone === range.settings.timezone &&
    filter.taskId === undefined &&
    filter.tag === undefined &&
    // The totals do not know which entries are invoiced.
    filter.invoiced === undefined;
  if (!served) return entriesSource;
  // Whole weeks serve a summary that needs nothing finer than a week (not by day or month).
  const weeksOf = () =>
    dimensions.some((dimension) => finerThanWeekTotals.has(dimension)) ? undefined : wholeWeeksBetween(range.from, range.to, range.settings.weekStart);
  if (!dimensions.some((dimension) => finerThanDayTotals.has(dimension)) && filter.tenantUserId === undefined) {
    const weeks = weeksOf();
    return weeks ? weekTotalsSource(access, weeks) : dayTotalsSource;
  }
  // By member or by tag: the member and tag totals have no project, task or client, nor both a member and a tag.
  const byTag = dimensions.includes('tag');
  const byDimensionTotals =
    dimensions.every((dimension) => inDimensionTotals.has(dimension)) &&
    !(byTag && (dimensions.includes('user') || filter.tenantUserId !== undefined)) &&
    filter.projectId === undefined &&
    filter.clientId === undefined;
  return byDimensionTotals ? dimensionTotalsSource(access, byTag ? 'tag' : 'user', weeksOf()) : entriesSource;
}

/**
 * The WHERE of a report over `source` aliased `e`: the Entry scope's SQL
 * predicate (members: their own entries), the period and the filters.
 */
export function reportWhere(access: TenantAccess, source: SummarySource, parameters: Parameters, range: ReportRange, filter: ReportFilter): string {
  const bind = parameters.add;
  const conditions = [
    access.sqlScope('read', 'Entry', 'e', bind),
    ...source.period(parameters, range),
    ...(filter.projectId ? [`e."projectId" = ${bind(filter.projectId)}`] : []),
    ...(filter.clientId
      ? [
          `e."projectId" IN (SELECT cp.id FROM projects cp WHERE ${access.sqlScope('read', 'Project', 'cp', bind)} AND cp."clientId" = ${bind(filter.clientId)})`,
        ]
      : []),
    ...(filter.tenantUserId ? [`e."tenantUserId" = ${bind(filter.tenantUserId)}`] : []),
    ...(filter.taskId ? [`e."taskId" = ${bind(filter.taskId)}`] : []),
    ...(filter.status ? [`e.status = ${bind(filter.status)}::"EntryStatus"`] : []),
    ...(filter.billable === undefined ? [] : [`e.billable = ${bind(filter.billable)}`]),
    ...(filter.tag ? [`${bind(filter.tag)} = ANY(e.tags)`] : []),
    ...(filter.invoiced === undefined ? [] : [`e."clientInvoiceId" IS ${filter.invoiced ? 'NOT ' : ''}NULL`]),
  ];
  return conditions.join(' AND ');
}

/**
 * How a dimension groups: its key over `e` (the inner, grouped statement),
 * what that needs joined, and its label over the grouped row `g` (names are
 * joined to the groups, not to every row).
 */
interface DimensionSql {
  key: string;
  inner?: 'project' | 'tag';
  /** Over `g.key{n}`; `join` names what it reads. */
  label(key: string, index: number): { label: string; join?: string };
}

const innerJoins = {
  project: 'LEFT JOIN projects p ON p.id = e."projectId"',
  // Untagged entries form a group of their own ("No tag"), as do tags '' (which only SQL by hand can write): the
  // member and tag totals key both by ''.
  tag: `CROSS JOIN LATERAL unnest(CASE WHEN coalesce(cardinality(e.tags), 0) = 0 THEN ARRAY[''] ELSE e.tags END) AS tag(value)`,
} as const;

/** A name from `table` by the group's key. */
const named = (table: string, name: string, none: string | null) => (key: string, index: number) => ({
  label: none === null ? `n${index}.${name}` : `coalesce(n${index}.${name}, '${none}')`,
  join: `LEFT JOIN ${table} n${index} ON n${index}.id = ${key}`,
});

function dimensionSql(dimension: ReportDimension, source: SummarySource, local: () => string, weekStart: TenantSettings['weekStart']): DimensionSql {
  switch (dimension) {
    case 'project':
      return { key: source.id('projectId'), label: named('projects', 'name', 'No project') };
    case 'client':
      return { key: 'p."clientId"', inner: 'project', label: named('clients', 'name', 'No client') };
    case 'user':
      return {
        key: 'e."tenantUserId"',
        label: (key, index) => ({ ...named('tenant_users', 'name', null)(key, index), label: `coalesce(n${index}.name, n${index}.email)` }),
      };
    case 'task':
      return { key: source.id('taskId'), label: named('tasks', 'title', 'No task') };
    case 'tag':
      return {
        ...(source.tag ? { key: source.tag } : { key: `nullif(tag.value, '')`, inner: 'tag' as const }),
        label: (key) => ({ label: `coalesce(${key}, 'No tag')` }),
      };
    case 'billable':
      return { key: 'e.billable', label: (key) => ({ label: `CASE WHEN ${key} THEN 'Billable' ELSE 'Not billable' END` }) };
    case 'status':
      return { key: 'e.status', label: (key) => ({ label: `${key}::text` }) };
    // Time keys are dates while grouping, text (the period's first day) once grouped; their labels are made from them.
    case 'day':
      return { key: `(${local()})::date`, label: () => ({ label: 'NULL::text' }) };
    case 'week': {
      // The week's first day: the day minus its distance from a known first day (a Monday, Sunday or Saturday),
      // in whole days: date arithmetic, cheaper per row than date_trunc over timestamps.
      const anchor = { monday: '2000-01-03', sunday: '2000-01-02', saturday: '2000-01-01' }[weekStart];
      const date = `(${local()})::date`;
      return { key: `${date} - (((${date} - date '${anchor}') % 7 + 7) % 7)`, label: () => ({ label: 'NULL::text' }) };
    }
    case 'month':
      return { key: `date_trunc('month', ${local()})::date`, label: () => ({ label: 'NULL::text' }) };
    case 'absenceType':
    case 'category':
      // Absences and expenses are no entries: the service answers their reports from report.absences.ts and report.expenses.ts.
      throw new Error(`${dimension} is no dimension of entries`);
  }
}

const keyText = (dimension: ReportDimension, key: string): string => {
  if (dimension === 'month') return `to_char(${key}, 'YYYY-MM')`;
  if (dimension === 'day' || dimension === 'week') return `to_char(${key}, 'YYYY-MM-DD')`;
  return `${key}::text`;
};

/**
 * One statement over the report's source grouped by `dimensions` (none: the
 * totals), as key0/label0, key1/label1 and the totals, with its own
 * parameters: grouped by the keys alone, then named.
 *
 * With `rollUp`, the groups of each leading part of the dimensions and the
 * totals come in the same statement (`GROUP BY ROLLUP` over the grouped
 * rows), each row with its `depth`: 2 for a sub-group, 1 for a group, 0 for
 * the totals. Every row is of one currency (the grouping's finest key): a
 * group in two currencies comes as two rows. The database adds the amounts up exactly, once, over the few
 * grouped rows; adding them up in JavaScript took Decimal objects by the
 * thousand (a 1M project x week summary has 5,353 sub-groups). Only for
 * dimensions where a group is the sum of its sub-groups: not with a tag
 * (an entry with two tags is in two tag groups, and once in the totals).
 */
export function summaryStatement(
  access: TenantAccess,
  source: SummarySource,
  range: ReportRange,
  filter: ReportFilter,
  dimensions: ReportDimension[],
  { rollUp = false }: { rollUp?: boolean } = {},
): { text: string; values: unknown[] } {
  const parameters = new Parameters();
  // Bound only where a time dimension uses it: every parameter of a statement must appear in it.
  const local = () => source.local(parameters, range);
  const sqls = dimensions.map((dimension) => dimensionSql(dimension, source, local, range.settings.weekStart));
  const inner = (['project', 'tag'] as const).filter((join) => sqls.some((dimension) => dimension.inner === join)).map((join) => innerJoins[join]);
  const keys = [...sqls.map((dimension, index) => `${dimension.key} AS key${index}`), `${source.currency(parameters, range)} AS currency`];
  const where = reportWhere(access, source, parameters, range, filter);
  const grouped =
    `SELECT ${[...keys, source.totals].join(', ')} FROM ${source.from(parameters, range)} e ${inner.join(' ')} WHERE ${where}` +
    ` GROUP BY ${keys.map((_, index) => index + 1).join(', ')}`;
  if (dimensions.length === 0) return { text: `SELECT ${totalsReturned} FROM (${grouped}) g`, values: parameters.values };
  const groupKeys = dimensions.map((_, index) => `g.key${index}`);
  // GROUPING(key) is 1 where a row adds that key's groups up; the currency is never added up.
  const rows = rollUp
    ? `(SELECT ${groupKeys.join(', ')}, g.currency, ${totalsOfGroups}, ${dimensions.length} - (${groupKeys.map((key) => `GROUPING(${key})`).join(' + ')}) AS depth
         FROM (${grouped}) g GROUP BY g.currency, ROLLUP (${groupKeys.join(', ')}))`
    : `(${grouped})`;
  const labels = sqls.map((dimension, index) => dimension.label(`g.key${index}`, index));
  const columns = dimensions.flatMap((dimension, index) => [
    `${keyText(dimension, `g.key${index}`)} AS key${index}`,
    `${labels[index]?.label} AS label${index}`,
  ]);
  const text = `SELECT ${columns.join(', ')}, ${totalsReturned}${rollUp ? ', g.depth' : ''}
    FROM ${rows} g ${labels.map((label) => label.join ?? '').join(' ')}`;
  return { text, values: parameters.values };
}
