import { nativeRoute } from '../../rest/route.js';
import { defineModule } from '../module.js';
import { createReportService, DetailedParameters, type ReportService, SummaryParameters } from './report.service.js';
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
      responses: { '200': { description: 'The summary', schema: summarySchema } },
      async handler({ access, parameters, context }) {
        const { tenantId: _tenant, from, to, timezone, groupBy, subGroupBy, fillGaps, ...filter } = parameters;
        return json(await context.services.reports.summary(access, { from, to, timezone, groupBy, subGroupBy, fillGaps }, filter));
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
      responses: { '200': { description: 'A page of entries', schema: detailedSchema } },
      async handler({ access, parameters, context }) {
        const { tenantId: _tenant, from, to, timezone, limit, offset, ...filter } = parameters;
        return json(await context.services.reports.detailed(access, { from, to, timezone, limit, offset }, filter));
      },
    }),
  ],
});

declare module '../services.js' {
  interface Services {
    reports: ReportService;
  }
}
