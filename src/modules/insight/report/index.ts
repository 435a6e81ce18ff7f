import type { TenantAccess } from '../../../auth/tenant-access.js';
import { contentDisposition } from '../../../lib/content-disposition.js';
import type { HttpResult } from '../../../lib/problem.js';
import { nativeRoute } from '../../../rest/route.js';
import { defineModule } from '../../module.js';
import { fileOf, type FileFormat, mediaTypes, type Table } from '../../../lib/table-file.js';
import { DetailedParameters, isAbsenceReport, type ExportRow, type ReportFilter, type ReportSummary, SummaryParameters } from './report.contract.js';
import { absenceSummaryColumns, entryColumns, summaryColumns, summaryRows } from './report.export.js';
import { createReportService, type ReportService } from './report.service.js';
import './report.graphql.js';

const reports = '/tenants/{tenantId}/reports';

/** With format=csv, xlsx or pdf: the report as a file, streamed. */
const files = { contentType: Object.values(mediaTypes) };
const fileHeaders = { 'content-disposition': 'attachment, with a file name of the report and its period (with format=csv, xlsx or pdf)' };

/** The lines under a file's title: tenant, period, grouping, filters. */
function detailsOf(access: TenantAccess, period: { from: string; to: string; timezone: string }, filter: ReportFilter, grouping?: string): string[] {
  const filters = Object.entries(filter).filter(([, value]) => value !== undefined);
  return [
    `Tenant: ${access.tenant.name}`,
    `Period: ${period.from} to ${period.to} (${period.timezone})`,
    ...(grouping ? [`Grouped by: ${grouping}`] : []),
    ...(filters.length ? [`Filters: ${filters.map(([name, value]) => `${name} = ${String(value)}`).join(', ')}`] : []),
  ];
}

function download<Row>(format: FileFormat, name: string, table: Table<Row>): HttpResult {
  return {
    status: 200,
    headers: { 'content-type': mediaTypes[format], 'content-disposition': contentDisposition(`${name}.${format}`), 'x-content-type-options': 'nosniff' },
    body: fileOf(format, table),
  };
}

/** Reports: hours and money grouped any way, and the entries behind them. */
export const reportModule = defineModule({
  name: 'reports',
  createService: createReportService,
  tag: { name: 'Reports', description: 'Hours and money over a period, grouped, and the entries behind them' },
  routes: [
    nativeRoute({
      controller: 'report',
      action: 'summary',
      method: 'GET',
      path: `${reports}/summary`,
      summary: 'Totals and groups of the entries in a period',
      description:
        'The entries the caller may read (members: their own) that started between `from` and `to` (inclusive days in `timezone`, default the tenant’s), ' +
        'grouped by `groupBy` and optionally `subGroupBy`; running timers are left out. Weeks start on the tenant’s `weekStart`. ' +
        'An entry with two tags counts under each tag group, once in the totals. Amounts are null unless the caller may read rates. ' +
        'With `absenceType` (as groupBy or subGroupBy, alone or with user, day, week or month, filtered by tenantUserId only) the report counts ' +
        'the approved absences the caller may read instead: `absenceDays` (a half day 0.5) and `absenceMinutes` (what the schedule expected on them). ' +
        'With `category` (not with task, tag or absenceType; no task or tag filter) it counts the expenses of the period the caller may read instead: ' +
        '`entries` counts expenses, `billableAmount` sums what the billable ones bill (net plus markup) and `costAmount` their nets, per currency.',
      access: ['read', 'Report'],
      parameters: SummaryParameters,
      responses: {
        '200': {
          description: 'The summary (format=json), or the file (format=csv, xlsx or pdf)',
          graphqlType: 'ReportSummary',
          ...files,
          headers: fileHeaders,
        },
      },
      async handler({ access, parameters, context, respond, visible }) {
        const { tenantId: _tenant, from, to, timezone, groupBy, subGroupBy, fillGaps, format, ...filter } = parameters;
        const summary = await context.services.reports.summary(access, { from, to, timezone, groupBy, subGroupBy, fillGaps }, filter);
        if (format === 'json') return respond('ReportSummary', summary, 200);
        return download(format, `tally-summary-${from}-${to}`, {
          title: 'Summary report',
          details: detailsOf(access, summary, filter, subGroupBy ? `${groupBy}, then ${subGroupBy}` : groupBy),
          columns: isAbsenceReport({ groupBy, subGroupBy }) ? absenceSummaryColumns : summaryColumns,
          batches: [summaryRows(visible<ReportSummary>('ReportSummary')(summary))],
          // The totals, and each group that has sub-groups, in bold.
          emphasised: (row) => row.level === 'total' || (row.level === 'group' && subGroupBy !== undefined),
        });
      },
    }),
    nativeRoute({
      controller: 'report',
      action: 'detailed',
      method: 'GET',
      path: `${reports}/detailed`,
      summary: 'The entries of a period, with the names of what they belong to',
      description:
        'The same entries as the summary, newest first, paged (`limit`, `offset`), each with its project, client and member names and its amounts ' +
        '(null unless the caller may read rates).',
      access: ['read', 'Report'],
      parameters: DetailedParameters,
      responses: {
        '200': {
          description: 'A page of entries (format=json); a file holds every entry of the period',
          graphqlType: 'ReportEntry',
          list: true,
          ...files,
          headers: fileHeaders,
        },
      },
      async handler({ access, parameters, context, respond, visible }) {
        const { tenantId: _tenant, from, to, timezone, limit, offset, format, ...filter } = parameters;
        const reports = context.services.reports;
        if (format === 'json') return respond('ReportEntry', await reports.detailed(access, { from, to, timezone, limit, offset }, filter), 200);
        // A file's row carries ReportEntry's rates and amounts under their names: the type's Rate rule hides them.
        const seen = visible<ExportRow>('ReportEntry');
        const rows = reports.exportRows(access, { from, to, timezone }, filter);
        return download(format, `tally-entries-${from}-${to}`, {
          title: 'Detailed report',
          details: detailsOf(access, { from, to, timezone: reports.timezoneOf(access, timezone) }, filter),
          columns: entryColumns,
          batches: (async function* () {
            for await (const batch of rows) yield batch.map(seen);
          })(),
        });
      },
    }),
  ],
});

declare module '../../services.js' {
  interface Services {
    reports: ReportService;
  }
}
