/**
 * Reading other time trackers' CSV exports (Toggl, Clockify, Harvest,
 * Kimai) and mapped CSV files into entries, one row at a time. What each
 * format looks like, and where each fact comes from, is in
 * test/fixtures/imports/README.md; the rules a row is judged by are there
 * too ("How Tally reads them"). Parsing is csv-parse's, streaming: a file
 * is never held whole.
 *
 * Columns are found by their header, not their position (exports can drop
 * or add columns). A problem with the whole file (a missing column, a
 * mapping naming a column the file lacks) throws ImportFileError before
 * the first row; a problem with one row makes that row `failed` and the
 * others go on.
 */
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import type { ImportSource } from '../../generated/prisma/enums.js';
import { nextDate, zonedInstant } from '../../lib/time.js';

/** The sources, one list: the database's enum (prisma/schema.prisma). */
export type { ImportSource };

/** The fields a generic file's `mapping` may name: field -> the file's column header. */
export const genericMappingFields = [
  'date',
  'startTime',
  'endDate',
  'endTime',
  'duration',
  'email',
  'userName',
  'client',
  'project',
  'task',
  'description',
  'billable',
  'tags',
  'billableRate',
  'billableAmount',
  'costRate',
] as const;
export type GenericMappingField = (typeof genericMappingFields)[number];
export type GenericMapping = Partial<Record<GenericMappingField, string>>;

/** What a format makes of a row, before the shared rules (zero length, fingerprint) apply. */
interface RowValues {
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
}

/** One row read as an entry. */
export interface ImportedEntry extends RowValues {
  /** round(seconds / 60): 30 s round up. */
  durationMinutes: number;
  /** The source and the row's normalised fields, hashed: the same row has the same fingerprint in any file. */
  fingerprint: string;
}

export type ParsedRow =
  | { row: number; outcome: 'entry'; entry: ImportedEntry }
  | { row: number; outcome: 'skipped'; reason: string }
  | { row: number; outcome: 'failed'; message: string };

