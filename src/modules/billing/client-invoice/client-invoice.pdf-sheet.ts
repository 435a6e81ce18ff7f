/**
 * The page a client invoice's PDF is written on (client-invoice.pdf.ts): A4 geometry, the colours, how
 * amounts, dates, quantities, rates and addresses read, and the `Sheet`, the pdfkit document with where the
 * flow stands. The parts of the page (client-invoice.pdf-layout.ts) write through it.
 */
import { fixedDecimal, grouped, minorUnitsOf } from '../../../lib/money.js';
import { dayColumn } from '../../../lib/day.js';
import type { ClientInvoiceDocument, PostalAddress, TaxCategory, UnitCode } from './client-invoice.document.js';

// Layout, in points on an A4 page (595 x 842).
export const left = 56;
export const right = 539;
export const contentWidth = right - left;
export const top = 48;
/** Where the footer starts: the flow breaks to a new page above it. */
export const footerTop = 760;
export const flowBottom = footerTop - 16;
export const pageHeight = 841.89;

export const ink = '#1d232b';
export const muted = '#5f6b7a';
export const accent = '#1f4e79';
export const hairline = '#d5dbe3';
export const shade = '#eef2f6';

// A MIN line is priced per hour, so it reads in hours: 1:35 h at 110.00 (the rate per hour) is 174.17.
export const unitLabels: Record<UnitCode, [one: string, more: string]> = { HUR: ['h', 'h'], MIN: ['h', 'h'], DAY: ['day', 'days'], C62: ['unit', 'units'] };
export const unitLabel = (unit: UnitCode, quantity: string) => unitLabels[unit][/^-?0*1(\.0*)?$/.test(quantity) ? 0 : 1];
export const categoryLabels: Record<TaxCategory, string> = {
  S: 'Standard rate',
  Z: 'Zero rated',
  E: 'Exempt',
  AE: 'Reverse charge',
  K: 'Intra-EU supply',
  G: 'Export outside the EU',
  O: 'Not subject to VAT',
};

export const dateFormat = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' });
/** `2026-11-02` as `2 November 2026`. */
export const longDate = (date: string): string => dateFormat.format(dayColumn(date));

export const shortDateFormat = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' });
/** `2026-10-01` as `1 Oct 2026`. */
export const shortDate = (date: string): string => shortDateFormat.format(dayColumn(date));

export const countryNames = new Intl.DisplayNames(['en'], { type: 'region' });
export const countryName = (code: string): string => countryNames.of(code) ?? code;

/** `19.00` as `19 %`, `7.50` as `7.5 %`. */
export const percent = (rate: string): string => `${rate.replace(/\.?0+$/, '')} %`;
/** At least two decimals, more only where the quantity has them: `7.5000` as `7.50`, `0.3333` stays. */
export const quantityText = (quantity: string): string => grouped(quantity.replace(/(\.\d\d\d*?)0+$/, '$1'));
/** Whole minutes as hours and minutes, `95.0000` as `1:35` (a MIN line's quantity, priced per hour). */
export const hoursAndMinutes = (minutes: string): string => {
  const total = Number(minutes);
  const sign = total < 0 ? '−' : '';
  const whole = Math.abs(total);
  return `${sign}${grouped(String(Math.floor(whole / 60)))}:${String(whole % 60).padStart(2, '0')}`;
};
/** A line's quantity as the PDF prints it: time in h:mm, anything else as a decimal (a minus sign where negative). */
export const lineQuantityText = (line: { quantity: string; unit: UnitCode }): string =>
  line.unit === 'MIN' ? hoursAndMinutes(line.quantity) : quantityText(line.quantity).replace(/^-/, '−');
/** An IBAN in groups of four, as people read it. */
export const ibanText = (iban: string): string => iban.replace(/\s+/g, '').replace(/(.{4})(?=.)/g, '$1 ');

export const addressLines = (address: PostalAddress, withCountry: boolean): string[] => [
  address.line1,
  ...(address.line2 ? [address.line2] : []),
  `${address.postcode} ${address.city}`,
  ...(withCountry ? [countryName(address.countryCode)] : []),
];

export interface Column {
  title: string;
  width: number;
  align: 'left' | 'right';
}

export interface TextStyle {
  size?: number;
  bold?: boolean;
  color?: string;
  width?: number;
  align?: 'left' | 'right' | 'center';
}

/**
 * The pages being written: the pdfkit document, the invoice, and where the flow stands (`y`). Each part of
 * the invoice is a function of a sheet that writes from `y` down and leaves `y` below what it wrote.
 */
export class Sheet {
  y = top;
  readonly kindTitle: string;
  readonly title: string;

  constructor(
    readonly pdf: PDFKit.PDFDocument,
    readonly document: ClientInvoiceDocument,
  ) {
    this.kindTitle = document.type === 'credit_note' ? 'Credit note' : 'Invoice';
    this.title = `${this.kindTitle} ${document.number ?? '(draft)'}`;
  }

  get creditNote(): boolean {
    return this.document.type === 'credit_note';
  }

  /** `text` at (x, y): wrapped to `width` when given, else on one line. */
  write(text: string, x: number, y: number, style: TextStyle = {}): void {
    this.pdf
      .font(style.bold ? 'bold' : 'regular')
      .fontSize(style.size ?? 9)
      .fillColor(style.color ?? ink)
      .text(text, x, y, { width: style.width, align: style.align ?? 'left', lineGap: 1.5, ...(style.width ? {} : { lineBreak: false }) });
  }

  heightOf(text: string, width: number, size = 9, bold = false): number {
    return this.pdf
      .font(bold ? 'bold' : 'regular')
      .fontSize(size)
      .heightOfString(text, { width, lineGap: 1.5 });
  }

  rule(y: number, color = hairline, width = 0.6, from = left, to = right): void {
    this.pdf.moveTo(from, y).lineTo(to, y).lineWidth(width).strokeColor(color).stroke();
  }

  money(amount: string): string {
    return grouped(fixedDecimal(amount, minorUnitsOf(this.document.currency)));
  }

  /** A new page, which starts with what it continues. */
  newPage(): void {
    this.pdf.addPage();
    this.y = top;
    this.write(`${this.title} · continued`, left, this.y, { size: 8.5, color: muted, width: contentWidth });
    this.y += 20;
  }

  /** A new page unless `height` still fits above the footer. */
  keep(height: number): boolean {
    if (this.y + height <= flowBottom) return false;
    this.newPage();
    return true;
  }
}
