import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { decimalOf } from './import.cells.js';
import { checkHeader, looksLikeCsv, readImportRows, type ImportFormatOptions, type ParsedRow } from './import.formats.js';
import { checkMapping } from './import.generic.js';
import { ImportFileError } from './import.source.js';

const fixtures = path.join(import.meta.dirname, '..', '..', '..', '..', 'test', 'fixtures', 'imports');
const expected = JSON.parse(fs.readFileSync(path.join(fixtures, 'expected.json'), 'utf8')) as Record<
  string,
  {
    source: ImportFormatOptions['source'];
    mapping?: Record<string, string>;
    rows: number;
    imported: number;
    skipped: number;
    failed: number;
    minutes: number;
    failedRows: number[];
  }
>;

async function rowsOf(text: string | Buffer, options: ImportFormatOptions): Promise<ParsedRow[]> {
  const rows: ParsedRow[] = [];
  for await (const row of readImportRows(Readable.from([text]), options)) rows.push(row);
  return rows;
}

const entryOf = (row: ParsedRow | undefined) => {
  if (row?.outcome !== 'entry') throw new Error(`not an entry: ${JSON.stringify(row)}`);
  return row.entry;
};

describe('each fixture reads as its README says (duplicates told apart by fingerprint)', () => {
  for (const [file, want] of Object.entries(expected)) {
    it(file, async () => {
      const rows = await rowsOf(fs.readFileSync(path.join(fixtures, file)), {
        source: want.source,
        timeZone: 'Europe/Berlin',
        ...(want.mapping ? { mapping: checkMapping(want.mapping) } : {}),
      });
      const seen = new Set<string>();
      const counts = { rows: rows.length, imported: 0, skipped: 0, failed: 0, minutes: 0 };
      for (const row of rows) {
        if (row.outcome === 'failed') counts.failed += 1;
        else if (row.outcome === 'skipped' || seen.has(row.entry.fingerprint)) counts.skipped += 1;
        else {
          seen.add(row.entry.fingerprint);
          counts.imported += 1;
          counts.minutes += row.entry.durationMinutes;
        }
      }
      expect(counts).toEqual({ rows: want.rows, imported: want.imported, skipped: want.skipped, failed: want.failed, minutes: want.minutes });
      expect(rows.filter((row) => row.outcome === 'failed').map((row) => row.row)).toEqual(want.failedRows);
      // The same file counted by an independent reader: every data row is one outcome.
      const records = parse(fs.readFileSync(path.join(fixtures, file)), { bom: true, relax_column_count: true, skip_empty_lines: true }) as string[][];
      expect(rows.length).toBe(records.length - 1);
    });
  }
});

