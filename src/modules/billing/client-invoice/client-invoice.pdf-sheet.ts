/**
 * The page a client invoice's PDF is written on (client-invoice.pdf.ts): A4 geometry, the colours, how
 * amounts, dates, quantities, rates and addresses read, and the `Sheet`, the pdfkit document with where the
 * flow stands. The parts of the page (client-invoice.pdf-layout.ts) write through it.
 */
import { type DocumentLocale, documentLocale } from '../../../lib/i18n.js';
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

/** The catalogue key of a unit, by whether the quantity is one: a MIN line is priced per hour, so it reads in hours. */
const unitKeys: Record<UnitCode, [one: string, more: string]> = {
  HUR: ['units.hours', 'units.hours'],
  MIN: ['units.hours', 'units.hours'],
  DAY: ['units.dayOne', 'units.dayMore'],
  C62: ['units.unitOne', 'units.unitMore'],
};
export const unitLabel = (locale: DocumentLocale, unit: UnitCode, quantity: string): string =>
  locale.t(unitKeys[unit][/^-?0*1(\.0*)?$/.test(quantity) ? 0 : 1]);
export const categoryLabel = (locale: DocumentLocale, category: TaxCategory): string => locale.t(`categories.${category}`);

/** At least two decimals, more only where the quantity has them: `7.5000` as `7.50`, `0.3333` stays. */
export const quantityText = (locale: DocumentLocale, quantity: string): string => {
  const trimmed = quantity.replace(/(\.\d\d\d*?)0+$/, '$1');
  return locale.number(trimmed, trimmed.includes('.') ? trimmed.length - trimmed.indexOf('.') - 1 : 0);
};
/** Whole minutes as hours and minutes, `95.0000` as `1:35` (a MIN line's quantity, priced per hour). */
export const hoursAndMinutes = (locale: DocumentLocale, minutes: string): string => {
  const total = Number(minutes);
  const sign = total < 0 ? '−' : '';
  const whole = Math.abs(total);
  return `${sign}${locale.number(String(Math.floor(whole / 60)), 0)}:${String(whole % 60).padStart(2, '0')}`;
};
/** A line's quantity as the PDF prints it: time in h:mm, anything else as a decimal (a minus sign where negative). */
export const lineQuantityText = (locale: DocumentLocale, line: { quantity: string; unit: UnitCode }): string =>
  line.unit === 'MIN' ? hoursAndMinutes(locale, line.quantity) : quantityText(locale, line.quantity).replace(/^-/, '−');
/** An IBAN in groups of four, as people read it. */
export const ibanText = (iban: string): string => iban.replace(/\s+/g, '').replace(/(.{4})(?=.)/g, '$1 ');

export const addressLines = (locale: DocumentLocale, address: PostalAddress, withCountry: boolean): string[] => [
  address.line1,
  ...(address.line2 ? [address.line2] : []),
  `${address.postcode} ${address.city}`,
  ...(withCountry ? [locale.country(address.countryCode)] : []),
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
  /** The language the document was issued in (its buyer snapshot's), with ICU's formats for it. */
  readonly locale: DocumentLocale;

  constructor(
    readonly pdf: PDFKit.PDFDocument,
    readonly document: ClientInvoiceDocument,
    kind: 'invoice' | 'creditNote' | 'reminder' = document.type === 'credit_note' ? 'creditNote' : 'invoice',
  ) {
    this.locale = documentLocale(document.buyer.language);
    this.kindTitle = this.locale.t(`document.${kind}`);
    this.title = this.locale.t('document.title', { kind: this.kindTitle, number: document.number ?? this.locale.t('document.draftNumber') });
  }

  /** The catalogue's text of `key` in the document's language. */
  t(key: string, values?: Record<string, string | number>): string {
    return this.locale.t(key, values);
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

  /** An amount at the currency's scale, grouped as the document's language does. */
  money(amount: string): string {
    return this.locale.money(amount, this.document.currency);
  }

  /** A new page, which starts with what it continues. */
  newPage(): void {
    this.pdf.addPage();
    this.y = top;
    this.write(this.t('document.continued', { title: this.title }), left, this.y, { size: 8.5, color: muted, width: contentWidth });
    this.y += 20;
  }

  /** A new page unless `height` still fits above the footer. */
  keep(height: number): boolean {
    if (this.y + height <= flowBottom) return false;
    this.newPage();
    return true;
  }
}
