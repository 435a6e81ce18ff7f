/**
 * A client invoice as the PDF a business sends (pdfkit, as the report exports): letterhead, the
 * client's address with the sender line above it, the invoice's facts beside it, the lines, the VAT
 * breakdown beside the totals, payment instructions with the bank account, notes, and on every page a
 * footer with the seller's legal data and "Page x of y". A draft carries a large DRAFT mark.
 *
 * `format: 'facturx'` writes the same pages as PDF/A-3b with the EN 16931 CII XML embedded as
 * `factur-x.xml` and the XMP metadata Factur-X 1.0 / ZUGFeRD 2 readers look for. PDF/A wants every
 * font embedded, so both formats print in DejaVu Sans Condensed (a TrueType font from npm, subset into
 * the file), which also covers names beyond Latin-1 that the standard 14 fonts cannot print.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { fixedDecimal, minorUnitsOf } from '../../../lib/money.js';
import { grouped } from '../../../lib/money.js';
import type { ClientInvoiceDocument, ClientInvoiceDocumentTax, PostalAddress, TaxCategory, UnitCode } from './client-invoice.document.js';
import { missingEInvoiceFields, writeEInvoice } from './einvoice/writer.js';
import { dayColumn } from '../../../lib/day.js';

export type ClientInvoicePdfFormat = 'pdf' | 'facturx';

export const clientInvoicePdfContentType = 'application/pdf';

/** A file name for the download, e.g. `invoice-2026-0042.pdf`. */
export function clientInvoicePdfFileName(document: ClientInvoiceDocument): string {
  const kind = document.type === 'credit_note' ? 'credit-note' : 'invoice';
  return `${kind}-${(document.number ?? 'draft').replace(/[^\w.-]+/g, '_')}.pdf`;
}

/** The fields a Factur-X PDF needs that `document` lacks: those of its embedded CII XML. */
export function missingFacturXFields(document: ClientInvoiceDocument): string[] {
  return missingEInvoiceFields(document, 'cii');
}

const require = createRequire(import.meta.url);
/** The two faces, read once per process (a few hundred KB each), parsed by pdfkit per document. */
let fonts: { regular: Buffer; bold: Buffer } | undefined;
const fontsOnce = () =>
  (fonts ??= {
    regular: fs.readFileSync(require.resolve('dejavu-fonts-ttf/ttf/DejaVuSansCondensed.ttf')),
    bold: fs.readFileSync(require.resolve('dejavu-fonts-ttf/ttf/DejaVuSansCondensed-Bold.ttf')),
  });

// Layout, in points on an A4 page (595 x 842).
const left = 56;
const right = 539;
const contentWidth = right - left;
const top = 48;
/** Where the footer starts: the flow breaks to a new page above it. */
const footerTop = 760;
const flowBottom = footerTop - 16;
const pageHeight = 841.89;

const ink = '#1d232b';
const muted = '#5f6b7a';
const accent = '#1f4e79';
const hairline = '#d5dbe3';
const shade = '#eef2f6';

// A MIN line is priced per hour, so it reads in hours: 1:35 h at 110.00 (the rate per hour) is 174.17.
const unitLabels: Record<UnitCode, [one: string, more: string]> = { HUR: ['h', 'h'], MIN: ['h', 'h'], DAY: ['day', 'days'], C62: ['unit', 'units'] };
const unitLabel = (unit: UnitCode, quantity: string) => unitLabels[unit][/^-?0*1(\.0*)?$/.test(quantity) ? 0 : 1];
const categoryLabels: Record<TaxCategory, string> = {
  S: 'Standard rate',
  Z: 'Zero rated',
  E: 'Exempt',
  AE: 'Reverse charge',
  K: 'Intra-EU supply',
  G: 'Export outside the EU',
  O: 'Not subject to VAT',
};

const dateFormat = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' });
/** `2026-11-02` as `2 November 2026`. */
const longDate = (date: string): string => dateFormat.format(dayColumn(date));

const shortDateFormat = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' });
/** `2026-10-01` as `1 Oct 2026`. */
const shortDate = (date: string): string => shortDateFormat.format(dayColumn(date));

