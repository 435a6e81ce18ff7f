import { builder } from '../../../graphql/builder.js';
import { graphqlEnum } from '../../../graphql/inputs.js';
import { tenantOperation } from '../../../graphql/operations.js';
import { rateField } from '../../../graphql/rates.js';
import { restOnly } from '../../../graphql/rest-only.js';
import { entryStatus, type EntryPageQuery } from '../../tracking/entry/entry.dto.js';
import {
  reportDimension,
  ReportEntriesArgs,
  SummaryArgs,
  type ReportEntry,
  type ReportGroup,
  type ReportSummary,
  type ReportTotals,
} from './report.contract.js';

const ReportDimensionEnum = graphqlEnum(reportDimension);

const ReportTotalsObject = builder.objectRef<ReportTotals>('ReportTotals').implement({
  description: 'What a set of entries (or, by absenceType, of absences) adds up to.',
  fields: (t) => ({
    currency: t.exposeString('currency', {
      nullable: true,
      description: 'ISO 4217: the currency of the amounts; null when the entries are in several (amounts are never added across currencies)',
    }),
    entries: t.exposeInt('entries', { description: 'How many entries (an entry with two tags counts in each tag group, once in the totals)' }),
    durationMinutes: t.exposeInt('durationMinutes'),
    billableMinutes: t.exposeInt('billableMinutes', { description: 'Minutes of billable entries' }),
    billableAmount: t.field(rateField<'billableAmount', ReportTotals>('billableAmount', 'Sum of billable amounts; null in several currencies.')),
    costAmount: t.field(rateField<'costAmount', ReportTotals>('costAmount', 'Sum of cost amounts; null in several currencies.')),
    absenceDays: t.exposeFloat('absenceDays', {
      nullable: true,
      description: 'Absence reports (absenceType) only: days of approved absence with time expected (a half day 0.5); null in entry reports',
    }),
    absenceMinutes: t.exposeInt('absenceMinutes', {
      nullable: true,
      description: "Absence reports only: the minutes the member's schedule expected on those days, after holidays (half days half); null in entry reports",
    }),
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
    totalsByCurrency: t.field({
      type: [ReportTotalsObject],
      description: 'The totals of each currency the group has entries in, in currency order',
      resolve: (group) => group.totalsByCurrency,
    }),
    subGroups: t.field({ type: [ReportGroupObject], nullable: true, resolve: (group) => group.subGroups ?? null }),
  }),
});

const ReportSummaryObject = builder.objectRef<ReportSummary>('ReportSummary').implement({
  description: 'Hours and money of the entries in a period, grouped.',
  fields: (t) => ({
    from: t.expose('from', { type: 'Date' }),
    to: t.expose('to', { type: 'Date' }),
    timezone: t.exposeString('timezone', { description: 'The time zone days, weeks and months are counted in' }),
    currency: t.exposeString('currency', {
      nullable: true,
      description: "The currency of every amount (the tenant's when there are none); null when the entries are in several: see totalsByCurrency",
    }),
    groupBy: t.expose('groupBy', { type: ReportDimensionEnum }),
    subGroupBy: t.expose('subGroupBy', { type: ReportDimensionEnum, nullable: true }),
    totals: t.field({
      type: ReportTotalsObject,
      description: 'Amounts are null when the entries are in several currencies',
      resolve: (summary) => summary.totals,
    }),
    totalsByCurrency: t.field({
      type: [ReportTotalsObject],
      description: 'The totals of each currency the entries are in, in currency order: amounts of two currencies are never added up',
      resolve: (summary) => summary.totalsByCurrency,
    }),
    groups: t.field({ type: [ReportGroupObject], resolve: (summary) => summary.groups }),
  }),
});

// REST's detailed report answers these; GraphQL reads the same entries as `Entry` through `reportEntries`.
builder.objectRef<ReportEntry>('ReportEntry').implement({
  description: 'An entry of a detailed report, with the names of its project, client, member and task.',
  extensions: restOnly,
  fields: (t) => ({
    id: t.exposeID('id'),
    startedAt: t.expose('startedAt', { type: 'DateTime' }),
    endedAt: t.expose('endedAt', { type: 'DateTime' }),
    durationMinutes: t.exposeInt('durationMinutes'),
    description: t.exposeString('description', { nullable: true }),
    billable: t.exposeBoolean('billable'),
    tags: t.exposeStringList('tags'),
    status: t.expose('status', { type: graphqlEnum(entryStatus) }),
    projectId: t.exposeID('projectId', { nullable: true }),
    projectName: t.exposeString('projectName', { nullable: true }),
    clientId: t.exposeID('clientId', { nullable: true }),
    clientName: t.exposeString('clientName', { nullable: true }),
    tenantUserId: t.exposeID('tenantUserId'),
    memberName: t.exposeString('memberName', { description: 'The member’s name, else their email' }),
    taskId: t.exposeID('taskId', { nullable: true }),
    taskTitle: t.exposeString('taskTitle', { nullable: true }),
    hourlyRate: t.field(rateField<'hourlyRate', ReportEntry>('hourlyRate', 'Billable rate per hour, as copied onto the entry.')),
    costRate: t.field(rateField<'costRate', ReportEntry>('costRate', 'Cost rate per hour, as copied onto the entry.')),
    billableAmount: t.field(rateField<'billableAmount', ReportEntry>('billableAmount', 'The entry’s billable amount.')),
    costAmount: t.field(rateField<'costAmount', ReportEntry>('costAmount', 'The entry’s cost amount.')),
    currency: t.exposeString('currency', { nullable: true, description: 'ISO 4217: the currency of the amounts' }),
    clientInvoiceId: t.exposeID('clientInvoiceId', { nullable: true, description: 'The live client invoice that bills it' }),
    invoiceNumber: t.exposeString('invoiceNumber', { nullable: true, description: 'That invoice’s number; null while it is a draft' }),
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
