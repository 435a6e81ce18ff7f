/**
 * The statements behind reports. A summary reads one of two sources:
 * - `entries`, every entry of the period, grouped as asked (any time zone, any
 *   dimension, any filter);
 * - `dayTotals`, the table entry_day_totals, which the database keeps exact in
 *   the transaction of every entry write (its migration says how): one row per
 *   tenant-local day, project, task, billable flag and status. A year of a
 *   tenant with a million entries is some tens of thousands of rows there.
 *   It serves the reports that need nothing finer: in the tenant's own time
 *   zone, not by member or tag, and for callers who read every entry.
 */
import type { TenantAccess } from '../../auth/tenant-access.js';
import { Parameters } from '../../db/parameters.js';
import type { TenantSettings } from '../tenant/tenant.service.js';
import type { ReportDimension, ReportFilter } from './report.service.js';

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
  name: 'entries' | 'dayTotals';
  table: string;
  /** The local date (or timestamp) a time dimension buckets. */
  local(parameters: Parameters, range: ReportRange): string;
  /** A project or task id, null for none. */
  id(column: 'projectId' | 'taskId'): string;
  /** The period's conditions. */
  period(parameters: Parameters, range: ReportRange): string[];
  /** entries, durationMinutes, billableMinutes, billableAmount and costAmount, aggregated. */
  totals: string;
}

export type TotalsRow = {
  entries: number;
  durationMinutes: string | number | null;
  billableMinutes: string | number | null;
  billableAmount: string | null;
  costAmount: string | null;
};

const totalsOver = (entries: string) => `coalesce(${entries}, 0)::int AS entries,
  coalesce(sum(e."durationMinutes"), 0)::bigint AS "durationMinutes",
  coalesce(sum(e."durationMinutes") FILTER (WHERE e.billable), 0)::bigint AS "billableMinutes",
  coalesce(sum(e."billableAmount"), 0)::text AS "billableAmount",
  coalesce(sum(e."costAmount"), 0)::text AS "costAmount"`;

export const entriesSource: SummarySource = {
  name: 'entries',
  table: 'entries',
  local: (parameters, range) => `((e."startedAt" AT TIME ZONE 'UTC') AT TIME ZONE ${parameters.add(range.timezone)}::text)`,
  id: (column) => `e."${column}"`,
  // An entry counts on the day it started; running timers are left out.
  period: (parameters, range) => [
    'e."endedAt" IS NOT NULL',
    `e."startedAt" >= ${parameters.add(range.fromInstant)}`,
    `e."startedAt" < ${parameters.add(range.toInstant)}`,
  ],
  totals: totalsOver('count(*)'),
};

export const dayTotalsSource: SummarySource = {
  name: 'dayTotals',
  table: 'entry_day_totals',
  local: () => 'e.day',
  // '' is the key of "none" there.
  id: (column) => `nullif(e."${column}", '')`,
  // A day whose entries all went (deleted, moved) keeps a row of zeros.
  period: (parameters, range) => [`e.day >= ${parameters.add(range.from)}::date`, `e.day <= ${parameters.add(range.to)}::date`, 'e.entries <> 0'],
  totals: totalsOver('sum(e.entries)'),
};

const finerThanDayTotals = new Set<ReportDimension>(['user', 'tag']);

/** The day totals when they hold what the summary asks, else the entries. */
export function summarySourceOf(access: TenantAccess, range: ReportRange, dimensions: ReportDimension[], filter: ReportFilter): SummarySource {
  const served =
    access.canAny('read', 'Entry') &&
    range.timezone === range.settings.timezone &&
    !dimensions.some((dimension) => finerThanDayTotals.has(dimension)) &&
    filter.tenantUserId === undefined &&
    filter.tag === undefined;
  return served ? dayTotalsSource : entriesSource;
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
      ? [`e."projectId" IN (SELECT id FROM projects WHERE "tenantId" = ${bind(access.tenantId)} AND "clientId" = ${bind(filter.clientId)})`]
      : []),
    ...(filter.tenantUserId ? [`e."tenantUserId" = ${bind(filter.tenantUserId)}`] : []),
    ...(filter.taskId ? [`e."taskId" = ${bind(filter.taskId)}`] : []),
    ...(filter.status ? [`e.status = ${bind(filter.status)}::"EntryStatus"`] : []),
    ...(filter.billable === undefined ? [] : [`e.billable = ${bind(filter.billable)}`]),
    ...(filter.tag ? [`${bind(filter.tag)} = ANY(e.tags)`] : []),
  ];
  return conditions.join(' AND ');
}

