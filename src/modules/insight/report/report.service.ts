import type { TenantAccess } from '../../../auth/tenant-access.js';
import type { ReadClient } from '../../../db/replicas.js';
import type { ServiceDependencies } from '../../module.js';
import { Parameters } from '../../../db/parameters.js';
import type { Prisma, Entry } from '../../../generated/prisma/client.js';
import { startOfDay } from '../../../lib/time.js';
import { entryOrder, type EntryPageQuery } from '../../tracking/entry/entry.dto.js';
import { settingsOf, type TenantSettings } from '../../platform/tenant/tenant.settings.js';
import {
  isAbsenceReport,
  isExpenseReport,
  type ExportRow,
  type ReportDimension,
  type ReportEntry,
  type ReportFilter,
  type ReportGroup,
  type ReportPeriod,
  type ReportSummary,
  type ReportTotals,
} from './report.contract.js';
import { bucketsBetween, labelOfBucket, type TimeDimension } from './report.periods.js';
import { entriesSource, type ReportRange, reportWhere, type RolledUpRow, summarySourceOf, summaryStatement, type TotalsRow } from './report.sql.js';
import { nextDay } from '../../../lib/day.js';
import { absenceGroups, absenceTotals } from './report.absences.js';
import { type ExpenseGroup, expenseExportRows, expenseGroups } from './report.expenses.js';

const timeDimensions = new Set<ReportDimension>(['day', 'week', 'month']);
const isTimeDimension = (dimension: ReportDimension): dimension is TimeDimension => timeDimensions.has(dimension);

/** The totals of no entries: nothing in the tenant's currency. */
const emptyTotals = (tenantId: string, currency: string): ReportTotals => ({
  tenantId,
  currency,
  entries: 0,
  durationMinutes: 0,
  billableMinutes: 0,
  billableAmount: '0',
  costAmount: '0',
  absenceDays: null,
  absenceMinutes: null,
});

function currencyTotals(tenantId: string, row: TotalsRow): ReportTotals {
  return {
    tenantId,
    currency: row.currency,
    entries: row.entries,
    durationMinutes: Number(row.durationMinutes ?? 0),
    billableMinutes: Number(row.billableMinutes ?? 0),
    billableAmount: row.billableAmount ?? '0',
    costAmount: row.costAmount ?? '0',
    absenceDays: null,
    absenceMinutes: null,
  };
}

/**
 * The totals of a group from its rows, one per currency (in currency order): counts and minutes of them all;
 * amounts and `currency` only when there is one currency (amounts of two are never added up), null otherwise.
 */
function totalsOf(tenantId: string, rows: readonly TotalsRow[], tenantCurrency: string): Pick<ReportGroup, 'totals' | 'totalsByCurrency'> {
  if (rows.length === 0) return { totals: emptyTotals(tenantId, tenantCurrency), totalsByCurrency: [] };
  const totalsByCurrency = rows.map((row) => currencyTotals(tenantId, row)).sort((a, b) => ((a.currency ?? '') < (b.currency ?? '') ? -1 : 1));
  if (totalsByCurrency.length === 1) return { totals: totalsByCurrency[0] as ReportTotals, totalsByCurrency };
  const totals: ReportTotals = {
    tenantId,
    currency: null,
    entries: totalsByCurrency.reduce((sum, each) => sum + each.entries, 0),
    durationMinutes: totalsByCurrency.reduce((sum, each) => sum + each.durationMinutes, 0),
    billableMinutes: totalsByCurrency.reduce((sum, each) => sum + each.billableMinutes, 0),
    billableAmount: null,
    costAmount: null,
    absenceDays: null,
    absenceMinutes: null,
  };
  return { totals, totalsByCurrency };
}

/**
 * Built once, on the first report that sorts by name: a collator per comparison (what localeCompare does) costs
 * microseconds each, and building one maps ICU's collation data into the process, which an API process that never
 * reports need not hold (figures: docs/performance.md).
 */
let collator: Intl.Collator | undefined;
const names = (): Intl.Collator => {
  collator ??= new Intl.Collator();
  return collator;
};

/** Time groups in time order; the others by time spent (or absent), most first, then by name. */
function ordered(dimension: ReportDimension, groups: ReportGroup[]): ReportGroup[] {
  // Time keys are ISO dates: their text order is time order (and far cheaper than a locale's).
  if (isTimeDimension(dimension)) return groups.sort((a, b) => ((a.key ?? '') < (b.key ?? '') ? -1 : (a.key ?? '') > (b.key ?? '') ? 1 : 0));
  const byName = names();
  // Absence groups have no entries: theirs is the absence minutes.
  const weight = (group: ReportGroup) => group.totals.durationMinutes + (group.totals.absenceMinutes ?? 0);
  return groups.sort((a, b) => weight(b) - weight(a) || byName.compare(a.label, b.label));
}

