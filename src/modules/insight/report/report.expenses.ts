/**
 * Expenses in reports (issue 40): the `category` dimension groups them (an
 * expense report, as absenceType makes an absence report), and every export of a period's entries
 * carries the period's expenses too, as rows of `type` expense with their
 * `category` (entries are rows of type time, with none). An expense row has
 * a day and no times or minutes; its billable amount is what its invoice
 * line bills (net plus markup, when billable), its cost amount its net.
 * The caller reads the expenses the Expense scope gives them (members:
 * their own), with the report's filters that expenses have: a task or tag
 * filter leaves them out.
 */
import type { TenantAccess } from '../../../auth/tenant-access.js';
import type { Db } from '../../../db/client.js';
import type { Parameters } from '../../../db/parameters.js';
import { Prisma } from '../../../generated/prisma/client.js';
import { dayColumn, dayText } from '../../../lib/day.js';
import type { ReportDimension, ReportFilter } from './report.contract.js';
import { labelOfBucket, weekOf } from './report.periods.js';
import type { ReportRange, TotalsRow } from './report.sql.js';

/** The conditions on `x` (expenses) of the report's period and filters. */
function expenseWhere(access: TenantAccess, parameters: Parameters, range: ReportRange, filter: ReportFilter): string {
  const bind = parameters.add;
  if (filter.taskId || filter.tag) return 'false';
  return [
    access.sqlScope('read', 'Expense', 'x', bind),
    `x.date >= ${bind(range.from)}::date AND x.date <= ${bind(range.to)}::date`,
    ...(filter.projectId ? [`x."projectId" = ${bind(filter.projectId)}`] : []),
    ...(filter.clientId ? [`x."clientId" = ${bind(filter.clientId)}`] : []),
    ...(filter.tenantUserId ? [`x."tenantUserId" = ${bind(filter.tenantUserId)}`] : []),
    // Expenses are approved with the entries' vocabulary: draft, submitted, approved, rejected.
    ...(filter.status ? [`x.status::text = ${bind(filter.status)}`] : []),
    ...(filter.billable === undefined ? [] : [`x.billable = ${bind(filter.billable)}`]),
    ...(filter.invoiced === undefined ? [] : [`x."clientInvoiceId" IS ${filter.invoiced ? 'NOT ' : ''}NULL`]),
  ].join(' AND ');
}

/**
 * The expense rows of an export, in the entry rows' columns (and `sortKey`, the start of its day in the report's
 * zone, `id`, to order both by): to follow the entries' SELECT with UNION ALL.
 */
export function expenseExportRows(access: TenantAccess, parameters: Parameters, range: ReportRange, filter: ReportFilter, zone: string): string {
  return `
    SELECT 'expense' AS type, to_char(x.date, 'YYYY-MM-DD') AS date, NULL AS start, NULL AS "end", 0 AS minutes,
           coalesce(u.name, u.email) AS member, c.name AS client, p.name AS project, NULL AS task, x.description, x.category, '' AS tags,
           x.billable, x.status::text AS status, NULL AS "hourlyRate",
           CASE WHEN x.billable THEN x."billedAmount"::text END AS "billableAmount",
           NULL AS "costRate", x."netAmount"::text AS "costAmount", x.currency,
           CASE WHEN ci.id IS NULL THEN NULL ELSE coalesce(ci.number, 'draft') END AS invoice,
           (x.date::timestamp AT TIME ZONE ${zone}::text) AS "sortKey", x.id
      FROM expenses x
      JOIN tenant_users u ON u.id = x."tenantUserId"
      LEFT JOIN projects p ON p.id = x."projectId"
      LEFT JOIN clients c ON c.id = x."clientId"
      LEFT JOIN client_invoices ci ON ci.id = x."clientInvoiceId"
     WHERE ${expenseWhere(access, parameters, range, filter)} AND x.date IS NOT NULL`;
}

/** A group of an expense report: its key and label, its rows per currency, its sub-groups. */
export interface ExpenseGroup {
  key: string | null;
  label: string;
  rows: TotalsRow[];
  subGroups?: ExpenseGroup[];
}

interface Counted {
  key: string | null;
  label: string;
  byCurrency: Map<string, { count: number; billable: Prisma.Decimal; cost: Prisma.Decimal }>;
  subGroups?: Map<string, Counted>;
}

type ReportedExpense = {
  date: Date | null;
  category: string;
  status: string;
  billable: boolean;
  currency: string;
  billedAmount: Prisma.Decimal | null;
  netAmount: Prisma.Decimal | null;
  tenantUserId: string;
  projectId: string | null;
  clientId: string | null;
  tenantUser: { name: string | null; email: string };
  project: { name: string } | null;
  client: { name: string } | null;
};

