import type { TenantAccess } from '../../auth/tenant-access.js';
import { contentDisposition } from '../../lib/content-disposition.js';
import type { HttpResult } from '../../lib/problem.js';
import { nativeRoute } from '../../rest/route.js';
import { entryColumns, fileOf, mediaTypes, summaryColumns, summaryRows, type FileFormat, type Table } from './report.export.js';
import { defineModule } from '../module.js';
import { createReportService, DetailedParameters, type ReportFilter, type ReportService, SummaryParameters } from './report.service.js';
import './report.graphql.js';

const reports = '/tenants/{tenantId}/reports';

const json = (value: unknown) => ({
  status: 200 as const,
  headers: { 'content-type': 'application/json; charset=utf-8' },
  body: JSON.stringify(value),
});

/** The REST body of a summary: a JSON Schema written from the GraphQL types it mirrors. */
const totalsSchema = {
  type: 'object',
  required: ['entries', 'durationMinutes', 'billableMinutes', 'billableAmount', 'costAmount'],
  properties: {
    entries: { type: 'integer', description: 'How many entries (an entry with two tags counts in each tag group, once in the totals)' },
    durationMinutes: { type: 'integer' },
    billableMinutes: { type: 'integer' },
    billableAmount: { type: ['string', 'null'], description: 'A decimal string; null unless the caller may read rates' },
    costAmount: { type: ['string', 'null'], description: 'A decimal string; null unless the caller may read rates' },
  },
} as const;
const groupSchema = {
  type: 'object',
  required: ['key', 'label', 'totals'],
  properties: {
    key: { type: ['string', 'null'], description: 'The id, the value, or the first day of the period (2026-03-02; 2026-03 for a month); null for none' },
    label: { type: 'string', description: 'A name, not an id' },
    totals: totalsSchema,
  },
} as const;
const summarySchema = {
  type: 'object',
  required: ['from', 'to', 'timezone', 'currency', 'groupBy', 'subGroupBy', 'totals', 'groups'],
  properties: {
    from: { type: 'string', format: 'date' },
    to: { type: 'string', format: 'date' },
    timezone: { type: 'string' },
    currency: { type: 'string' },
    groupBy: { type: 'string' },
    subGroupBy: { type: ['string', 'null'] },
    totals: totalsSchema,
    groups: {
      type: 'array',
      items: { ...groupSchema, properties: { ...groupSchema.properties, subGroups: { type: 'array', items: groupSchema } } },
    },
  },
} as const;
const rate = { type: ['string', 'null'], description: 'A decimal string; null unless the caller may read rates' } as const;
const detailedSchema = {
  type: 'array',
  items: {
    type: 'object',
    properties: {
      id: { type: 'string' },
      startedAt: { type: 'string', format: 'date-time' },
      endedAt: { type: 'string', format: 'date-time' },
      durationMinutes: { type: 'integer' },
      description: { type: ['string', 'null'] },
      billable: { type: 'boolean' },
      tags: { type: 'array', items: { type: 'string' } },
      status: { type: 'string' },
      projectId: { type: ['string', 'null'] },
      projectName: { type: ['string', 'null'] },
      clientId: { type: ['string', 'null'] },
      clientName: { type: ['string', 'null'] },
      tenantUserId: { type: 'string' },
      memberName: { type: 'string' },
      taskId: { type: ['string', 'null'] },
      taskTitle: { type: ['string', 'null'] },
      hourlyRate: rate,
      costRate: rate,
      billableAmount: rate,
      costAmount: rate,
      currency: { type: ['string', 'null'] },
    },
  },
} as const;

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
        'An entry with two tags counts under each tag group, once in the totals. Amounts are null unless the caller may read rates.',
      access: ['read', 'Report'],
      parameters: SummaryParameters,
      responses: {
        '200': { description: 'The summary (format=json), or the file (format=csv, xlsx or pdf)', schema: summarySchema, ...files, headers: fileHeaders },
      },
      async handler({ access, parameters, context }) {
        const { tenantId: _tenant, from, to, timezone, groupBy, subGroupBy, fillGaps, format, ...filter } = parameters;
        const summary = await context.services.reports.summary(access, { from, to, timezone, groupBy, subGroupBy, fillGaps }, filter);
        if (format === 'json') return json(summary);
        return download(format, `tally-summary-${from}-${to}`, {
          title: 'Summary report',
          details: detailsOf(access, summary, filter, subGroupBy ? `${groupBy}, then ${subGroupBy}` : groupBy),
          columns: summaryColumns,
          batches: [summaryRows(summary)],
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
          schema: detailedSchema,
          ...files,
          headers: fileHeaders,
        },
      },
      async handler({ access, parameters, context }) {
        const { tenantId: _tenant, from, to, timezone, limit, offset, format, ...filter } = parameters;
        if (format === 'json') return json(await context.services.reports.detailed(access, { from, to, timezone, limit, offset }, filter));
        const zone = context.services.reports.timezoneOf(access, timezone);
        return download(format, `tally-entries-${from}-${to}`, {
          title: 'Detailed report',
          details: detailsOf(access, { from, to, timezone: zone }, filter),
          columns: entryColumns,
          batches: context.services.reports.exportRows(access, { from, to, timezone }, filter),
        });
      },
    }),
  ],
});

declare module '../services.js' {
  interface Services {
    reports: ReportService;
  }
}
