/**
 * Reports as files: CSV (csv-stringify), XLSX (exceljs's streaming writer)
 * and PDF (pdfkit), each written as the rows come, so that an export of any
 * size takes constant memory, and stopped (its cursor closed) when the
 * client goes away. The same rows and totals as the JSON; dates and times in
 * the report's time zone; numbers are numbers in XLSX.
 */
import { once } from 'node:events';
import { PassThrough, Readable } from 'node:stream';
// exceljs and pdfkit (with its fonts) are loaded on the first export that needs them: a process that
// never exports does not hold them (some 10 MB of an API process at rest).
import type ExcelJS from 'exceljs';
import type { ExportRow, ReportGroup, ReportSummary, ReportTotals } from './report.service.js';

export const exportFormats = ['json', 'csv', 'xlsx', 'pdf'] as const;
export type ExportFormat = (typeof exportFormats)[number];
export type FileFormat = Exclude<ExportFormat, 'json'>;

export const mediaTypes: Record<FileFormat, string> = {
  csv: 'text/csv; charset=utf-8',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  pdf: 'application/pdf',
};

/** One column of an export: its header, and its cell of a row (a number where it is one). */
interface Column<Row> {
  header: string;
  value(row: Row): string | number | null;
  /** PDF column width, in points. */
  width?: number;
}

/** What an export writes: a title block, columns, and rows in batches. */
export interface Table<Row> {
  title: string;
  /** Lines under the title: tenant, period, time zone, grouping, filters. */
  details: string[];
  columns: readonly Column<Row>[];
  batches: AsyncIterable<Row[]> | Iterable<Row[]>;
}

const decimal = (value: string | null): number | null => (value === null ? null : Number(value));
const hours = (minutes: number): number => Math.round((minutes / 60) * 100) / 100;

export const entryColumns: readonly Column<ExportRow>[] = [
  { header: 'Date', value: (row) => row.date, width: 58 },
  { header: 'Start', value: (row) => row.start, width: 32 },
  { header: 'End', value: (row) => row.end, width: 32 },
  { header: 'Minutes', value: (row) => row.minutes, width: 40 },
  { header: 'Hours', value: (row) => hours(row.minutes) },
  { header: 'Member', value: (row) => row.member, width: 80 },
  { header: 'Client', value: (row) => row.client, width: 70 },
  { header: 'Project', value: (row) => row.project, width: 80 },
  { header: 'Task', value: (row) => row.task },
  { header: 'Description', value: (row) => row.description, width: 150 },
  { header: 'Tags', value: (row) => row.tags },
  { header: 'Billable', value: (row) => (row.billable ? 'yes' : 'no') },
  { header: 'Status', value: (row) => row.status },
  { header: 'Hourly rate', value: (row) => decimal(row.hourlyRate) },
  { header: 'Billable amount', value: (row) => decimal(row.billableAmount), width: 60 },
  { header: 'Cost rate', value: (row) => decimal(row.costRate) },
  { header: 'Cost amount', value: (row) => decimal(row.costAmount) },
  { header: 'Currency', value: (row) => row.currency },
];

/** A summary's groups as rows: each group, then its sub-groups, then the totals. */
export interface SummaryRow {
  group: string;
  subGroup: string;
  totals: ReportTotals;
}

const amount = (value: ReportTotals['billableAmount']): number | null => (value === null ? null : Number(value));

export const summaryColumns: readonly Column<SummaryRow>[] = [
  { header: 'Group', value: (row) => row.group, width: 150 },
  { header: 'Sub-group', value: (row) => row.subGroup, width: 130 },
  { header: 'Entries', value: (row) => row.totals.entries, width: 45 },
  { header: 'Minutes', value: (row) => row.totals.durationMinutes, width: 50 },
  { header: 'Hours', value: (row) => hours(row.totals.durationMinutes), width: 45 },
  { header: 'Billable minutes', value: (row) => row.totals.billableMinutes, width: 60 },
  { header: 'Billable amount', value: (row) => amount(row.totals.billableAmount), width: 60 },
  { header: 'Cost amount', value: (row) => amount(row.totals.costAmount), width: 60 },
];

export function summaryRows(summary: ReportSummary): SummaryRow[] {
  const rows = summary.groups.flatMap((group: ReportGroup) => [
    { group: group.label, subGroup: '', totals: group.totals },
    ...(group.subGroups ?? []).map((sub) => ({ group: group.label, subGroup: sub.label, totals: sub.totals })),
  ]);
  return [...rows, { group: 'Total', subGroup: '', totals: summary.totals }];
}

/** Waits while the reader is behind: the writer never holds more than a buffer's worth. */
async function caughtUp(out: PassThrough): Promise<void> {
  if (out.writableNeedDrain) await Promise.race([once(out, 'drain'), once(out, 'close')]);
}

const csvChunkRows = 200;