function keyOf(dimension: ReportDimension, expense: ReportedExpense, weekStart: ReportRange['settings']['weekStart']): { key: string | null; label: string } {
  const day = dayText(expense.date as Date);
  switch (dimension) {
    case 'user':
      return { key: expense.tenantUserId, label: expense.tenantUser.name ?? expense.tenantUser.email };
    case 'project':
      return { key: expense.projectId, label: expense.project?.name ?? 'No project' };
    case 'client':
      return { key: expense.clientId, label: expense.client?.name ?? 'No client' };
    case 'billable':
      return { key: String(expense.billable), label: expense.billable ? 'Billable' : 'Not billable' };
    case 'status':
      return { key: expense.status, label: expense.status };
    case 'day':
      return { key: day, label: labelOfBucket('day', day) };
    case 'week': {
      const key = weekOf(day, weekStart);
      return { key, label: labelOfBucket('week', key) };
    }
    case 'month':
      return { key: day.slice(0, 7), label: labelOfBucket('month', day.slice(0, 7)) };
    default:
      // The contract lets only category and its companions into an expense report.
      return { key: expense.category, label: expense.category };
  }
}

function count(into: Map<string, Counted>, { key, label }: { key: string | null; label: string }, expense: ReportedExpense): Counted {
  const mapKey = key === null ? '\u0000' : `k${key}`;
  let counted = into.get(mapKey);
  if (!counted) {
    counted = { key, label, byCurrency: new Map() };
    into.set(mapKey, counted);
  }
  const sums = counted.byCurrency.get(expense.currency) ?? { count: 0, billable: new Prisma.Decimal(0), cost: new Prisma.Decimal(0) };
  sums.count += 1;
  if (expense.billable) sums.billable = sums.billable.add(expense.billedAmount ?? 0);
  sums.cost = sums.cost.add(expense.netAmount ?? 0);
  counted.byCurrency.set(expense.currency, sums);
  return counted;
}

const rowsOf = (byCurrency: Counted['byCurrency']): TotalsRow[] =>
  [...byCurrency].map(([currency, sums]) => ({
    currency,
    entries: sums.count,
    durationMinutes: 0,
    billableMinutes: 0,
    billableAmount: sums.billable.toString(),
    costAmount: sums.cost.toString(),
  }));

/**
 * An expense report (groupBy or subGroupBy category): the period's expenses with an amount that the caller may read
 * (members: their own), filtered as the files filter them, per group and currency: `entries` counts expenses,
 * `billableAmount` sums what the billable ones bill (net plus markup), `costAmount` their nets; no minutes.
 */
export async function expenseGroups(
  db: Db,
  access: TenantAccess,
  range: ReportRange,
  dimensions: readonly ReportDimension[],
  filter: ReportFilter,
): Promise<{ totalsRows: TotalsRow[]; groups: ExpenseGroup[] }> {
  const expenses = await db.expense.findMany({
    where: {
      date: { gte: dayColumn(range.from), lte: dayColumn(range.to) },
      amount: { not: null },
      ...(filter.projectId ? { projectId: filter.projectId } : {}),
      ...(filter.clientId ? { clientId: filter.clientId } : {}),
      ...(filter.tenantUserId ? { tenantUserId: filter.tenantUserId } : {}),
      ...(filter.status ? { status: filter.status } : {}),
      ...(filter.billable === undefined ? {} : { billable: filter.billable }),
      ...(filter.invoiced === undefined ? {} : { clientInvoiceId: filter.invoiced ? { not: null } : null }),
      ...access.scope('read', 'Expense'),
    },
    select: {
      date: true,
      category: true,
      status: true,
      billable: true,
      currency: true,
      billedAmount: true,
      netAmount: true,
      tenantUserId: true,
      projectId: true,
      clientId: true,
      tenantUser: { select: { name: true, email: true } },
      project: { select: { name: true } },
      client: { select: { name: true } },
    },
  });
  const totals = new Map<string, Counted>();
  const groups = new Map<string, Counted>();
  for (const expense of expenses) {
    count(totals, { key: null, label: 'Total' }, expense);
    const group = count(groups, keyOf(dimensions[0] as ReportDimension, expense, range.settings.weekStart), expense);
    if (dimensions[1]) {
      group.subGroups ??= new Map();
      count(group.subGroups, keyOf(dimensions[1], expense, range.settings.weekStart), expense);
    }
  }
  const asGroup = (counted: Counted): ExpenseGroup => ({
    key: counted.key,
    label: counted.label,
    rows: rowsOf(counted.byCurrency),
    ...(counted.subGroups ? { subGroups: [...counted.subGroups.values()].map(asGroup) } : {}),
  });
  return { totalsRows: [...totals.values()].flatMap((counted) => rowsOf(counted.byCurrency)), groups: [...groups.values()].map(asGroup) };
}
