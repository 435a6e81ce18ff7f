/**
 * Tables as files: CSV (csv-stringify), XLSX (exceljs's streaming writer)
 * and PDF (pdfkit), each written as the rows come, so that a file of any
 * size takes constant memory, and stopped (its cursor closed) when the
 * client goes away. Reports and timesheets export through it; each says
 * what its columns are.
 *
 * Each column says what it holds, and each format shows it so: money with
 * its currency's minor units (205.50 EUR, 1,000 JPY), as text in CSV, as a
 * number with a number format in XLSX; numbers right-aligned in XLSX and PDF.
 */
import { once } from 'node:events';
import { PassThrough, Readable } from 'node:stream';
// exceljs and pdfkit (with its fonts) are loaded on the first export that needs them: a process that
// never exports does not hold them (figures: docs/performance.md).
import type ExcelJS from 'exceljs';
import { fixedDecimal, grouped, minorUnitsOf } from './money.js';

/** json, or a file: what an export's `format` may ask for. */
export const exportFormats = ['json', 'csv', 'xlsx', 'pdf'] as const;
export type ExportFormat = (typeof exportFormats)[number];
export type FileFormat = Exclude<ExportFormat, 'json'>;

export const mediaTypes: Record<FileFormat, string> = {
  csv: 'text/csv; charset=utf-8',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  pdf: 'application/pdf',
};

/**
 * One column of a file: its header, its cell of a row, and what it holds:
 * text; a count (entries, minutes); hours (two decimals); or money, decimal
 * text in the currency `currency` names for the row.
 */
export type Column<Row> = {
  header: string;
  value(row: Row): string | number | boolean | null;
  /** Its width in the PDF, which shows only the columns that have one. */
  pdfWidth?: number;
  /** What the PDF prints instead of the value (a group's name once, not on each of its sub-groups). */
  printed?(row: Row): string;
} & ({ kind: 'text' | 'count' | 'hours' } | { kind: 'money'; currency(row: Row): string | null });

/** What a file holds: a title block, columns, and rows in batches. */
export interface Table<Row> {
  title: string;
  /** Lines under the title: tenant, period, time zone, grouping, filters. */
  details: string[];
  columns: readonly Column<Row>[];
  batches: AsyncIterable<Row[]> | Iterable<Row[]>;
  /** A row printed in bold (the totals). */
  emphasised?(row: Row): boolean;
  /** Who signs the PDF under the table (a timesheet: the member and the approver): a line, and under it this text for each. */
  signatures?: readonly string[];
  /** The PDF's page number as the table's language writes it (default `Page 3`). */
  pageLabel?(page: number): string;
}

const isNumeric = (column: { kind: string }): boolean => column.kind !== 'text';

/** A cell as text: what CSV writes, and PDF (grouped) prints. */
function textOf<Row>(column: Column<Row>, row: Row, forPeople: boolean): string {
  const value = column.value(row);
  if (value === null) return '';
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  switch (column.kind) {
    case 'money': {
      const text = fixedDecimal(String(value), minorUnitsOf(column.currency(row)));
      return forPeople ? grouped(text) : text;
    }
    case 'hours': {
      const text = (value as number).toFixed(2);
      return forPeople ? grouped(text) : text;
    }
    case 'count':
      return forPeople ? grouped(String(value)) : String(value);
    case 'text':
      return String(value);
  }
}