function csvOf<Row>(table: Table<Row>): Readable {
  return Readable.from(
    (async function* () {
      const { stringify } = await import('csv-stringify/sync');
      yield stringify([table.columns.map((column) => column.header)]);
      for await (const batch of table.batches) {
        // Chunks of some 20 kB: short-lived strings the young generation collects, not large objects that pile up until a full GC.
        for (let start = 0; start < batch.length; start += csvChunkRows) {
          yield stringify(batch.slice(start, start + csvChunkRows).map((row) => table.columns.map((column) => column.value(row))));
        }
      }
    })(),
  );
}

/**
 * Bytes exceljs holds between a worksheet and its zip entry. Its StreamBuf
 * (exceljs/lib/utils/stream-buf.js) writes on to the zip without waiting, so
 * a slow client would have the whole sheet buffered: the writer waits on this
 * instead. Reads the internals of exceljs 4.4.0 (the version package.json pins).
 */
function heldByWorksheet(sheet: ExcelJS.Worksheet): number {
  const stream = (sheet as unknown as { stream?: { pipes?: { _writableState?: { length?: number } }[] } }).stream;
  return stream?.pipes?.reduce((sum, pipe) => sum + (pipe._writableState?.length ?? 0), 0) ?? 0;
}

function xlsxOf<Row>(table: Table<Row>): Readable {
  const out = new PassThrough();
  void (async () => {
    const { default: Excel } = await import('exceljs');
    const workbook = new Excel.stream.xlsx.WorkbookWriter({ stream: out, useStyles: true, useSharedStrings: false });
    const sheet = workbook.addWorksheet('Report');
    sheet.addRow([table.title]).commit();
    for (const line of table.details) sheet.addRow([line]).commit();
    sheet.addRow([]).commit();
    const header = sheet.addRow(table.columns.map((column) => column.header));
    header.font = { bold: true };
    header.commit();
    for await (const batch of table.batches) {
      for (const row of batch) sheet.addRow(table.columns.map((column) => column.value(row))).commit();
      // Until the zip has taken the batch in (its compressor is behind when the client is).
      while (!out.destroyed && heldByWorksheet(sheet) > 1024 * 1024) {
        if (out.writableNeedDrain) await caughtUp(out);
        else await new Promise((resolve) => setTimeout(resolve, 1));
      }
      if (out.destroyed) return;
      await caughtUp(out);
    }
    sheet.commit();
    await workbook.commit();
  })().catch((error: unknown) => out.destroy(error instanceof Error ? error : new Error(String(error))));
  return out;
}

function pdfOf<Row>(table: Table<Row>): Readable {
  const out = new PassThrough();
  void (async () => {
    const { default: PDFDocument } = await import('pdfkit');
    const document = new PDFDocument({ size: 'A4', layout: 'landscape', margin: 36, info: { Title: table.title } });
    document.pipe(out);
    let page = 1;
    const number = () => {
      // At the foot, outside the flow of the table (no margin below, so it never adds a page).
      const bottom = document.page.margins.bottom;
      document.page.margins.bottom = 0;
      document.fontSize(8).text(`Page ${page}`, 36, document.page.height - 24, { width: document.page.width - 72, align: 'center', lineBreak: false });
      document.page.margins.bottom = bottom;
      document.x = 36;
      document.y = 36;
    };
    document.on('pageAdded', () => {
      page += 1;
      number();
    });
    const columns = table.columns.filter((column) => column.width !== undefined);
    const line = (cells: string[], bold = false) => {
      const y = document.y;
      if (y > document.page.height - 60) document.addPage();
      const top = document.y;
      let x = 36;
      document.font(bold ? 'Helvetica-Bold' : 'Helvetica').fontSize(8);
      columns.forEach((column, index) => {
        document.text(cells[index] ?? '', x, top, { width: (column.width as number) - 4, lineBreak: false, ellipsis: true });
        x += column.width as number;
      });
      document.x = 36;
      document.y = top + 12;
    };
    number();
    document.font('Helvetica-Bold').fontSize(14).text(table.title, 36, 36);
    document.font('Helvetica').fontSize(9);
    for (const detail of table.details) document.text(detail);
    document.moveDown();
    line(
      columns.map((column) => column.header),
      true,
    );
    for await (const batch of table.batches) {
      for (const row of batch) {
        const cells = columns.map((column) => {
          const value = column.value(row);
          return value === null ? '' : typeof value === 'number' ? String(value) : value;
        });
        line(cells, (row as { group?: string }).group === 'Total');
      }
      if (out.destroyed) return;
      await caughtUp(out);
    }
    document.end();
  })().catch((error: unknown) => out.destroy(error instanceof Error ? error : new Error(String(error))));
  return out;
}

/** The table as a file of `format`, streamed. */
export function fileOf<Row>(format: FileFormat, table: Table<Row>): Readable {
  switch (format) {
    case 'csv':
      return csvOf(table);
    case 'xlsx':
      return xlsxOf(table);
    case 'pdf':
      return pdfOf(table);
  }
}
