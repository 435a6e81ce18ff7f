/**
 * What reports are, declared once: the dimensions they group by, the filters
 * and the period they take (REST parameters and GraphQL arguments alike, the
 * period by lib/period.ts), and the records they answer with. The
 * service, its SQL, the GraphQL types and the exports all import from here,
 * and from nothing of each other's.
 *
 * The records are the backing shapes of the GraphQL types in
 * report.graphql.ts, which describe them (REST answers through those types,
 * and OpenAPI is written from them). Rates and amounts are in every record as
 * the database has them: the GraphQL types decide who reads them (`Rate`),
 * for GraphQL, REST and the files alike.
 */
import { z } from 'zod';
import type { Prisma, Entry } from '../../../generated/prisma/client.js';
import { args, dto, fields, pagination } from '../../../lib/dto.js';
import { isTimeZone } from '../../../lib/time.js';
import { defineEnum } from '../../../lib/vocabulary.js';
import { entryStatus } from '../../tracking/entry/entry.dto.js';
import { isDay } from '../../../lib/day.js';
import { periodProblems } from '../../../lib/period.js';
import { exportFormats } from '../../../lib/table-file.js';

export const reportDimensions = ['project', 'client', 'user', 'task', 'tag', 'billable', 'status', 'day', 'week', 'month', 'absenceType', 'category'] as const;
export type ReportDimension = (typeof reportDimensions)[number];
export const reportDimension = defineEnum(
  'ReportDimension',
  reportDimensions,
  'What a report groups entries by; absenceType groups approved absences instead (with user, day, week or month only), category expenses (not with task, tag or absenceType)',
);

/** An expense report (groupBy or subGroupBy category) counts expenses, not entries: they have no task, tag or absence type. */
export const expenseCompanions: ReadonlySet<ReportDimension> = new Set(['project', 'client', 'user', 'billable', 'status', 'day', 'week', 'month']);
export const isExpenseReport = (input: { groupBy: ReportDimension; subGroupBy?: ReportDimension | undefined }): boolean =>
  input.groupBy === 'category' || input.subGroupBy === 'category';

/**
 * An absence report (groupBy or subGroupBy absenceType) counts approved absences, not entries: it may be combined
 * only with the dimensions an absence has (its member and its days), and filtered by member only (docs/decisions.md).
 */
export const absenceCompanions: ReadonlySet<ReportDimension> = new Set(['user', 'day', 'week', 'month']);
export const isAbsenceReport = (input: { groupBy: ReportDimension; subGroupBy?: ReportDimension | undefined }): boolean =>
  input.groupBy === 'absenceType' || input.subGroupBy === 'absenceType';

const filterFields = {
  projectId: fields.id('Only entries of this project').optional(),
  clientId: fields.id("Only entries of this client's projects").optional(),
  tenantUserId: fields.id("Only this member's entries").optional(),
  taskId: fields.id('Only entries of this task').optional(),
  status: entryStatus.schema('Only entries with this status').optional(),
  billable: z.boolean().optional().describe('Only billable (true) or only non-billable (false) entries'),
  tag: z.string().trim().min(1).max(50).toLowerCase().optional().describe('Only entries with this tag'),
  invoiced: z.boolean().optional().describe('Only entries on a live client invoice, a draft included (true), or on none (false): what is not billed yet'),
};

const periodFields = {
  from: fields.date('First day, inclusive, in the report’s time zone'),
  to: fields.date('Last day, inclusive, in the report’s time zone'),
  timezone: z.string().refine(isTimeZone, 'must be an IANA time zone such as Europe/Berlin').optional().describe("IANA time zone; default the tenant's"),
};

/**
 * The period rule (lib/period.ts). Zod runs this even when `from` or `to` failed its own check (a refinement of the
 * object sees the raw text), so it checks only text shaped like days: no Date is built from what a client sent.
 */
function checkRange(period: { from: string; to: string }, context: z.RefinementCtx): void {
  if (!isDay(period.from) || !isDay(period.to)) return;
  for (const problem of periodProblems(period.from, period.to)) context.addIssue({ code: 'custom', path: [problem.path], message: problem.message });
}

export const ReportFilterDto = dto('ReportFilter', 'Which entries a report covers (besides its period).', filterFields);

const tenantId = fields.id('Tenant id');
const summaryFields = {
  ...periodFields,
  groupBy: reportDimension.schema('The groups of the report'),
  subGroupBy: reportDimension.schema('Groups inside each group').optional(),
  fillGaps: z.boolean().default(false).describe('With a day, week or month grouping: empty periods too'),
};
type SummaryInput = { from: string; to: string; groupBy: ReportDimension; subGroupBy?: ReportDimension | undefined };

/** A report over other records than entries (absences, expenses): its dimension, what it combines with, which filters it takes. */
interface OtherReport {
  dimension: ReportDimension;
  companions: ReadonlySet<ReportDimension>;
  companionMessage: string;
  refusesFilter: (name: string) => boolean;
  filterMessage: string;
}

const absenceReport: OtherReport = {
  dimension: 'absenceType',
  companions: absenceCompanions,
  companionMessage: 'with absenceType, only user, day, week or month',
  refusesFilter: (name) => name !== 'tenantUserId',
  filterMessage: 'absences are filtered by member (tenantUserId) only',
};

const expenseReport: OtherReport = {
  dimension: 'category',
  companions: expenseCompanions,
  companionMessage: 'with category, not task, tag or absenceType (expenses have none)',
  refusesFilter: (name) => name === 'taskId' || name === 'tag',
  filterMessage: 'expenses have no task or tag',
};