/** Waits while the reader is behind: the writer never holds more than a buffer's worth. */
async function caughtUp(out: PassThrough): Promise<void> {
  if (!out.writableNeedDrain) return;
  // The wait that loses the race is called off: its listeners would otherwise pile up on the stream, one per batch.
  const settled = new AbortController();
  try {
    await Promise.race([once(out, 'drain', { signal: settled.signal }), once(out, 'close', { signal: settled.signal })]);
  } finally {
    settled.abort();
  }
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
          yield stringify(batch.slice(start, start + csvChunkRows).map((row) => table.columns.map((column) => textOf(column, row, false))));
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

/** Excel's number format for `digits` decimals, thousands grouped. */
const numberFormat = (digits: number): string => (digits === 0 ? '#,##0' : `#,##0.${'0'.repeat(digits)}`);

/** A cell's value in XLSX: numbers as numbers (money too: its format shows the minor units). */
function xlsxValueOf<Row>(column: Column<Row>, row: Row): string | number | null {
  const value = column.value(row);
  if (value === null || typeof value === 'number') return value;
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  return column.kind === 'money' ? Number(value) : value;
}

function xlsxOf<Row>(table: Table<Row>): Readable {
  const out = new PassThrough();
  void (async () => {
    const { default: Excel } = await import('exceljs');
    const workbook = new Excel.stream.xlsx.WorkbookWriter({ stream: out, useStyles: true, useSharedStrings: false });
    const sheet = workbook.addWorksheet('Report');
    sheet.columns = table.columns.map((column) => ({
      width: column.kind === 'text' ? Math.max(12, Math.min(40, (column.pdfWidth ?? 80) / 5)) : Math.max(12, column.header.length + 2),
    }));
    // One style object per look, shared by every cell that has it: exceljs knows a style object it has seen
    // (a WeakMap), and works out the XML of a new one, which for each cell of a large export is measurable.
    const styles = new Map<string, Partial<ExcelJS.Style>>();
    const styleOf = (numFmt: string | undefined, bold: boolean): Partial<ExcelJS.Style> => {
      const key = `${numFmt ?? ''}|${bold}`;
      let style = styles.get(key);
      if (!style) {
        style = { ...(numFmt ? { numFmt, alignment: { horizontal: 'right' } } : {}), ...(bold ? { font: { bold: true } } : {}) };
        styles.set(key, style);
      }
      return style;
    };
    /** The number format of a column's cell in a row; undefined for text. */
    const formatOf = (column: Column<Row>, row: Row): string | undefined => {
      switch (column.kind) {
        case 'text':
          return undefined;
        case 'count':
          return numberFormat(0);
        case 'hours':
          return numberFormat(2);
        case 'money':
          return numberFormat(minorUnitsOf(column.currency(row)));
      }
    };
    const title = sheet.addRow([table.title]);
    title.font = { bold: true, size: 14 };
    title.commit();
    for (const line of table.details) sheet.addRow([line]).commit();
    sheet.addRow([]).commit();
    const header = sheet.addRow(table.columns.map((column) => column.header));
    table.columns.forEach((column, index) => {
      // Headers of numbers stand over them, on the right.
      header.getCell(index + 1).style = isNumeric(column) ? { font: { bold: true }, alignment: { horizontal: 'right' } } : { font: { bold: true } };
    });
    header.commit();
    for await (const batch of table.batches) {
      for (const item of batch) {
        const row = sheet.addRow(table.columns.map((column) => xlsxValueOf(column, item)));
        const bold = table.emphasised?.(item) ?? false;
        table.columns.forEach((column, index) => {
          const numFmt = formatOf(column, item);
          if (numFmt || bold) row.getCell(index + 1).style = styleOf(numFmt, bold);
        });
        row.commit();
      }
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

/** Page geometry of the PDF, in points: A4 landscape. */
const margin = 36;
const rowHeight = 12;
/** The gap after a cell: wider after numbers, which end where the next column's text starts. */
const cellPadding = 4;
const numberPadding = 10;

function pdfOf<Row>(table: Table<Row>): Readable {
  const out = new PassThrough();
  void (async () => {
    const { default: PDFDocument } = await import('pdfkit');
    const document = new PDFDocument({ size: 'A4', layout: 'landscape', margin, info: { Title: table.title } });
    document.pipe(out);
    const columns = table.columns.filter((column) => column.pdfWidth !== undefined);
    const width = (column: Column<Row>) => (column.pdfWidth as number) - (isNumeric(column) ? numberPadding : cellPadding);
    const bottom = () => document.page.height - margin - rowHeight;
    let page = 1;
    const number = () => {
      // At the foot, outside the flow of the table (no margin below, so it never adds a page).
      const below = document.page.margins.bottom;
      document.page.margins.bottom = 0;
      document
        .font('Helvetica')
        .fontSize(8)
        .text(table.pageLabel?.(page) ?? `Page ${page}`, margin, document.page.height - 24, {
          width: document.page.width - 2 * margin,
          align: 'center',
          lineBreak: false,
        });
      document.page.margins.bottom = below;
    };
    // Widths of the texts a font has measured: cells repeat (dates, times, names, currencies), and measuring a
    // standard font's text (glyph by glyph, with kerning) is the largest cost of a PDF row.
    let measured = new Map<string, number>();
    let font = '';
    const widthOf = (text: string): number => {
      const key = `${font}\u0000${text}`;
      let width = measured.get(key);
      if (width === undefined) {
        if (measured.size >= 20_000) measured = new Map();
        width = document.widthOfString(text);
        measured.set(key, width);
      }
      return width;
    };
    /** `text` on one line within `room`: cut with an ellipsis where it is longer, never wrapped into the next row. */
    const fitted = (text: string, room: number): { text: string; width: number } => {
      const line = /\s\s|[\n\r\t]/.test(text) ? text.replace(/\s+/g, ' ') : text;
      const full = widthOf(line);
      if (full <= room) return { text: line, width: full };
      let [low, high] = [0, line.length];
      while (low < high) {
        const middle = (low + high + 1) >> 1;
        if (widthOf(`${line.slice(0, middle)}…`) <= room) low = middle;
        else high = middle - 1;
      }
      const cut = `${line.slice(0, low).trimEnd()}…`;
      return { text: cut, width: widthOf(cut) };
    };
    /**
     * One line of cells from `top`: text left, numbers right. Each cell is measured here and drawn without
     * pdfkit's line wrapper, which costs several times as much per cell and a large export has a million.
     */
    const cells = (texts: string[], top: number, bold: boolean) => {
      font = bold ? 'Helvetica-Bold' : 'Helvetica';
      document.font(font).fontSize(8);
      let x = margin;
      columns.forEach((column, index) => {
        const text = texts[index] ?? '';
        if (text !== '') {
          const shown = fitted(text, width(column));
          document.text(shown.text, isNumeric(column) ? x + width(column) - shown.width : x, top, { lineBreak: false });
        }
        x += column.pdfWidth as number;
      });
    };
    /** The column headers, wrapped to their width, with a rule under the tallest; the rows start below it. */
    const header = (top: number): number => {
      document.font('Helvetica-Bold').fontSize(8);
      const height = Math.max(...columns.map((column) => document.heightOfString(column.header, { width: width(column) })));
      let x = margin;
      for (const column of columns) {
        // Bottom-aligned, so that one-line headers sit on the rule as the wrapped ones do.
        const own = document.heightOfString(column.header, { width: width(column) });
        document.text(column.header, x, top + height - own, { width: width(column), align: isNumeric(column) ? 'right' : 'left' });
        x += column.pdfWidth as number;
      }
      const rule = top + height + 2;
      document
        .moveTo(margin, rule)
        .lineTo(x - cellPadding, rule)
        .lineWidth(0.5)
        .stroke();
      return rule + 4;
    };
    let y = 0;
    let firstOnPage = 0;
    const newPage = () => {
      document.addPage();
      page += 1;
      number();
      y = header(margin);
      firstOnPage = y;
    };
    number();
    document.font('Helvetica-Bold').fontSize(14).text(table.title, margin, margin);
    document.font('Helvetica').fontSize(9);
    for (const detail of table.details) document.text(detail);
    document.moveDown();
    y = header(document.y);
    firstOnPage = y;
    for await (const batch of table.batches) {
      for (const row of batch) {
        if (y > bottom()) newPage();
        const bold = table.emphasised?.(row) ?? false;
        if (bold && y !== firstOnPage) {
          // A rule above the totals and above each group (the header's rule is above the first).
          document
            .moveTo(margin, y - 2)
            .lineTo(margin + columns.reduce((sum, column) => sum + (column.pdfWidth as number), 0) - cellPadding, y - 2)
            .lineWidth(0.5)
            .stroke();
        }
        cells(
          columns.map((column) => column.printed?.(row) ?? textOf(column, row, true)),
          y,
          bold,
        );
        y += rowHeight;
      }
      if (out.destroyed) return;
      await caughtUp(out);
    }
    if (table.signatures?.length) {
      // Side by side under the table (on a page of their own when it is full): a line to sign on, the signer, a date.
      const signatureHeight = 40;
      if (y + signatureHeight > bottom()) {
        // A page of their own, without the table's header.
        document.addPage();
        page += 1;
        number();
        y = margin;
      }
      const top = y + 28;
      const slot = (document.page.width - 2 * margin) / table.signatures.length;
      table.signatures.forEach((signer, index) => {
        const left = margin + index * slot;
        document
          .moveTo(left, top)
          .lineTo(left + slot - 36, top)
          .lineWidth(0.5)
          .stroke();
        document
          .font('Helvetica')
          .fontSize(8)
          .text(signer, left, top + 4, { width: slot - 36, lineBreak: false });
      });
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