const countryNames = new Intl.DisplayNames(['en'], { type: 'region' });
const countryName = (code: string): string => countryNames.of(code) ?? code;

/** `19.00` as `19 %`, `7.50` as `7.5 %`. */
const percent = (rate: string): string => `${rate.replace(/\.?0+$/, '')} %`;
/** At least two decimals, more only where the quantity has them: `7.5000` as `7.50`, `0.3333` stays. */
const quantityText = (quantity: string): string => grouped(quantity.replace(/(\.\d\d\d*?)0+$/, '$1'));
/** Whole minutes as hours and minutes, `95.0000` as `1:35` (a MIN line's quantity, priced per hour). */
const hoursAndMinutes = (minutes: string): string => {
  const total = Number(minutes);
  const sign = total < 0 ? '−' : '';
  const whole = Math.abs(total);
  return `${sign}${grouped(String(Math.floor(whole / 60)))}:${String(whole % 60).padStart(2, '0')}`;
};
/** A line's quantity as the PDF prints it: time in h:mm, anything else as a decimal (a minus sign where negative). */
const lineQuantityText = (line: { quantity: string; unit: UnitCode }): string =>
  line.unit === 'MIN' ? hoursAndMinutes(line.quantity) : quantityText(line.quantity).replace(/^-/, '−');
/** An IBAN in groups of four, as people read it. */
const ibanText = (iban: string): string => iban.replace(/\s+/g, '').replace(/(.{4})(?=.)/g, '$1 ');

const addressLines = (address: PostalAddress, withCountry: boolean): string[] => [
  address.line1,
  ...(address.line2 ? [address.line2] : []),
  `${address.postcode} ${address.city}`,
  ...(withCountry ? [countryName(address.countryCode)] : []),
];

interface Column {
  title: string;
  width: number;
  align: 'left' | 'right';
}