/** With `fillGaps`, every period of the range, the empty ones with zero totals. */
function filled(
  dimension: ReportDimension,
  groups: ReportGroup[],
  range: ReportPeriod & { weekStart: TenantSettings['weekStart']; empty: () => Pick<ReportGroup, 'totals' | 'totalsByCurrency'> },
) {
  if (!isTimeDimension(dimension)) return groups;
  const byKey = new Map(groups.map((group) => [group.key, group]));
  return bucketsBetween(dimension, range.from, range.to, range.weekStart).map(
    (key) => byKey.get(key) ?? { key, label: labelOfBucket(dimension, key), ...range.empty() },
  );
}

/**
 * Reports over entries (CONTRACT.md section 8): hours and money grouped by
 * one or two dimensions, and the entries themselves with the names of what
 * they belong to. A caller reads the entries the Entry scope gives them
 * (members: their own); the records hold every amount, and the GraphQL types
 * they are answered through show them only to those who may read rates. An entry
 * counts on the day it started, in the report's time zone; running timers
 * are left out.
 */
type SummaryArgs = ReportPeriod & { groupBy: ReportDimension; subGroupBy?: ReportDimension | undefined; fillGaps: boolean };

export function createReportService({ reads }: Pick<ServiceDependencies, 'reads'>) {
  /** The report's time zone and week start, and the instants its period covers. */
  function periodOf(access: TenantAccess, period: ReportPeriod): ReportRange {
    const settings = settingsOf({ settings: access.tenant.settings as Prisma.JsonValue });
    const timezone = period.timezone ?? settings.timezone;
    return {
      from: period.from,
      to: period.to,
      settings,
      timezone,
      fromInstant: startOfDay(period.from, timezone),
      toInstant: startOfDay(nextDay(period.to), timezone),
    };
  }

  /** `summary` on the database `reads` chose. */
  async function summaryOn(
    { db, sql }: ReadClient,
    access: TenantAccess,
    { groupBy, subGroupBy, fillGaps, ...period }: SummaryArgs,
    filter: ReportFilter,
  ): Promise<ReportSummary> {
    const range = periodOf(access, period);
    const { tenantId } = access;
    const tenantCurrency = range.settings.currency;
    const dimensions = subGroupBy ? [groupBy, subGroupBy] : [groupBy];
    /** The groups of the entries (their sub-groups in them), and their totals. */
    const entryGroups = async (): Promise<Pick<ReportSummary, 'groups' | 'totals' | 'totalsByCurrency'>> => {
      const run = <Row extends Record<string, unknown>>(dimensions: ReportDimension[], rollUp = false) => {
        // Each statement from the source that holds what it groups by: a tag report's totals from the week totals.
        const source = summarySourceOf(access, range, dimensions, filter);
        const { text, values } = summaryStatement(access, source, range, filter, dimensions, { rollUp });
        return sql.queryLarge<Row>(text, values, { parallel: source.parallel });
      };
      type FirstRow = TotalsRow & { key0: string | null; label0: string | null };
      type SecondRow = FirstRow & { key1: string | null; label1: string | null };
      // Rows come one per group and currency: a group's rows are gathered under its keys.
      const totalsRows: TotalsRow[] = [];
      const firstRows = new Map<string, FirstRow[]>();
      const secondRows = new Map<string, SecondRow[]>();
      function gather<Row>(into: Map<string, Row[]>, key: string, row: Row): void {
        const rows = into.get(key);
        if (rows) rows.push(row);
        else into.set(key, [row]);
      }
      // A null key (no project) is a key of its own, apart from any text.
      const keyOf = (key: string | null) => (key === null ? '\u0000' : `k${key}`);
      const pairKey = (row: SecondRow) => `${keyOf(row.key0)}\u0001${keyOf(row.key1)}`;
      if (groupBy === 'tag' || subGroupBy === 'tag') {
        // A tag grouping repeats an entry per tag, and totals count each entry once: three statements.
        totalsRows.push(...(await run<TotalsRow>([])));
        for (const row of await run<FirstRow>([groupBy])) gather(firstRows, keyOf(row.key0), row);
        if (subGroupBy) for (const row of await run<SecondRow>([groupBy, subGroupBy])) gather(secondRows, pairKey(row), row);
      } else {
        // Otherwise one statement: the finest groups, rolled up into the groups and the totals.
        for (const row of await run<SecondRow & RolledUpRow>(dimensions, true)) {
          if (row.depth === 0) totalsRows.push(row);
          else if (row.depth === 1) gather(firstRows, keyOf(row.key0), row);
          else gather(secondRows, pairKey(row), row);
        }
      }
      const label = (dimension: ReportDimension, key: string | null, sqlLabel: string | null) =>
        isTimeDimension(dimension) ? labelOfBucket(dimension, key as string) : (sqlLabel ?? '');
      const groups: ReportGroup[] = [...firstRows.values()].map((rows) => {
        const row = rows[0] as FirstRow;
        return { key: row.key0, label: label(groupBy, row.key0, row.label0), ...totalsOf(tenantId, rows, tenantCurrency) };
      });
      if (subGroupBy) {
        const byKey = new Map(groups.map((group) => [group.key, group]));
        for (const rows of secondRows.values()) {
          const row = rows[0] as SecondRow;
          const group = byKey.get(row.key0);
          if (!group) continue;
          group.subGroups ??= [];
          group.subGroups.push({ key: row.key1, label: label(subGroupBy, row.key1, row.label1), ...totalsOf(tenantId, rows, tenantCurrency) });
        }
      }
      return { groups, ...totalsOf(tenantId, totalsRows, tenantCurrency) };
    };
    /** The groups of the expenses (report.expenses.ts), totalled as entry groups are. */
    const expenseReport = async (): Promise<Pick<ReportSummary, 'groups' | 'totals' | 'totalsByCurrency'>> => {
      const { totalsRows, groups } = await expenseGroups(db, access, range, dimensions, filter);
      const asGroup = ({ rows, subGroups, ...group }: ExpenseGroup): ReportGroup => ({
        ...group,
        ...totalsOf(tenantId, rows, tenantCurrency),
        ...(subGroups ? { subGroups: subGroups.map(asGroup) } : {}),
      });
      return { groups: groups.map(asGroup), ...totalsOf(tenantId, totalsRows, tenantCurrency) };
    };
    const absences = isAbsenceReport({ groupBy, subGroupBy });
    const { groups, totals, totalsByCurrency } = absences
      ? { totalsByCurrency: [], ...(await absenceGroups(db, access, range, dimensions, filter.tenantUserId)) }
      : isExpenseReport({ groupBy, subGroupBy })
        ? await expenseReport()
        : await entryGroups();
    const empty = () => (absences ? { totals: absenceTotals(tenantId), totalsByCurrency: [] } : totalsOf(tenantId, [], tenantCurrency));
    const fill = { ...period, weekStart: range.settings.weekStart, empty };
    let result = ordered(groupBy, groups);
    if (fillGaps) result = filled(groupBy, result, fill);
    if (subGroupBy) {
      for (const group of result) {
        group.subGroups = ordered(subGroupBy, group.subGroups ?? []);
        if (fillGaps) group.subGroups = filled(subGroupBy, group.subGroups, fill);
      }
    }
    return {
      from: period.from,
      to: period.to,
      timezone: range.timezone,
      currency: totals.currency,
      groupBy,
      subGroupBy: subGroupBy ?? null,
      totals,
      totalsByCurrency,
      groups: result,
    };
  }

  return {
    /** The time zone a report counts in: the one asked for, else the tenant's. */
    timezoneOf(access: TenantAccess, timezone?: string): string {
      return periodOf(access, { from: '2000-01-01', to: '2000-01-01', timezone }).timezone;
    },

    /** Totals, and groups (with sub-groups) of the entries the caller may read in the period; by absenceType, of their absences. */
    async summary(access: TenantAccess, args: SummaryArgs, filter: ReportFilter = {}): Promise<ReportSummary> {
      access.assert('read', 'Report');
      // A report tolerates a little lag: a replica answers it (src/db/replicas.ts).
      return reads.run(access, (client) => summaryOn(client, access, args, filter));
    },

    /** The period's entries the caller may read, newest first, as a Prisma `where` (for connections). */
    entriesWhere(access: TenantAccess, period: ReportPeriod, filter: ReportFilter = {}): Prisma.EntryWhereInput {
      access.assert('read', 'Report');
      const range = periodOf(access, period);
      return {
        AND: [
          { endedAt: { not: null }, startedAt: { gte: range.fromInstant, lt: range.toInstant } },
          ...(filter.projectId ? [{ projectId: filter.projectId }] : []),
          ...(filter.clientId ? [{ project: { clientId: filter.clientId, ...access.scope('read', 'Project') } }] : []),
          ...(filter.tenantUserId ? [{ tenantUserId: filter.tenantUserId }] : []),
          ...(filter.taskId ? [{ taskId: filter.taskId }] : []),
          ...(filter.status ? [{ status: filter.status }] : []),
          ...(filter.billable === undefined ? [] : [{ billable: filter.billable }]),
          ...(filter.tag ? [{ tags: { has: filter.tag } }] : []),
          ...(filter.invoiced === undefined ? [] : [{ clientInvoiceId: filter.invoiced ? { not: null } : null }]),
        ],
        ...access.scope('read', 'Entry'),
      };
    },

    /**
     * Every entry of the period, and every expense (report.expenses.ts),
     * newest first, as an export writes it: times in the report's time zone,
     * names instead of ids. Read through a cursor, a batch at a time.
     */
    async *exportRows(access: TenantAccess, period: ReportPeriod, filter: ReportFilter = {}): AsyncGenerator<ExportRow[]> {
      access.assert('read', 'Report');
      const range = periodOf(access, period);
      const parameters = new Parameters();
      const zone = parameters.add(range.timezone);
      const local = (column: string) => `(e."${column}" AT TIME ZONE ${zone}::text)`;
      const where = reportWhere(access, entriesSource, parameters, range, filter);
      const text = `
        SELECT * FROM (
        SELECT 'time' AS type, to_char(${local('startedAt')}, 'YYYY-MM-DD') AS date, to_char(${local('startedAt')}, 'HH24:MI') AS start,
               to_char(${local('endedAt')}, 'HH24:MI') AS "end", e."durationMinutes" AS minutes, coalesce(u.name, u.email) AS member,
               c.name AS client, p.name AS project, t.title AS task, e.description, NULL AS category, array_to_string(e.tags, ', ') AS tags,
               e.billable, e.status::text AS status, e."hourlyRate"::text AS "hourlyRate", e."billableAmount"::text AS "billableAmount",
               e."costRate"::text AS "costRate", e."costAmount"::text AS "costAmount", e.currency,
               CASE WHEN ci.id IS NULL THEN NULL ELSE coalesce(ci.number, 'draft') END AS invoice, e."startedAt" AS "sortKey", e.id
          FROM entries e
          JOIN tenant_users u ON u.id = e."tenantUserId"
          LEFT JOIN projects p ON p.id = e."projectId"
          LEFT JOIN clients c ON c.id = p."clientId"
          LEFT JOIN tasks t ON t.id = e."taskId"
          LEFT JOIN client_invoices ci ON ci.id = e."clientInvoiceId"
         WHERE ${where}
        UNION ALL ${expenseExportRows(access, parameters, range, filter, zone)}) r
         ORDER BY r."sortKey" DESC, r.id DESC`;
      // 500 rows a batch: a batch lives long enough to be promoted to the old generation, and larger batches piled
      // up there, growing the API during an export (figures: docs/performance.md).
      yield* reads.stream(access, ({ sql }) => sql.cursor<ExportRow>(text, parameters.values, 500));
    },

    /** A page of the period's entries for a Relay connection, newest first. */
    async entries(access: TenantAccess, period: ReportPeriod, filter: ReportFilter, query: EntryPageQuery): Promise<Entry[]> {
      const where = this.entriesWhere(access, period, filter);
      return reads.run(access, ({ db }) => db.entry.findMany({ ...query, where, orderBy: entryOrder }));
    },

    /** A page of the period's entries, newest first, with the names of their project, client, member and task. */
    async detailed(access: TenantAccess, { limit, offset, ...period }: ReportPeriod & { limit: number; offset: number }, filter: ReportFilter = {}) {
      const where = this.entriesWhere(access, period, filter);
      const rows = await reads.run(access, ({ db }) =>
        db.entry.findMany({
          where,
          orderBy: entryOrder,
          take: limit,
          skip: offset,
          include: {
            project: { select: { name: true, clientId: true, client: { select: { name: true } } } },
            tenantUser: { select: { name: true, email: true } },
            task: { select: { title: true } },
            clientInvoice: { select: { number: true } },
          },
        }),
      );
      return rows.map(
        ({ project, tenantUser, task, clientInvoice, ...entry }): ReportEntry => ({
          id: entry.id,
          tenantId: entry.tenantId,
          startedAt: entry.startedAt,
          // entriesWhere keeps finished entries only.
          endedAt: entry.endedAt as Date,
          durationMinutes: entry.durationMinutes as number,
          description: entry.description,
          billable: entry.billable,
          tags: entry.tags,
          status: entry.status,
          projectId: entry.projectId,
          projectName: project?.name ?? null,
          clientId: project?.clientId ?? null,
          clientName: project?.client?.name ?? null,
          tenantUserId: entry.tenantUserId,
          memberName: tenantUser.name ?? tenantUser.email,
          taskId: entry.taskId,
          taskTitle: task?.title ?? null,
          hourlyRate: entry.hourlyRate,
          costRate: entry.costRate,
          billableAmount: entry.billableAmount,
          costAmount: entry.costAmount,
          currency: entry.currency,
          clientInvoiceId: entry.clientInvoiceId,
          invoiceNumber: clientInvoice?.number ?? null,
        }),
      );
    },
  };
}

export type ReportService = ReturnType<typeof createReportService>;