export interface ImportFormatOptions {
  source: ImportSource;
  /** The IANA zone of the file's local dates and times. */
  timeZone: string;
  mapping?: GenericMapping;
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

/** A row's problem: the row fails with this message. */
class RowError extends Error {}

type Input = AsyncIterable<Buffer | string> | NodeJS.ReadableStream;

// ---------------------------------------------------------------------------
// Values

const yesNo: Record<string, boolean> = { yes: true, no: false, true: true, false: false, '1': true, '0': false };

function isRealDate(year: number, month: number, day: number): boolean {
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

const isoDateOf = (year: number, month: number, day: number): string =>
  `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;

/** `YYYY-MM-DD`, a real day. */
function isoDate(value: string, column: string): string {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value.trim());
  if (!match || !isRealDate(Number(match[1]), Number(match[2]), Number(match[3]))) {
    throw new RowError(`${column} "${value}" is not a date (YYYY-MM-DD)`);
  }
  return value.trim();
}

/** Clockify's `MM/DD/YYYY` (a first number over 12 is a DD/MM export, which Tally cannot tell apart safely). */
function usDate(value: string, column: string): string {
  const match = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/.exec(value.trim());
  const [month, day, year] = match ? [Number(match[1]), Number(match[2]), Number(match[3])] : [0, 0, 0];
  if (!match || !isRealDate(year, month, day)) {
    throw new RowError(`${column} "${value}" is not a date (MM/DD/YYYY: export with the English date format)`);
  }
  return isoDateOf(year, month, day);
}

/** `H:MM` or `HH:MM:SS`, 24-hour, as seconds past midnight. */
function time24(value: string, column: string): number {
  const match = /^(\d{1,2}):(\d{2})(?::(\d{2}))?$/.exec(value.trim());
  const [hours, minutes, seconds] = match ? [Number(match[1]), Number(match[2]), Number(match[3] ?? 0)] : [99, 0, 0];
  if (!match || hours > 23 || minutes > 59 || seconds > 59) throw new RowError(`${column} "${value}" is not a time (HH:MM or HH:MM:SS, 24-hour)`);
  return hours * 3600 + minutes * 60 + seconds;
}

/** `hh:mm AM` or `hh:mm:ss PM` (12 AM is just after midnight, 12 PM just after noon). */
function time12(value: string, column: string): number {
  const match = /^(\d{1,2}):(\d{2})(?::(\d{2}))?\s*([AaPp][Mm])$/.exec(value.trim());
  const [hours, minutes, seconds] = match ? [Number(match[1]), Number(match[2]), Number(match[3] ?? 0)] : [99, 0, 0];
  if (!match || hours < 1 || hours > 12 || minutes > 59 || seconds > 59) throw new RowError(`${column} "${value}" is not a time (hh:mm AM or hh:mm:ss PM)`);
  const afternoon = (match[4] as string).toUpperCase() === 'PM';
  return ((hours % 12) + (afternoon ? 12 : 0)) * 3600 + minutes * 60 + seconds;
}

/**
 * A number as a decimal string, in either convention: with both `.` and `,`
 * the last one is the decimal mark (`2.000,0`, `1,020.50`); a lone `,` is
 * one (`1,5`, Harvest's decimal comma) unless it groups thousands (`1,000,000`).
 */
export function decimalOf(value: string): string | null {
  let text = value.trim().replace(/[\s\u00a0']/g, '');
  if (text === '') return null;
  const comma = text.lastIndexOf(',');
  const dot = text.lastIndexOf('.');
  if (comma >= 0 && dot >= 0) text = comma > dot ? text.replace(/\./g, '').replace(',', '.') : text.replace(/,/g, '');
  else if (comma >= 0) text = (text.match(/,/g) ?? []).length > 1 ? text.replace(/,/g, '') : text.replace(',', '.');
  return /^-?\d+(\.\d+)?$/.test(text) ? text : null;
}

/** A duration: `H:MM` or `H:MM:SS`, or decimal hours; in seconds. */
function durationSeconds(value: string, column: string): number {
  const clock = /^(\d+):(\d{2})(?::(\d{2}))?$/.exec(value.trim());
  if (clock) return Number(clock[1]) * 3600 + Number(clock[2]) * 60 + Number(clock[3] ?? 0);
  const hours = decimalOf(value);
  if (hours === null || Number(hours) < 0) throw new RowError(`${column} "${value}" is not a duration (H:MM, H:MM:SS or decimal hours)`);
  return Math.round(Number(hours) * 3600);
}

function billableOf(value: string | undefined, column: string): boolean | null {
  if (value === undefined || value.trim() === '') return null;
  const known = yesNo[value.trim().toLowerCase()];
  if (known === undefined) throw new RowError(`${column} "${value}" is not one of Yes, No, true, false, 1, 0`);
  return known;
}

const tagsOf = (value: string | undefined): string[] => [
  ...new Set(
    (value ?? '')
      .split(',')
      .map((tag) => tag.trim())
      .filter((tag) => tag !== ''),
  ),
];

const textOf = (value: string | undefined): string | null => {
  const trimmed = value?.trim() ?? '';
  return trimmed === '' ? null : trimmed;
};

/**
 * Kimai writes `' ` before a text a spreadsheet would run as a formula (one
 * starting with `=`, `-`, `@`, `+`, a tab or a line break, or holding "DDE"):
 * the text is what follows. A `' ` Kimai would not have added stays.
 */
const withoutFormulaGuard = (value: string): string => {
  if (!value.startsWith("' ")) return value;
  const text = value.slice(2);
  return /^[=\-@+\t\r\n]/.test(text) || /dde/i.test(text) ? text : value;
};

// ---------------------------------------------------------------------------
// Formats

/** A row by column name. */
type Row = (column: string) => string | undefined;

interface Format {
  /** Checks the header (ImportFileError) and returns how to read its rows. */
  reader(header: readonly string[]): (row: Row) => RowValues;
}

function requireColumns(source: string, header: readonly string[], columns: readonly string[]): void {
  const missing = columns.filter((column) => !header.includes(column));
  if (missing.length > 0) {
    throw new ImportFileError(
      'file',
      `This is not a ${source} export: it has no ${missing.map((column) => `"${column}"`).join(', ')} column${missing.length > 1 ? 's' : ''} (its header: ${header.join(', ').slice(0, 300)})`,
    );
  }
}

/** The first header matching `pattern` (a currency in it: `Amount (EUR)`). */
const columnLike = (header: readonly string[], pattern: RegExp): string | undefined => header.find((column) => pattern.test(column));

function personOf(email: string | undefined, name: string | undefined): { email: string | null; userName: string | null } {
  const person = { email: textOf(email)?.toLowerCase() ?? null, userName: textOf(name) };
  if (person.email === null && person.userName === null) throw new RowError('names no person: it needs an email or a name');
  return person;
}

/** A local date and time span in `timeZone`; an end at or before the start (no end date) is on the next day. */
function span(
  timeZone: string,
  start: { date: string; seconds: number },
  end: { date: string; seconds: number } | { seconds: number; nextDayWhenNotAfter: true },
): { startedAt: Date; endedAt: Date } {
  const startedAt = zonedInstant(start.date, start.seconds, timeZone);
  const endDate = 'date' in end ? end.date : end.seconds <= start.seconds ? nextDate(start.date) : start.date;
  const endedAt = zonedInstant(endDate, end.seconds, timeZone);
  if (endedAt.getTime() < startedAt.getTime()) throw new RowError('ends before it starts');
  return { startedAt, endedAt };
}

const toggl = (timeZone: string): Format => ({
  reader(header) {
    requireColumns('Toggl', header, ['Start date', 'Start time', 'End date', 'End time']);
    if (!header.includes('Email') && !header.includes('User')) requireColumns('Toggl', header, ['Email']);
    const amount = columnLike(header, /^Amount \(.*\)$/);
    return (row) => ({
      ...personOf(row('Email'), row('User')),
      client: textOf(row('Client')),
      project: textOf(row('Project')),
      task: textOf(row('Task')),
      description: row('Description')?.trim() ?? '',
      billable: billableOf(row('Billable'), 'Billable'),
      tags: tagsOf(row('Tags')),
      ...span(
        timeZone,
        { date: isoDate(row('Start date') ?? '', 'Start date'), seconds: time24(row('Start time') ?? '', 'Start time') },
        { date: isoDate(row('End date') ?? '', 'End date'), seconds: time24(row('End time') ?? '', 'End time') },
      ),
      billableRate: null,
      billableAmount: amount ? decimalOf(row(amount) ?? '') : null,
      costRate: null,
    });
  },
});

const clockify = (timeZone: string): Format => ({
  reader(header) {
    requireColumns('Clockify', header, ['Start Date', 'Start Time', 'End Date', 'End Time']);
    if (!header.includes('Email') && !header.includes('User')) requireColumns('Clockify', header, ['Email']);
    const taskColumn = header.includes('Task') ? 'Task' : 'Activity';
    const rate = columnLike(header, /^Billable Rate \(.*\)$/);
    const amount = columnLike(header, /^Billable Amount \(.*\)$/);
    return (row) => ({
      ...personOf(row('Email'), row('User')),
      client: textOf(row('Client')),
      project: textOf(row('Project')),
      task: textOf(row(taskColumn)),
      description: row('Description')?.trim() ?? '',
      billable: billableOf(row('Billable'), 'Billable'),
      tags: tagsOf(row('Tags')),
      ...span(
        timeZone,
        { date: usDate(row('Start Date') ?? '', 'Start Date'), seconds: time12(row('Start Time') ?? '', 'Start Time') },
        { date: usDate(row('End Date') ?? '', 'End Date'), seconds: time12(row('End Time') ?? '', 'End Time') },
      ),
      billableRate: rate ? decimalOf(row(rate) ?? '') : null,
      billableAmount: amount ? decimalOf(row(amount) ?? '') : null,
      costRate: null,
    });
  },
});

/** Harvest has a date and hours, no times: an entry starts at 00:00 local on its date. */
const harvest = (timeZone: string): Format => ({
  reader(header) {
    requireColumns('Harvest', header, ['Date', 'Hours', 'First Name', 'Last Name']);
    return (row) => {
      const date = isoDate(row('Date') ?? '', 'Date');
      const hours = decimalOf(row('Hours') ?? '');
      if (hours === null || Number(hours) < 0) throw new RowError(`Hours "${row('Hours') ?? ''}" is not a number of hours`);
      const startedAt = zonedInstant(date, 0, timeZone);
      const name = [textOf(row('First Name')), textOf(row('Last Name'))].filter((part) => part !== null).join(' ');
      return {
        ...personOf(undefined, name),
        client: textOf(row('Client')),
        project: textOf(row('Project')),
        task: textOf(row('Task')),
        description: row('Notes')?.trim() ?? '',
        billable: billableOf(row('Billable?'), 'Billable?'),
        tags: [],
        startedAt,
        endedAt: new Date(startedAt.getTime() + Math.round(Number(hours) * 60) * 60_000),
        billableRate: decimalOf(row('Billable Rate') ?? ''),
        billableAmount: decimalOf(row('Billable Amount') ?? ''),
        costRate: decimalOf(row('Cost Rate') ?? ''),
      };
    };
  },
});

/** Kimai: `Date`, `From`, `To` and no end date (`To` at or before `From` is the next day; `Duration` tells 0 from 24 hours). */
const kimai = (timeZone: string): Format => ({
  reader(header) {
    requireColumns('Kimai', header, ['Date', 'From', 'To']);
    if (!header.includes('E-mail') && !header.includes('Name') && !header.includes('User')) requireColumns('Kimai', header, ['E-mail']);
    return (row) => {
      const date = isoDate(row('Date') ?? '', 'Date');
      const from = time24(row('From') ?? '', 'From');
      const to = time24(row('To') ?? '', 'To');
      const duration = textOf(row('Duration'));
      const zero = to === from && duration !== null && durationSeconds(duration, 'Duration') === 0;
      const times = zero
        ? { startedAt: zonedInstant(date, from, timeZone), endedAt: zonedInstant(date, from, timeZone) }
        : span(timeZone, { date, seconds: from }, { seconds: to, nextDayWhenNotAfter: true });
      return {
        ...personOf(row('E-mail'), row('Name') ?? row('User')),
        client: textOf(row('Customer')),
        project: textOf(row('Project')),
        task: textOf(row('Activity')),
        description: withoutFormulaGuard(row('Description') ?? '').trim(),
        billable: billableOf(row('Billable'), 'Billable'),
        tags: tagsOf(row('Tags')),
        ...times,
        billableRate: decimalOf(row('Hourly price') ?? ''),
        billableAmount: decimalOf(row('Price') ?? ''),
        costRate: null,
      };
    };
  },
});

/** Checks a generic file's mapping: known fields, column names, and enough to make an entry of a row. */
export function checkMapping(mapping: unknown): GenericMapping {
  if (typeof mapping !== 'object' || mapping === null || Array.isArray(mapping)) {
    throw new ImportFileError(
      'mapping',
      'must be a JSON object of field -> column header, e.g. {"date":"Day","startTime":"Start","endTime":"End","email":"Mail"}',
    );
  }
  const checked: GenericMapping = {};
  for (const [field, column] of Object.entries(mapping)) {
    if (!(genericMappingFields as readonly string[]).includes(field)) {
      throw new ImportFileError('mapping', `has an unknown field "${field}"; the fields are ${genericMappingFields.join(', ')}`);
    }
    if (typeof column !== 'string' || column.trim() === '' || column.length > 200) {
      throw new ImportFileError('mapping', `maps "${field}" to ${JSON.stringify(column)}: a column header is a non-empty text`);
    }
    checked[field as GenericMappingField] = column;
  }
  const missing: string[] = [];
  if (!checked.date) missing.push('date');
  if (!checked.duration && !(checked.startTime && checked.endTime)) missing.push('startTime and endTime (or duration)');
  if (!checked.email && !checked.userName) missing.push('email or userName');
  if (missing.length > 0) throw new ImportFileError('mapping', `needs ${missing.join(', ')}`);
  return checked;
}

/**
 * A mapped file: dates `YYYY-MM-DD`, times 24-hour. With start and end, an
 * end at or before the start without an end date is on the next day; with
 * a duration and no end, the entry lasts that long from its start (00:00
 * without a start time).
 */
const generic = (timeZone: string, mapping: GenericMapping): Format => ({
  reader(header) {
    const missing = Object.entries(mapping).filter(([, column]) => !header.includes(column));
    if (missing.length > 0) {
      throw new ImportFileError(
        'mapping',
        `names ${missing.map(([field, column]) => `"${column}" (${field})`).join(', ')}, which the file does not have; its columns are ${header.join(', ').slice(0, 300)}`,
      );
    }
    const value = (row: Row, field: GenericMappingField): string | undefined => (mapping[field] ? row(mapping[field]) : undefined);
    return (row) => {
      const date = isoDate(value(row, 'date') ?? '', mapping.date as string);
      const startText = textOf(value(row, 'startTime'));
      const start = startText === null ? 0 : time24(startText, mapping.startTime as string);
      const endText = textOf(value(row, 'endTime'));
      const durationText = textOf(value(row, 'duration'));
      let times: { startedAt: Date; endedAt: Date };
      if (endText !== null) {
        const end = time24(endText, mapping.endTime as string);
        const endDate = textOf(value(row, 'endDate'));
        times = endDate
          ? span(timeZone, { date, seconds: start }, { date: isoDate(endDate, mapping.endDate as string), seconds: end })
          : span(timeZone, { date, seconds: start }, { seconds: end, nextDayWhenNotAfter: true });
      } else if (durationText !== null) {
        const startedAt = zonedInstant(date, start, timeZone);
        times = { startedAt, endedAt: new Date(startedAt.getTime() + durationSeconds(durationText, mapping.duration as string) * 1000) };
      } else {
        throw new RowError(
          `has neither ${mapping.endTime ? `an end time (${mapping.endTime})` : ''}${mapping.endTime && mapping.duration ? ' nor ' : ''}${mapping.duration ? `a duration (${mapping.duration})` : ''}`,
        );
      }
      return {
        ...personOf(value(row, 'email'), value(row, 'userName')),
        client: textOf(value(row, 'client')),
        project: textOf(value(row, 'project')),
        task: textOf(value(row, 'task')),
        description: value(row, 'description')?.trim() ?? '',
        billable: billableOf(value(row, 'billable'), mapping.billable ?? 'billable'),
        tags: tagsOf(value(row, 'tags')),
        ...times,
        billableRate: decimalOf(value(row, 'billableRate') ?? ''),
        billableAmount: decimalOf(value(row, 'billableAmount') ?? ''),
        costRate: decimalOf(value(row, 'costRate') ?? ''),
      };
    };
  },
});

function formatOf({ source, timeZone, mapping }: ImportFormatOptions): Format {
  switch (source) {
    case 'toggl':
      return toggl(timeZone);
    case 'clockify':
      return clockify(timeZone);
    case 'harvest':
      return harvest(timeZone);
    case 'kimai':
      return kimai(timeZone);
    case 'generic':
      if (!mapping) throw new ImportFileError('mapping', 'is required for a generic file');
      return generic(timeZone, mapping);
  }
}

// ---------------------------------------------------------------------------
// Files

/** Magic numbers of what people send instead of a CSV. */
const binarySignatures = [
  Buffer.from('%PDF'),
  Buffer.from([0x50, 0x4b, 0x03, 0x04]),
  Buffer.from([0x89, 0x50, 0x4e, 0x47]),
  Buffer.from('GIF8'),
  Buffer.from([0xff, 0xd8, 0xff]),
  Buffer.from([0xd0, 0xcf, 0x11, 0xe0]),
];

/** True when the first bytes read as UTF-8 text, not a PDF, spreadsheet, image or other binary. */
export function looksLikeCsv(head: Buffer): boolean {
  if (binarySignatures.some((signature) => head.subarray(0, signature.length).equals(signature))) return false;
  if (head.includes(0)) return false;
  const decoder = new TextDecoder('utf-8', { fatal: true });
  // The head may end inside a character: up to three bytes of it may be cut off.
  for (let cut = 0; cut <= Math.min(3, head.length); cut++) {
    try {
      decoder.decode(head.subarray(0, head.length - cut));
      return true;
    } catch {
      // try without the last bytes
    }
  }
  return false;
}

/**
 * The file's records as arrays of fields (blank lines are no records), and how to stop reading early.
 * csv-parse is loaded by the first import, not by every API process.
 */
async function recordsOf(input: Input): Promise<{ records: AsyncIterator<string[]>; close(): void }> {
  const { parse } = await import('csv-parse');
  const source = input instanceof Readable ? input : Readable.from(input as AsyncIterable<Buffer | string>);
  const parser = parse({ bom: true, relax_column_count: true, skip_empty_lines: true });
  source.on('error', (error) => parser.destroy(error));
  source.pipe(parser);
  return {
    records: (parser as AsyncIterable<string[]>)[Symbol.asyncIterator](),
    close() {
      source.unpipe(parser);
      source.destroy();
      parser.destroy();
    },
  };
}

/** What csv-parse says of a broken file, as the file's problem. */
function fileErrorOf(error: unknown): ImportFileError | unknown {
  if (error instanceof Error && 'code' in error && typeof error.code === 'string' && error.code.startsWith('CSV_')) {
    return new ImportFileError('file', `is not a readable CSV: ${error.message}`);
  }
  return error;
}

function headerOf(first: IteratorResult<string[]>): string[] {
  if (first.done || first.value.every((field) => field.trim() === '')) throw new ImportFileError('file', 'is empty: a CSV export starts with its header row');
  return first.value.map((field) => field.trim());
}

/** Reads the header row only and checks it against the source (or the mapping). */
export async function checkHeader(input: Input, options: ImportFormatOptions): Promise<void> {
  const { records, close } = await recordsOf(input);
  try {
    formatOf(options).reader(headerOf(await records.next()));
  } catch (error) {
    throw fileErrorOf(error);
  } finally {
    close();
  }
}

const fingerprintOf = (source: ImportSource, values: RowValues): string =>
  createHash('sha256')
    .update(
      JSON.stringify([
        source,
        values.email ?? `name:${values.userName?.toLowerCase() ?? ''}`,
        values.startedAt.toISOString(),
        values.endedAt.toISOString(),
        values.client,
        values.project,
        values.task,
        values.description,
        values.billable,
        values.tags,
      ]),
    )
    .digest('hex');

/**
 * Every data row of the file in order, numbered from 1 (the first row after
 * the header; blank lines are not rows), each exactly one outcome. A zero
 * length row is skipped; repeated rows are the caller's to spot, by
 * fingerprint.
 */
export async function* readImportRows(input: Input, options: ImportFormatOptions): AsyncGenerator<ParsedRow> {
  const { records: iterator, close } = await recordsOf(input);
  try {
    let header: string[];
    let read: (row: Row) => RowValues;
    try {
      header = headerOf(await iterator.next());
      read = formatOf(options).reader(header);
    } catch (error) {
      throw fileErrorOf(error);
    }
    const index = new Map(header.map((column, position) => [column, position] as const));
    let row = 0;
    for (;;) {
      let next: IteratorResult<string[]>;
      try {
        next = await iterator.next();
      } catch (error) {
        throw fileErrorOf(error);
      }
      if (next.done) return;
      row += 1;
      const fields = next.value;
      if (fields.length !== header.length) {
        yield { row, outcome: 'failed', message: `has ${fields.length} fields, the header has ${header.length}` };
        continue;
      }
      try {
        const values = read((column) => {
          const position = index.get(column);
          return position === undefined ? undefined : fields[position];
        });
        const durationMinutes = Math.round((values.endedAt.getTime() - values.startedAt.getTime()) / 60_000);
        if (durationMinutes <= 0) {
          yield { row, outcome: 'skipped', reason: 'zero length' };
          continue;
        }
        yield { row, outcome: 'entry', entry: { ...values, durationMinutes, fingerprint: fingerprintOf(options.source, values) } };
      } catch (error) {
        if (!(error instanceof RowError)) throw error;
        yield { row, outcome: 'failed', message: error.message };
      }
    }
  } finally {
    close();
  }
}