/** Such a report's refusals: dimensions and filters its records do not have (REST has the filters flat, GraphQL in `filter`). */
function checkOtherReport(report: OtherReport, input: SummaryInput & { filter?: Record<string, unknown> | undefined }, context: z.RefinementCtx): void {
  if (input.groupBy !== report.dimension && input.subGroupBy !== report.dimension) return;
  const other = input.groupBy === report.dimension ? 'subGroupBy' : 'groupBy';
  const dimension = input[other];
  if (dimension !== undefined && dimension !== report.dimension && !report.companions.has(dimension)) {
    context.addIssue({ code: 'custom', path: [other], message: report.companionMessage });
  }
  const nested = 'filter' in input;
  const filter: Record<string, unknown> = (nested ? input.filter : input) ?? {};
  for (const name of Object.keys(filterFields)) {
    if (!report.refusesFilter(name) || filter[name] === undefined) continue;
    context.addIssue({ code: 'custom', path: nested ? ['filter', name] : [name], message: report.filterMessage });
  }
}

const checkSummary = (input: SummaryInput, context: z.RefinementCtx) => {
  checkRange(input, context);
  if (input.subGroupBy === input.groupBy) context.addIssue({ code: 'custom', path: ['subGroupBy'], message: 'must differ from groupBy' });
  checkOtherReport(absenceReport, input, context);
  checkOtherReport(expenseReport, input, context);
};

const format = z.enum(exportFormats).default('json').describe('json (the default), or a file: csv, xlsx or pdf');
/** The summary's query parameters over REST: the period, the grouping and the filters, flat. */
export const SummaryParameters = z.strictObject({ tenantId, ...summaryFields, ...filterFields, format }).superRefine(checkSummary);
/** The same over GraphQL, with the filters in `filter`. */
export const SummaryArgs = args({ tenantId, ...summaryFields, filter: ReportFilterDto.optional() }).superRefine(checkSummary);

export const DetailedParameters = z.strictObject({ tenantId, ...periodFields, ...filterFields, ...pagination, format }).superRefine(checkRange);
export const ReportEntriesArgs = args({ tenantId, ...periodFields, filter: ReportFilterDto.optional() }).superRefine(checkRange);

export type ReportFilter = z.output<typeof ReportFilterDto>;
export interface ReportPeriod {
  from: string;
  to: string;
  timezone?: string | undefined;
}

/** The GraphQL type `ReportTotals`. */
export interface ReportTotals {
  /** Whose totals: the Rate rule asks that tenant. */
  tenantId: string;
  /** The currency of the amounts; null when the entries are in several (the amounts are null then: see totalsByCurrency). */
  currency: string | null;
  entries: number;
  durationMinutes: number;
  billableMinutes: number;
  /** Exact decimal text ("1234.5"); null in several currencies, or once the Rate rule has hidden it (in a file). */
  billableAmount: string | null;
  costAmount: string | null;
  /** Absence reports only (null in entry reports): the days of approved absence (a half day 0.5) and their minutes. */
  absenceDays: number | null;
  absenceMinutes: number | null;
}

/** The GraphQL type `ReportGroup`. */
export interface ReportGroup {
  key: string | null;
  label: string;
  totals: ReportTotals;
  /** The totals of each currency, in currency order (none for a group without entries). */
  totalsByCurrency: ReportTotals[];
  subGroups?: ReportGroup[];
}

/** The GraphQL type `ReportSummary`. */
export interface ReportSummary {
  from: string;
  to: string;
  timezone: string;
  /** The currency of every amount; null when the entries are in several. */
  currency: string | null;
  groupBy: ReportDimension;
  subGroupBy: ReportDimension | null;
  totals: ReportTotals;
  totalsByCurrency: ReportTotals[];
  groups: ReportGroup[];
}

/** The GraphQL type `ReportEntry` (REST's detailed report): an entry with the names of what it belongs to. */
export interface ReportEntry {
  id: string;
  tenantId: string;
  startedAt: Date;
  /** Reports leave running timers out: every entry has ended. */
  endedAt: Date;
  durationMinutes: number;
  description: string | null;
  billable: boolean;
  tags: string[];
  status: Entry['status'];
  projectId: string | null;
  projectName: string | null;
  clientId: string | null;
  clientName: string | null;
  tenantUserId: string;
  memberName: string;
  taskId: string | null;
  taskTitle: string | null;
  hourlyRate: Prisma.Decimal | null;
  costRate: Prisma.Decimal | null;
  billableAmount: Prisma.Decimal | null;
  costAmount: Prisma.Decimal | null;
  currency: string | null;
  /** The live client invoice that bills it, and its number (null while that invoice is a draft). */
  clientInvoiceId: string | null;
  invoiceNumber: string | null;
}

/**
 * An entry as a file writes it: local date and times, names, amounts as
 * decimal text. Its rates and amounts carry the names of ReportEntry's, whose
 * Rate rule hides them.
 */
export type ExportRow = {
  /** An entry's time, or an expense (which has a day, a category and amounts, and no times). */
  type: 'time' | 'expense';
  date: string;
  start: string | null;
  end: string | null;
  minutes: number;
  member: string;
  client: string | null;
  project: string | null;
  task: string | null;
  description: string | null;
  /** An expense's category; null for time. */
  category: string | null;
  tags: string;
  billable: boolean;
  status: string;
  hourlyRate: string | null;
  billableAmount: string | null;
  costRate: string | null;
  costAmount: string | null;
  currency: string | null;
  /** The number of the client invoice that bills it ("draft" while that one is a draft). */
  invoice: string | null;
};