/** How a dimension groups, in SQL over `e`, and what it joins. */
interface DimensionSql {
  key: string;
  /** Null for time dimensions: their labels are made from their keys. */
  label: string | null;
  joins: readonly ('project' | 'client' | 'user' | 'task' | 'tag')[];
}

const joinSql = {
  project: 'LEFT JOIN projects p ON p.id = e."projectId"',
  client: 'LEFT JOIN clients c ON c.id = p."clientId"',
  user: 'JOIN tenant_users u ON u.id = e."tenantUserId"',
  task: 'LEFT JOIN tasks t ON t.id = e."taskId"',
  // Untagged entries form a group of their own ("No tag").
  tag: `LEFT JOIN LATERAL unnest(CASE WHEN cardinality(e.tags) = 0 THEN ARRAY[NULL]::text[] ELSE e.tags END) AS tag(value) ON true`,
} as const;

function dimensionSql(dimension: ReportDimension, source: SummarySource, local: () => string, weekStart: TenantSettings['weekStart']): DimensionSql {
  switch (dimension) {
    case 'project':
      return { key: source.id('projectId'), label: `coalesce(p.name, 'No project')`, joins: ['project'] };
    case 'client':
      return { key: 'p."clientId"', label: `coalesce(c.name, 'No client')`, joins: ['project', 'client'] };
    case 'user':
      return { key: 'e."tenantUserId"', label: 'coalesce(u.name, u.email)', joins: ['user'] };
    case 'task':
      return { key: source.id('taskId'), label: `coalesce(t.title, 'No task')`, joins: ['task'] };
    case 'tag':
      return { key: 'tag.value', label: `coalesce(tag.value, 'No tag')`, joins: ['tag'] };
    case 'billable':
      return { key: 'e.billable::text', label: `CASE WHEN e.billable THEN 'Billable' ELSE 'Not billable' END`, joins: [] };
    case 'status':
      return { key: 'e.status::text', label: 'e.status::text', joins: [] };
    case 'day':
      return { key: `to_char(${local()}, 'YYYY-MM-DD')`, label: null, joins: [] };
    case 'week': {
      // The week's first day: Monday (ISO), or shifted to Sunday or Saturday.
      const shift = { monday: 0, sunday: 1, saturday: 2 }[weekStart];
      return {
        key: `to_char((date_trunc('week', ${local()} + interval '${shift} days') - interval '${shift} days')::date, 'YYYY-MM-DD')`,
        label: null,
        joins: [],
      };
    }
    case 'month':
      return { key: `to_char(${local()}, 'YYYY-MM')`, label: null, joins: [] };
  }
}

/**
 * One statement over the report's source grouped by `dimensions` (none: the
 * totals), as key0/label0, key1/label1 and the totals, with its own parameters.
 */
export function summaryStatement(
  access: TenantAccess,
  source: SummarySource,
  range: ReportRange,
  filter: ReportFilter,
  dimensions: ReportDimension[],
): { text: string; values: unknown[] } {
  const parameters = new Parameters();
  // Bound only where a time dimension uses it: every parameter of a statement must appear in it.
  const local = () => source.local(parameters, range);
  const sqls = dimensions.map((dimension) => dimensionSql(dimension, source, local, range.settings.weekStart));
  const joins = new Set(sqls.flatMap((dimension) => dimension.joins));
  if (joins.has('client')) joins.add('project');
  // In this order: a client is reached through its project.
  const joined = (['project', 'client', 'user', 'task', 'tag'] as const).filter((join) => joins.has(join)).map((join) => joinSql[join]);
  const columns = sqls.flatMap((dimension, index) => [`${dimension.key} AS key${index}`, `${dimension.label ?? 'NULL::text'} AS label${index}`]);
  const grouping = sqls.flatMap((dimension, index) => [`key${index}`, ...(dimension.label ? [`label${index}`] : [])]);
  const where = reportWhere(access, source, parameters, range, filter);
  const text =
    `SELECT ${[...columns, source.totals].join(', ')} FROM ${source.table} e ${joined.join(' ')} WHERE ${where}` +
    (grouping.length ? ` GROUP BY ${grouping.join(', ')}` : '');
  return { text, values: parameters.values };
}
