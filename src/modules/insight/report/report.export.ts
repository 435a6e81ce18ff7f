/**
 * Reports as files: the columns of the detailed entries and of a summary, and
 * the summary's groups as rows. The file formats are the table writer's
 * (lib/table-file.ts); the same rows and totals as the JSON, dates and times
 * in the report's time zone.
 */
import type { Column } from '../../../lib/table-file.js';
import type { ExportRow, ReportGroup, ReportSummary, ReportTotals } from './report.contract.js';

/** Decimal hours of a number of minutes, to two places (a column of `kind: 'hours'`). */
const decimalHours = (minutes: number): number => Math.round((minutes / 60) * 100) / 100;

/** The entry's currency, for its rates and amounts. */
const entryCurrency = (row: ExportRow) => row.currency;

/** Every column in CSV and XLSX; the PDF, for people on a page, shows the twelve with a width (hours, not minutes). */
export const entryColumns: readonly Column<ExportRow>[] = [
  { header: 'Date', kind: 'text', value: (row) => row.date, pdfWidth: 54 },
  { header: 'Start', kind: 'text', value: (row) => row.start, pdfWidth: 30 },
  { header: 'End', kind: 'text', value: (row) => row.end, pdfWidth: 30 },
  { header: 'Minutes', kind: 'count', value: (row) => row.minutes },
  { header: 'Hours', kind: 'hours', value: (row) => decimalHours(row.minutes), pdfWidth: 40 },
  { header: 'Member', kind: 'text', value: (row) => row.member, pdfWidth: 90 },
  { header: 'Client', kind: 'text', value: (row) => row.client, pdfWidth: 90 },
  { header: 'Project', kind: 'text', value: (row) => row.project, pdfWidth: 100 },
  { header: 'Task', kind: 'text', value: (row) => row.task },
  { header: 'Description', kind: 'text', value: (row) => row.description, pdfWidth: 80 },
  { header: 'Tags', kind: 'text', value: (row) => row.tags },
  { header: 'Billable', kind: 'text', value: (row) => row.billable },
  { header: 'Status', kind: 'text', value: (row) => row.status },
  { header: 'Hourly rate', kind: 'money', currency: entryCurrency, value: (row) => row.hourlyRate },
  { header: 'Billable amount', kind: 'money', currency: entryCurrency, value: (row) => row.billableAmount, pdfWidth: 60 },
  { header: 'Cost rate', kind: 'money', currency: entryCurrency, value: (row) => row.costRate },
  { header: 'Cost amount', kind: 'money', currency: entryCurrency, value: (row) => row.costAmount },
  { header: 'Currency', kind: 'text', value: (row) => row.currency, pdfWidth: 44 },
  { header: 'Invoice', kind: 'text', value: (row) => row.invoice },
  // Last: a program that reads the columns by their place reads what it read before expenses came (issue 40).
  { header: 'Type', kind: 'text', value: (row) => row.type, pdfWidth: 40 },
  { header: 'Category', kind: 'text', value: (row) => row.category, pdfWidth: 60 },
];

/**
 * A summary's groups as rows: each group, then its sub-groups, then the totals; one row for each currency a group
 * has entries in (amounts of two currencies are never added up), with its entries and minutes.
 */
export interface SummaryRow {
  level: 'group' | 'subGroup' | 'total';
  group: string;
  subGroup: string;
  totals: ReportTotals;
}

const summaryCurrency = (row: SummaryRow) => row.totals.currency;

export const summaryColumns: readonly Column<SummaryRow>[] = [
  // Files for programs repeat the group on each of its sub-groups; people read it once.
  { header: 'Group', kind: 'text', value: (row) => row.group, printed: (row) => (row.level === 'subGroup' ? '' : row.group), pdfWidth: 150 },
  { header: 'Sub-group', kind: 'text', value: (row) => row.subGroup, pdfWidth: 130 },
  { header: 'Entries', kind: 'count', value: (row) => row.totals.entries, pdfWidth: 45 },
  { header: 'Minutes', kind: 'count', value: (row) => row.totals.durationMinutes, pdfWidth: 50 },
  { header: 'Hours', kind: 'hours', value: (row) => decimalHours(row.totals.durationMinutes), pdfWidth: 45 },
  { header: 'Billable minutes', kind: 'count', value: (row) => row.totals.billableMinutes, pdfWidth: 55 },
  { header: 'Billable amount', kind: 'money', currency: summaryCurrency, value: (row) => row.totals.billableAmount, pdfWidth: 70 },
  { header: 'Cost amount', kind: 'money', currency: summaryCurrency, value: (row) => row.totals.costAmount, pdfWidth: 70 },
  { header: 'Currency', kind: 'text', value: (row) => row.totals.currency, pdfWidth: 50 },
];

/** An absence report's columns: days and time, no entries and no money. */
export const absenceSummaryColumns: readonly Column<SummaryRow>[] = [
  { header: 'Group', kind: 'text', value: (row) => row.group, printed: (row) => (row.level === 'subGroup' ? '' : row.group), pdfWidth: 150 },
  { header: 'Sub-group', kind: 'text', value: (row) => row.subGroup, pdfWidth: 130 },
  // Two places, as hours have: half days (0.5) must not round away in a sheet.
  { header: 'Days', kind: 'hours', value: (row) => row.totals.absenceDays ?? 0, pdfWidth: 50 },
  { header: 'Minutes', kind: 'count', value: (row) => row.totals.absenceMinutes ?? 0, pdfWidth: 50 },
  { header: 'Hours', kind: 'hours', value: (row) => decimalHours(row.totals.absenceMinutes ?? 0), pdfWidth: 45 },
];

/** A group's totals per currency: those of each currency it has entries in, else its (empty) totals. */
const perCurrency = (group: Pick<ReportGroup, 'totals' | 'totalsByCurrency'>): ReportTotals[] =>
  group.totalsByCurrency.length > 0 ? group.totalsByCurrency : [group.totals];

/** The summary's rows, as the caller sees the summary (amounts null without the Rate permission). */
export function summaryRows(summary: ReportSummary): SummaryRow[] {
  const rows = summary.groups.flatMap((group: ReportGroup): SummaryRow[] => [
    ...perCurrency(group).map((totals): SummaryRow => ({ level: 'group', group: group.label, subGroup: '', totals })),
    ...(group.subGroups ?? []).flatMap((sub) =>
      perCurrency(sub).map((totals): SummaryRow => ({ level: 'subGroup', group: group.label, subGroup: sub.label, totals })),
    ),
  ]);
  return [...rows, ...perCurrency(summary).map((totals): SummaryRow => ({ level: 'total', group: 'Total', subGroup: '', totals }))];
}