describe('rows', () => {
  it('reads times across midnight in the zone given, with and without an end date', async () => {
    const toggl = await rowsOf(fs.readFileSync(path.join(fixtures, 'toggl.csv')), { source: 'toggl', timeZone: 'Europe/Berlin' });
    expect(entryOf(toggl[4])).toMatchObject({ startedAt: new Date('2026-03-04T22:30:00Z'), endedAt: new Date('2026-03-05T00:15:00Z'), durationMinutes: 105 });
    const kimai = await rowsOf(fs.readFileSync(path.join(fixtures, 'kimai.csv')), { source: 'kimai', timeZone: 'UTC' });
    const acrossMidnight = entryOf(kimai[2]);
    expect(acrossMidnight.endedAt.getTime() - acrossMidnight.startedAt.getTime()).toBe(150 * 60_000);
    expect(acrossMidnight.startedAt.toISOString().slice(11, 16)).toBe('22:30');
  });

  it('reads Clockify’s 12-hour times: 12 AM is after midnight, 12 PM after noon', async () => {
    const header =
      '"Project","Description","Activity","User","Group","Email","Tags","Start Date","Start Time","End Date","End Time","Duration (h)","Duration (decimal)"';
    const rows = await rowsOf(
      `${header}\n"P","night","","Ada","","ada@example.com","","04/02/2026","12:30 AM","04/02/2026","01:00 AM","00:30:00","0.50"\n"P","noon","","Ada","","ada@example.com","","04/02/2026","12:00 PM","04/02/2026","12:45:30 PM","00:45:30","0.76"\n`,
      {
        source: 'clockify',
        timeZone: 'UTC',
      },
    );
    expect(entryOf(rows[0]).startedAt.toISOString()).toBe('2026-04-02T00:30:00.000Z');
    expect(entryOf(rows[1])).toMatchObject({ startedAt: new Date('2026-04-02T12:00:00Z'), durationMinutes: 46, task: null, billable: null });
  });

  it('strips Kimai’s formula guard, reads Harvest’s decimal commas, and names the column of a bad value', async () => {
    const kimai = 'Date,From,To,Duration,Price,"Hourly price",Name,User,E-mail,Customer,Project,Activity,Description,Billable,Tags\n';
    const rows = await rowsOf(
      `${kimai}2026-04-01,09:00,10:00,1:00,90,90,Ada,ada,ada@example.com,C,P,A,"' =SUM(1)",1,"a, b"\n2026-04-01,09:00,10:00,1:00,90,90,Ada,ada,ada@example.com,C,P,A,x,maybe,\n2026-04-02,09:00,10:00,1:00,90,90,Ada,ada,ada@example.com,C,P,A,"' quoted on purpose",0,\n`,
      {
        source: 'kimai',
        timeZone: 'UTC',
      },
    );
    expect(entryOf(rows[0])).toMatchObject({
      description: '=SUM(1)',
      billableAmount: '90',
      billableRate: '90',
      tags: ['a', 'b'],
      email: 'ada@example.com',
      userName: 'Ada',
    });
    expect(rows[1]).toEqual({ row: 2, outcome: 'failed', message: 'Billable "maybe" is not one of Yes, No, true, false, 1, 0' });
    expect(entryOf(rows[2]).description).toBe("' quoted on purpose");
    expect([
      decimalOf('"20,0"'.replaceAll('"', '')),
      decimalOf('2.000,0'),
      decimalOf('1,020.50'),
      decimalOf('0,01'),
      decimalOf('1,000,000'),
      decimalOf('x'),
    ]).toEqual(['20.0', '2000.0', '1020.50', '0.01', '1000000', null]);
  });

  it('a Kimai row whose To equals its From lasts 24 hours, unless its duration says 0', async () => {
    const header = 'Date,From,To,Duration,Name,E-mail\n';
    const rows = await rowsOf(`${header}2026-04-01,09:00,09:00,24:00,Ada,ada@example.com\n2026-04-01,09:00,09:00,0:00,Ada,ada@example.com\n`, {
      source: 'kimai',
      timeZone: 'UTC',
    });
    expect(entryOf(rows[0]).durationMinutes).toBe(1440);
    expect(rows[1]).toMatchObject({ outcome: 'skipped' });
  });
});

describe('files', () => {
  it('a header alone has no rows; a file without the columns of its source, or a mapping naming a missing column, is refused', async () => {
    expect(await rowsOf('Date,From,To,Name\n', { source: 'kimai', timeZone: 'UTC' })).toEqual([]);
    const kimai = fs.readFileSync(path.join(fixtures, 'kimai.csv'));
    await expect(checkHeader(Readable.from([kimai]), { source: 'toggl', timeZone: 'UTC' })).rejects.toMatchObject({
      path: 'file',
      message: expect.stringContaining('"Start date"'),
    });
    await expect(checkHeader(Readable.from(['']), { source: 'toggl', timeZone: 'UTC' })).rejects.toBeInstanceOf(ImportFileError);
    const generic = fs.readFileSync(path.join(fixtures, 'generic.csv'));
    const mapping = checkMapping({ ...expected['generic.csv']?.mapping, task: 'Assignment' });
    await expect(checkHeader(Readable.from([generic]), { source: 'generic', timeZone: 'UTC', mapping })).rejects.toMatchObject({
      path: 'mapping',
      message: expect.stringContaining('"Assignment" (task)'),
    });
    expect(() => checkMapping({ date: 'Day' })).toThrow(/startTime and endTime \(or duration\), email or userName/);
    expect(() => checkMapping({ date: 'Day', begin: 'Start' })).toThrow(/unknown field "begin"/);
    expect(() => checkMapping([])).toThrow(ImportFileError);
  });

  it('tells a CSV from a PDF, a zip (XLSX), an image or other binary data', () => {
    for (const file of Object.keys(expected)) expect(looksLikeCsv(fs.readFileSync(path.join(fixtures, file)).subarray(0, 4100)), file).toBe(true);
    // A head cut inside a multi-byte character is still text.
    expect(looksLikeCsv(Buffer.from('Name\nŁódź', 'utf8').subarray(0, 7))).toBe(true);
    expect(looksLikeCsv(Buffer.from('%PDF-1.7\n'))).toBe(false);
    expect(looksLikeCsv(Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x14]))).toBe(false);
    expect(looksLikeCsv(Buffer.from([0x41, 0x00, 0x42]))).toBe(false);
    expect(looksLikeCsv(Buffer.from([0x41, 0xff, 0xfe, 0x42, 0x43, 0x44, 0x45]))).toBe(false);
  });
});
