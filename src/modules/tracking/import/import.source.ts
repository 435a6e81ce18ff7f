/**
 * What a source's reader is (one file per source: import.toggl.ts,
 * import.clockify.ts, import.harvest.ts, import.kimai.ts, import.generic.ts),
 * what it makes of a row, and the checks and spans they share.
 */
import { zonedInstant } from '../../../lib/time.js';
import { RowError, textOf } from './import.cells.js';
import { nextDay } from '../../../lib/day.js';

/** What a format makes of a row, before the shared rules (zero length, fingerprint) apply. */
export interface RowValues {
  /** Trimmed and lower-cased; null when the file has none. */
  email: string | null;
  /** The person's display name (Harvest: first and last name). */
  userName: string | null;
  client: string | null;
  project: string | null;
  task: string | null;
  description: string;
  /** Null when the file does not say. */
  billable: boolean | null;
  tags: string[];
  startedAt: Date;
  endedAt: Date;
  /** Decimal strings ("135.00"), null when the file has none. */
  billableRate: string | null;
  billableAmount: string | null;
  costRate: string | null;
  /** Minutes of break inside the span (a generic file that maps a column to it); none otherwise. */
  breakMinutes?: number;
}

/** A problem with the whole file (`file`) or with the mapping given for it (`mapping`). */
export class ImportFileError extends Error {
  constructor(
    readonly path: 'file' | 'mapping',
    message: string,
  ) {
    super(message);
    this.name = 'ImportFileError';
  }
}

/** A row by column name. */
export type Row = (column: string) => string | undefined;

export interface Format {
  /** Checks the header (ImportFileError) and returns how to read its rows. */
  reader(header: readonly string[]): (row: Row) => RowValues;
}

export function requireColumns(source: string, header: readonly string[], columns: readonly string[]): void {
  const missing = columns.filter((column) => !header.includes(column));
  if (missing.length > 0) {
    throw new ImportFileError(
      'file',
      `This is not a ${source} export: it has no ${missing.map((column) => `"${column}"`).join(', ')} column${missing.length > 1 ? 's' : ''} (its header: ${header.join(', ').slice(0, 300)})`,
    );
  }
}

/** The first header matching `pattern` (a currency in it: `Amount (EUR)`). */
export const columnLike = (header: readonly string[], pattern: RegExp): string | undefined => header.find((column) => pattern.test(column));

export function personOf(email: string | undefined, name: string | undefined): { email: string | null; userName: string | null } {
  const person = { email: textOf(email)?.toLowerCase() ?? null, userName: textOf(name) };
  if (person.email === null && person.userName === null) throw new RowError('names no person: it needs an email or a name');
  return person;
}

/** A local date and time span in `timeZone`; an end at or before the start (no end date) is on the next day. */
export function span(
  timeZone: string,
  start: { date: string; seconds: number },
  end: { date: string; seconds: number } | { seconds: number; nextDayWhenNotAfter: true },
): { startedAt: Date; endedAt: Date } {
  const startedAt = zonedInstant(start.date, start.seconds, timeZone);
  const endDate = 'date' in end ? end.date : end.seconds <= start.seconds ? nextDay(start.date) : start.date;
  const endedAt = zonedInstant(endDate, end.seconds, timeZone);
  if (endedAt.getTime() < startedAt.getTime()) throw new RowError('ends before it starts');
  return { startedAt, endedAt };
}
