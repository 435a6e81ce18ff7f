import { stringify } from 'csv-stringify/sync';

/** The columns of a Toggl Track detailed report (test/fixtures/imports/README.md), the amount last. */
const togglColumns = [
  'User',
  'Email',
  'Client',
  'Project',
  'Task',
  'Description',
  'Billable',
  'Start date',
  'Start time',
  'End date',
  'End time',
  'Duration',
  'Tags',
  'Amount (EUR)',
];

/** A Toggl detailed report of `rows` as Toggl writes it (a UTF-8 BOM first); rows of 13 fields leave the amount column out. */
export function togglCsv(rows: readonly (readonly string[])[]): string {
  const width = rows[0]?.length ?? togglColumns.length;
  return `\uFEFF${stringify([togglColumns.slice(0, width), ...rows])}`;
}
