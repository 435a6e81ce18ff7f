/**
 * Reading other time trackers' CSV exports (Toggl, Clockify, Harvest,
 * Kimai) and mapped CSV files into entries, one row at a time: each
 * source's reader is a file of its own (import.toggl.ts and its siblings),
 * this one reads the file and applies the rules every row shares. What each
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
import type { ImportSource } from '../../../generated/prisma/enums.js';
import { durationMinutes, spanProblem } from '../entry/entry.values.js';
import { clockify } from './import.clockify.js';
import { RowError } from './import.cells.js';
import { generic, type GenericMapping } from './import.generic.js';
import { harvest } from './import.harvest.js';
import { kimai } from './import.kimai.js';
import { ImportFileError, type Format, type Row, type RowValues } from './import.source.js';
import { toggl } from './import.toggl.js';

/** The sources, one list: the database's enum (prisma/schema.prisma). */
export type { ImportSource };

/** One row read as an entry. */
export interface ImportedEntry extends RowValues {
  breakMinutes: number;
  /** Worked minutes as the file has them: round(seconds / 60), 30 s round up (entry.values.ts). */
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

type Input = AsyncIterable<Buffer | string> | NodeJS.ReadableStream;

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
        // A break joined the fields later: rows without one keep the fingerprints they always had.
        ...(values.breakMinutes ? [values.breakMinutes] : []),
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
        // The entry rules of every writer (entry.values.ts): a span of no worked minute is skipped; the file's minutes are kept (no tenant rounding).
        const breakMinutes = values.breakMinutes ?? 0;
        const problem = spanProblem(values.startedAt, values.endedAt, breakMinutes);
        if (problem?.zeroLength) {
          yield { row, outcome: 'skipped', reason: 'zero length' };
          continue;
        }
        if (problem) throw new RowError(`${problem.path} ${problem.message}`);
        const minutes = durationMinutes(values.startedAt, values.endedAt, breakMinutes, 0);
        yield { row, outcome: 'entry', entry: { ...values, breakMinutes, durationMinutes: minutes, fingerprint: fingerprintOf(options.source, values) } };
      } catch (error) {
        if (!(error instanceof RowError)) throw error;
        yield { row, outcome: 'failed', message: error.message };
      }
    }
  } finally {
    close();
  }
}
