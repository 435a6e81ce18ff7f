/**
 * Expenses in report files (issue 40): every export of a period's entries
 * carries the period's expenses too, as rows of `type` expense with their
 * `category` (entries are rows of type time, with none). An expense row has
 * a day and no times or minutes; its billable amount is what its invoice
 * line bills (net plus markup, when billable), its cost amount its net.
 * The caller reads the expenses the Expense scope gives them (members:
 * their own), with the report's filters that expenses have: a task or tag
 * filter leaves them out.
 */
import type { TenantAccess } from '../../../auth/tenant-access.js';
import type { Parameters } from '../../../db/parameters.js';
import type { ReportFilter } from './report.contract.js';
import type { ReportRange } from './report.sql.js';

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
