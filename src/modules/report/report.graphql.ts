import { builder } from '../../graphql/builder.js';
import { graphqlEnum } from '../../graphql/inputs.js';
import { tenantOperation } from '../../graphql/operations.js';
import { rateVisibility } from '../../graphql/rates.js';
import type { EntryPageQuery } from '../entry/entry.dto.js';
import { reportDimension, ReportEntriesArgs, SummaryArgs, type ReportGroup, type ReportSummary, type ReportTotals } from './report.service.js';

const ReportDimensionEnum = graphqlEnum(reportDimension);

const ReportTotalsObject = builder.objectRef<ReportTotals>('ReportTotals').implement({
  description: 'What a set of entries adds up to.',
  fields: (t) => ({
    entries: t.exposeInt('entries', { description: 'How many entries (an entry with two tags counts in each tag group, once in the totals)' }),
    durationMinutes: t.exposeInt('durationMinutes'),
    billableMinutes: t.exposeInt('billableMinutes', { description: 'Minutes of billable entries' }),
    billableAmount: t.expose('billableAmount', { type: 'Decimal', nullable: true, description: `Sum of billable amounts. ${rateVisibility}` }),
    costAmount: t.expose('costAmount', { type: 'Decimal', nullable: true, description: `Sum of cost amounts. ${rateVisibility}` }),
  }),
});

const ReportGroupObject = builder.objectRef<ReportGroup>('ReportGroup');
ReportGroupObject.implement({
  description: 'One group of a report, with its sub-groups when the report has a second grouping.',
  fields: (t) => ({
    key: t.exposeString('key', {
      nullable: true,
      description:
        'The id (project, client, user, task), the value (tag, billable, status), or the first day of the period (2026-03-02; 2026-03 for a month); null for none',
    }),
    label: t.exposeString('label', { description: 'A name, not an id ("No project" for entries without one)' }),
    totals: t.field({ type: ReportTotalsObject, resolve: (group) => group.totals }),
    subGroups: t.field({ type: [ReportGroupObject], nullable: true, resolve: (group) => group.subGroups ?? null }),
  }),
});

const ReportSummaryObject = builder.objectRef<ReportSummary>('ReportSummary').implement({
  description: 'Hours and money of the entries in a period, grouped.',
  fields: (t) => ({
    from: t.expose('from', { type: 'Date' }),
    to: t.expose('to', { type: 'Date' }),
    timezone: t.exposeString('timezone', { description: 'The time zone days, weeks and months are counted in' }),
    currency: t.exposeString('currency', { description: "The tenant's currency" }),
    groupBy: t.expose('groupBy', { type: ReportDimensionEnum }),
    subGroupBy: t.expose('subGroupBy', { type: ReportDimensionEnum, nullable: true }),
    totals: t.field({ type: ReportTotalsObject, resolve: (summary) => summary.totals }),
    groups: t.field({ type: [ReportGroupObject], resolve: (summary) => summary.groups }),
  }),
});

const readSummary = tenantOperation(SummaryArgs, ['read', 'Report']);
const readEntries = tenantOperation(ReportEntriesArgs, ['read', 'Report']);

builder.queryFields((t) => ({
  reportSummary: t.field({
    type: ReportSummaryObject,
    description:
      'Totals and groups of the entries the caller may read (members: their own) that started in the period, in the report’s time zone; running timers are left out.',
    ...readSummary.field(t),
    resolve: readSummary.resolve((input, access, { services }) => {
      const { filter, ...summary } = input;
      return services.reports.summary(access, summary, filter ?? {});
    }),
  }),
  reportEntries: t.prismaConnection(
    {
      type: 'Entry',
      cursor: 'id',
      description:
        'The entries of a report, newest first, as a Relay connection (their project, client and member through their relations; amounts as the Rate permission says).',
      ...readEntries.field(t),
      resolve: readEntries.resolveQuery((input, access, query: EntryPageQuery, { services }) => {
        const { filter, tenantId: _tenant, ...period } = input;
        return services.reports.entries(access, period, filter ?? {}, query);
      }),
    },
    { name: 'ReportEntryConnection' },
    { name: 'ReportEntryEdge' },
  ),
}));