interface TextStyle {
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
class Sheet {
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

/**
 * The PDF of `document`: an invoice people read, or with `format: 'facturx'` the same pages as a Factur-X
 * PDF/A-3 carrying its CII XML. A Factur-X of a document that cannot be an e-invoice (a draft, missing
 * fields: `missingFacturXFields`) throws; check first.
 */
export async function renderClientInvoicePdf(document: ClientInvoiceDocument, options: { format: ClientInvoicePdfFormat }): Promise<Buffer> {
  const facturX = options.format === 'facturx';
  const xml = facturX ? await writeEInvoice(document, 'cii') : undefined;
  const { default: PDFDocument } = await import('pdfkit');
  const faces = fontsOnce();
  const issued = document.issueDate ? dayColumn(document.issueDate) : new Date();
  const kindTitle = document.type === 'credit_note' ? 'Credit note' : 'Invoice';
  const pdf: PDFKit.PDFDocument = new PDFDocument({
    size: 'A4',
    // The bottom margin keeps text that pdfkit flows itself (long notes) above the footer, on new pages.
    margins: { top, bottom: pageHeight - flowBottom, left, right: 595.28 - right },
    bufferPages: true,
    ...(facturX ? { pdfVersion: '1.7' as const, subset: 'PDF/A-3b' as const } : {}),
    info: {
      Title: `${kindTitle} ${document.number ?? '(draft)'}`,
      Author: document.seller.legalName,
      Subject: `${kindTitle} to ${document.buyer.name}`,
      Creator: 'Tally',
      // No ModDate: PDF/A wants each Info entry matched in the XMP, and pdfkit writes only the creation date there.
      CreationDate: issued,
    },
    lang: 'en',
  });
  const chunks: Buffer[] = [];
  pdf.on('data', (chunk: Buffer) => chunks.push(chunk));
  const ended = new Promise<void>((resolve, reject) => {
    pdf.on('end', resolve);
    pdf.on('error', reject);
  });
  pdf.registerFont('regular', faces.regular);
  pdf.registerFont('bold', faces.bold);

  const sheet = new Sheet(pdf, document);
  letterhead(sheet);
  addressAndFacts(sheet);
  heading(sheet);
  lineTable(sheet);
  breakdownAndTotals(sheet);
  paymentAndNotes(sheet);
  footers(sheet);

  if (xml !== undefined) await embedFacturX(pdf, xml, issued);
  pdf.end();
  await ended;
  return Buffer.concat(chunks);
}

/** Who sends, and what this is. */
function letterhead(sheet: Sheet): void {
  const seller = sheet.document.seller;
  sheet.write(seller.legalName, left, top, { size: 15, bold: true, color: accent, width: 300 });
  const sellerLines = [
    [...addressLines(seller.address, false), countryName(seller.address.countryCode)].join(' · '),
    [seller.email, seller.phone].filter(Boolean).join(' · '),
  ];
  let y = top + sheet.heightOf(seller.legalName, 300, 15, true) + 2;
  for (const line of sellerLines) {
    sheet.write(line, left, y, { size: 8, color: muted, width: 300 });
    y += 11;
  }
  sheet.write(sheet.kindTitle.toUpperCase(), left + 300, top - 2, { size: 22, bold: true, color: accent, width: contentWidth - 300, align: 'right' });
  sheet.y = Math.max(y, top + 40) + 10;
  sheet.rule(sheet.y, accent, 1.2);
}

/** The client's address under a one-line sender, as a windowed envelope shows it, and the invoice's facts beside it. */
function addressAndFacts(sheet: Sheet): void {
  const { document } = sheet;
  const { seller, buyer } = document;
  const addressTop = sheet.y + 28;
  const senderLine = [seller.legalName, seller.address.line1, `${seller.address.postcode} ${seller.address.city}`].join(' · ');
  sheet.write(senderLine, left, addressTop, { size: 6.5, color: muted, width: 260 });
  sheet.rule(addressTop + 10, hairline, 0.4, left, left + 250);
  let buyerY = addressTop + 18;
  sheet.write(buyer.name, left, buyerY, { size: 10.5, bold: true, width: 250 });
  buyerY += sheet.heightOf(buyer.name, 250, 10.5, true);
  const buyerLines = buyer.address ? addressLines(buyer.address, buyer.address.countryCode !== seller.address.countryCode) : [];
  for (const line of buyerLines) {
    sheet.write(line, left, buyerY, { size: 10, width: 250 });
    buyerY += sheet.heightOf(line, 250, 10);
  }
  if (buyer.vatId) {
    buyerY += 4;
    sheet.write(`VAT ID ${buyer.vatId}`, left, buyerY, { size: 8.5, color: muted, width: 250 });
    buyerY += 12;
  }

  const facts: [string, string][] = [
    [`${sheet.kindTitle} number`, document.number ?? 'assigned when issued'],
    ['Issue date', document.issueDate ? longDate(document.issueDate) : 'not yet issued'],
  ];
  if (document.dueDate && !sheet.creditNote) facts.push(['Due date', longDate(document.dueDate)]);
  facts.push(['Service period', `${shortDate(document.periodFrom)} – ${shortDate(document.periodTo)}`]);
  if (document.creditNoteFor) facts.push(['Corrects invoice', `${document.creditNoteFor.number} of ${shortDate(document.creditNoteFor.issueDate)}`]);
  if (document.buyerReference) facts.push(['Your reference', document.buyerReference]);
  if (seller.vatId) facts.push(['Our VAT ID', seller.vatId]);
  else if (seller.taxNumber) facts.push(['Our tax number', seller.taxNumber]);
  const factsLeft = 330;
  const valueWidth = right - factsLeft - 88;
  let factsY = addressTop;
  for (const [label, value] of facts) {
    sheet.write(label, factsLeft, factsY, { size: 8.5, color: muted, width: 85 });
    sheet.write(value, factsLeft + 88, factsY, { size: 9, bold: true, width: valueWidth, align: 'right' });
    factsY += Math.max(sheet.heightOf(value, valueWidth, 9, true), 11) + 4;
  }
  sheet.y = Math.max(buyerY, factsY);
}

/** The title and a sentence that says what this is. */
function heading(sheet: Sheet): void {
  const { document } = sheet;
  sheet.y += 30;
  sheet.write(sheet.title, left, sheet.y, { size: 15, bold: true, width: contentWidth });
  sheet.y += 22;
  const corrected = document.creditNoteFor;
  const intro = corrected
    ? `This credit note corrects invoice ${corrected.number} of ${longDate(corrected.issueDate)}. We credit you the following services:`
    : sheet.creditNote
      ? 'We credit you the following services:'
      : `For our services from ${longDate(document.periodFrom)} to ${longDate(document.periodTo)} we invoice you as follows:`;
  sheet.write(intro, left, sheet.y, { size: 9.5, width: contentWidth });
  sheet.y += sheet.heightOf(intro, contentWidth, 9.5) + 12;
}

const columnGap = 6;

/** The lines, with the column titles again on every page they run onto. */
function lineTable(sheet: Sheet): void {
  const { document } = sheet;
  const fixedColumns: Column[] = [
    { title: 'Pos.', width: 22, align: 'left' },
    { title: 'Description', width: 0, align: 'left' },
    { title: 'Quantity', width: 48, align: 'right' },
    { title: 'Unit', width: 30, align: 'left' },
    { title: 'Unit price', width: 56, align: 'right' },
    { title: 'VAT', width: 34, align: 'right' },
    { title: `Amount (${document.currency})`, width: 70, align: 'right' },
  ];
  const descriptionWidth = contentWidth - fixedColumns.reduce((sum, column) => sum + column.width + columnGap, 0) + columnGap;
  const columns = fixedColumns.map((column) => (column.width === 0 ? { ...column, width: descriptionWidth } : column));
  const titles = () => {
    sheet.pdf.rect(left, sheet.y, contentWidth, 18).fill(shade);
    let x = left;
    for (const column of columns) {
      sheet.write(column.title, x, sheet.y + 5, { size: 8, bold: true, color: muted, width: column.width, align: column.align });
      x += column.width + columnGap;
    }
    sheet.y += 24;
  };
  // Room for the titles and a line at least, or the table starts on the next page.
  sheet.keep(60);
  titles();
  for (const line of document.lines) {
    const cells = [
      String(line.position),
      line.description,
      lineQuantityText(line),
      unitLabel(line.unit, line.quantity),
      sheet.money(line.unitPrice),
      line.taxCategory === 'S' ? percent(line.taxRate) : line.taxCategory,
      sheet.money(line.netAmount).replace(/^-/, '−'),
    ];
    const height = Math.max(...cells.map((cell, index) => sheet.heightOf(cell, (columns[index] as Column).width)));
    if (sheet.keep(height + 8)) titles();
    let x = left;
    cells.forEach((cell, index) => {
      const column = columns[index] as Column;
      sheet.write(cell, x, sheet.y, { size: 9, width: column.width, align: column.align, color: index === 0 ? muted : ink });
      x += column.width + columnGap;
    });
    sheet.y += height + 5;
    sheet.rule(sheet.y - 2.5);
    sheet.y += 3;
  }
}

interface TotalsRow {
  label: string;
  amount: string;
  strong?: boolean;
  ruleAbove?: boolean;
}

const isZeroAmount = (amount: string) => /^-?0*\.?0*$/.test(amount);

/** The VAT breakdown with its exemption reasons (left) beside the totals (right), kept together on one page. */
function breakdownAndTotals(sheet: Sheet): void {
  const { document } = sheet;
  const { totals, currency } = document;
  const rows: TotalsRow[] = [{ label: 'Net amount', amount: sheet.money(totals.lineNet) }];
  // One discount row: its spread over the VAT rates shows in the taxable amounts below it.
  if (document.allowances.length > 0) {
    const reasons = [...new Set(document.allowances.map((allowance) => allowance.reason))].join(', ');
    rows.push({ label: reasons, amount: `−${sheet.money(totals.allowances)}` });
    rows.push({ label: 'Net after discount', amount: sheet.money(totals.taxBasis), ruleAbove: true });
  }
  for (const tax of totals.taxes) {
    const label = tax.category === 'S' ? `VAT ${percent(tax.rate)} on ${sheet.money(tax.basis)}` : `VAT ${percent(tax.rate)} (${categoryLabels[tax.category]})`;
    rows.push({ label, amount: sheet.money(tax.amount) });
  }
  rows.push({ label: `${sheet.creditNote ? 'Total credit' : 'Total'} (${currency})`, amount: sheet.money(totals.gross), strong: true, ruleAbove: true });
  if (!isZeroAmount(totals.paid)) {
    rows.push({ label: 'Paid', amount: `−${sheet.money(totals.paid)}` });
    rows.push({ label: `Amount due (${currency})`, amount: sheet.money(totals.due), strong: true, ruleAbove: true });
  }
  const totalsLeft = 318;
  const labelWidth = right - totalsLeft - 90;
  const breakdownWidth = 238;
  const exemptions = totals.taxes.filter((tax): tax is ClientInvoiceDocumentTax & { exemptionReason: string } => Boolean(tax.exemptionReason));
  const exemptionText = exemptions.map((tax) => `${categoryLabels[tax.category]}: ${tax.exemptionReason}`).join('\n');
  const totalsHeight = rows.reduce((sum, row) => sum + sheet.heightOf(row.label, labelWidth, row.strong ? 10.5 : 9, row.strong) + 12, 0);
  const breakdownHeight = 34 + totals.taxes.length * 14 + (exemptionText ? sheet.heightOf(exemptionText, breakdownWidth, 8) + 8 : 0);
  sheet.y += 10;
  sheet.keep(Math.max(totalsHeight, breakdownHeight));
  const blockTop = sheet.y;

  let rowY = blockTop;
  for (const row of rows) {
    if (row.ruleAbove) {
      sheet.rule(rowY, row.strong ? ink : hairline, row.strong ? 0.9 : 0.6, totalsLeft, right);
      rowY += 4;
    }
    const size = row.strong ? 10.5 : 9;
    sheet.write(row.label, totalsLeft, rowY, { size, bold: row.strong, width: labelWidth });
    sheet.write(row.amount, right - 88, rowY, { size, bold: row.strong, width: 88, align: 'right' });
    rowY += sheet.heightOf(row.label, labelWidth, size, row.strong) + (row.strong ? 8 : 4);
  }

  let taxY = blockTop;
  sheet.write('VAT breakdown', left, taxY, { size: 8.5, bold: true, color: muted, width: breakdownWidth });
  taxY += 14;
  const taxColumns: Column[] = [
    { title: 'Category', width: 90, align: 'left' },
    { title: 'Rate', width: 38, align: 'right' },
    { title: 'Taxable', width: 58, align: 'right' },
    { title: 'VAT', width: 52, align: 'right' },
  ];
  const taxRow = (cells: string[], bold: boolean) => {
    let x = left;
    cells.forEach((cell, index) => {
      const column = taxColumns[index] as Column;
      sheet.write(cell, x, taxY, { size: 8, bold, color: bold ? muted : ink, width: column.width - 4, align: column.align });
      x += column.width;
    });
    taxY += 13;
  };
  taxRow(
    taxColumns.map((column) => column.title),
    true,
  );
  sheet.rule(taxY - 2, hairline, 0.6, left, left + breakdownWidth);
  for (const tax of totals.taxes) {
    taxRow([`${categoryLabels[tax.category]} (${tax.category})`, percent(tax.rate), sheet.money(tax.basis), sheet.money(tax.amount)], false);
  }
  if (exemptionText) {
    taxY += 5;
    sheet.write(exemptionText, left, taxY, { size: 8, color: muted, width: breakdownWidth });
    taxY += sheet.heightOf(exemptionText, breakdownWidth, 8);
  }
  sheet.y = Math.max(rowY, taxY) + 22;
}

/** How to pay (or how the credit reaches the client) with the bank account, then the notes. */
function paymentAndNotes(sheet: Sheet): void {
  const { document } = sheet;
  const { seller } = document;
  const due = `${sheet.money(document.totals.due)} ${document.currency}`;
  const payment = sheet.creditNote
    ? `We will transfer ${due} to your account.`
    : isZeroAmount(document.totals.due)
      ? 'This invoice has been paid in full. Thank you.'
      : `Please transfer ${due}${document.dueDate ? ` by ${longDate(document.dueDate)}` : ''}${
          document.paymentTermsDays > 0 ? ` (within ${document.paymentTermsDays} days, without deduction)` : ''
        }, quoting ${document.number ? `invoice number ${document.number}` : 'the invoice number'}.`;
  const bank: [string, string][] = [];
  if (seller.iban && !sheet.creditNote) {
    bank.push(['Account holder', seller.legalName], ['IBAN', ibanText(seller.iban)]);
    if (seller.bic) bank.push(['BIC', seller.bic]);
    if (seller.bankName) bank.push(['Bank', seller.bankName]);
  }
  sheet.keep(16 + sheet.heightOf(payment, contentWidth, 9.5) + 6 + bank.length * 13);
  sheet.write('Payment', left, sheet.y, { size: 10, bold: true, color: accent, width: contentWidth });
  sheet.y += 16;
  sheet.write(payment, left, sheet.y, { size: 9.5, width: contentWidth });
  sheet.y += sheet.heightOf(payment, contentWidth, 9.5) + 6;
  for (const [label, value] of bank) {
    sheet.write(label, left, sheet.y, { size: 9, color: muted, width: 90 });
    sheet.write(value, left + 92, sheet.y, { size: 9, bold: label === 'IBAN', width: contentWidth - 92 });
    sheet.y += 13;
  }
  const notes = document.notes?.trim() ?? '';
  if (notes) {
    sheet.y += 12;
    // The heading with three lines at least; longer notes flow on over as many pages as they take.
    sheet.keep(16 + Math.min(sheet.heightOf(notes, contentWidth, 9.5), 40));
    sheet.write('Notes', left, sheet.y, { size: 10, bold: true, color: accent, width: contentWidth });
    sheet.y += 16;
    sheet.write(notes, left, sheet.y, { size: 9.5, width: contentWidth });
  }
}

/** On every page: the footer with the seller's legal data and the page count, and on a draft the mark. */
function footers(sheet: Sheet): void {
  const { pdf, document } = sheet;
  const { seller } = document;
  const columns = [
    [
      seller.legalName,
      seller.address.line1,
      ...(seller.address.line2 ? [seller.address.line2] : []),
      `${seller.address.postcode} ${seller.address.city}`,
      ...(seller.registrationId ? [seller.registrationId] : []),
    ],
    [
      seller.email,
      ...(seller.phone ? [seller.phone] : []),
      ...(seller.vatId ? [`VAT ID ${seller.vatId}`] : []),
      ...(seller.taxNumber ? [`Tax no. ${seller.taxNumber}`] : []),
    ],
    seller.iban ? [...(seller.bankName ? [seller.bankName] : []), `IBAN ${ibanText(seller.iban)}`, ...(seller.bic ? [`BIC ${seller.bic}`] : [])] : [],
  ];
  const columnWidth = contentWidth / 3;
  const range = pdf.bufferedPageRange();
  for (let index = 0; index < range.count; index += 1) {
    pdf.switchToPage(range.start + index);
    if (document.status === 'draft') {
      pdf.save();
      pdf.rotate(-35, { origin: [297.64, 421] });
      pdf.fillOpacity(0.13);
      sheet.write('DRAFT', 0, 360, { size: 130, bold: true, color: '#b03a2e', width: 595.28, align: 'center' });
      pdf.restore();
      pdf.fillOpacity(1);
    }
    // The footer stands below the flow's margin: without it there, pdfkit would start a page for it.
    pdf.page.margins.bottom = 0;
    sheet.rule(footerTop, hairline, 0.6);
    columns.forEach((lines, column) => {
      sheet.write(lines.join('\n'), left + column * columnWidth, footerTop + 6, { size: 7, color: muted, width: columnWidth - 8 });
    });
    sheet.write(`Page ${index + 1} of ${range.count}`, left, 818, { size: 7.5, color: muted, width: contentWidth, align: 'right' });
    if (range.count > 1) sheet.write(sheet.title, left, 818, { size: 7.5, color: muted, width: contentWidth / 2 });
  }
}

const facturXNamespace = 'urn:factur-x:pdfa:CrossIndustryDocument:invoice:1p0#';
const rdfNamespace = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#';

/** The XMP properties Factur-X defines, each described in the PDF/A extension schema that PDF/A requires for them. */
const facturXProperties: [name: string, value: string, description: string][] = [
  ['DocumentType', 'INVOICE', 'The type of the hybrid document in capital letters, e.g. INVOICE or ORDER'],
  ['DocumentFileName', 'factur-x.xml', 'The name of the embedded XML document'],
  ['Version', '1.0', 'The actual version of the standard applying to the embedded XML document'],
  ['ConformanceLevel', 'EN 16931', 'The conformance level of the embedded XML document'],
];

/** `xml` as the attached `factur-x.xml` (relationship Alternative: the XML says what the pages show) and its XMP. */
async function embedFacturX(pdf: PDFKit.PDFDocument, xml: string, date: Date): Promise<void> {
  const { create } = await import('xmlbuilder2');
  const attachment: PDFKit.Mixins.PDFAttachmentOptions & { relationship: string } = {
    name: 'factur-x.xml',
    type: 'text/xml',
    description: 'Factur-X / ZUGFeRD invoice (EN 16931)',
    relationship: 'Alternative',
    creationDate: date,
    modifiedDate: date,
  };
  pdf.file(Buffer.from(xml, 'utf8'), attachment);
  const values = create()
    .ele(rdfNamespace, 'rdf:Description')
    .att(rdfNamespace, 'rdf:about', '')
    .att('http://www.w3.org/2000/xmlns/', 'xmlns:fx', facturXNamespace);
  for (const [name, value] of facturXProperties) values.ele(facturXNamespace, `fx:${name}`).txt(value);
  const extension = create()
    .ele(rdfNamespace, 'rdf:Description')
    .att(rdfNamespace, 'rdf:about', '')
    .att('http://www.w3.org/2000/xmlns/', 'xmlns:pdfaExtension', 'http://www.aiim.org/pdfa/ns/extension/')
    .att('http://www.w3.org/2000/xmlns/', 'xmlns:pdfaSchema', 'http://www.aiim.org/pdfa/ns/schema#')
    .att('http://www.w3.org/2000/xmlns/', 'xmlns:pdfaProperty', 'http://www.aiim.org/pdfa/ns/property#');
  const schema = extension
    .ele('http://www.aiim.org/pdfa/ns/extension/', 'pdfaExtension:schemas')
    .ele(rdfNamespace, 'rdf:Bag')
    .ele(rdfNamespace, 'rdf:li')
    .att(rdfNamespace, 'rdf:parseType', 'Resource');
  schema.ele('http://www.aiim.org/pdfa/ns/schema#', 'pdfaSchema:schema').txt('Factur-X PDFA Extension Schema');
  schema.ele('http://www.aiim.org/pdfa/ns/schema#', 'pdfaSchema:namespaceURI').txt(facturXNamespace);
  schema.ele('http://www.aiim.org/pdfa/ns/schema#', 'pdfaSchema:prefix').txt('fx');
  const properties = schema.ele('http://www.aiim.org/pdfa/ns/schema#', 'pdfaSchema:property').ele(rdfNamespace, 'rdf:Seq');
  for (const [name, , description] of facturXProperties) {
    const property = properties.ele(rdfNamespace, 'rdf:li').att(rdfNamespace, 'rdf:parseType', 'Resource');
    property.ele('http://www.aiim.org/pdfa/ns/property#', 'pdfaProperty:name').txt(name);
    property.ele('http://www.aiim.org/pdfa/ns/property#', 'pdfaProperty:valueType').txt('Text');
    property.ele('http://www.aiim.org/pdfa/ns/property#', 'pdfaProperty:category').txt('external');
    property.ele('http://www.aiim.org/pdfa/ns/property#', 'pdfaProperty:description').txt(description);
  }
  // Fragments: pdfkit writes the XMP packet around them (and the PDF/A identification beside them).
  pdf.appendXML(values.end({ headless: true }));
  pdf.appendXML(extension.end({ headless: true }));
}
