/**
 * The parts of a client invoice's pages, top to bottom: letterhead, the client's address beside the invoice's
 * facts, the heading, the lines, the VAT breakdown beside the totals, payment and notes, and on every page the
 * footer (and a draft's mark). Each writes on the `Sheet` from its `y` down (client-invoice.pdf-sheet.ts).
 */
import type { ClientInvoiceDocumentTax } from './client-invoice.document.js';
import {
  accent,
  addressLines,
  categoryLabel,
  type Column,
  contentWidth,
  footerTop,
  hairline,
  ibanText,
  ink,
  left,
  lineQuantityText,
  muted,
  right,
  shade,
  type Sheet,
  top,
  unitLabel,
} from './client-invoice.pdf-sheet.js';

/** The whole invoice on `sheet`, page after page, then the footers on every page. */
export function layOutClientInvoice(sheet: Sheet): void {
  letterhead(sheet);
  addressAndFacts(sheet, invoiceFacts(sheet));
  heading(sheet);
  lineTable(sheet);
  breakdownAndTotals(sheet);
  paymentAndNotes(sheet);
  footers(sheet);
}

/** Who sends, and what this is. */
export function letterhead(sheet: Sheet): void {
  const seller = sheet.document.seller;
  const { locale } = sheet;
  sheet.write(seller.legalName, left, top, { size: 15, bold: true, color: accent, width: 300 });
  const sellerLines = [
    [...addressLines(locale, seller.address, false), locale.country(seller.address.countryCode)].join(' · '),
    [seller.email, seller.phone].filter(Boolean).join(' · '),
  ];
  let y = top + sheet.heightOf(seller.legalName, 300, 15, true) + 2;
  for (const line of sellerLines) {
    sheet.write(line, left, y, { size: 8, color: muted, width: 300 });
    y += 11;
  }
  // On one line: a longer word (ZAHLUNGSERINNERUNG) is set smaller rather than broken.
  const kind = sheet.kindTitle.toUpperCase();
  const kindWidth = contentWidth - 300;
  let kindSize = 22;
  while (kindSize > 12 && sheet.pdf.font('bold').fontSize(kindSize).widthOfString(kind) > kindWidth) kindSize -= 1;
  sheet.write(kind, left + 300, top - 2 + (22 - kindSize) / 2, { size: kindSize, bold: true, color: accent, width: kindWidth, align: 'right' });
  sheet.y = Math.max(y, top + 40) + 10;
  sheet.rule(sheet.y, accent, 1.2);
}

/** The client's address under a one-line sender, as a windowed envelope shows it, and the document's `facts` beside it. */
export function addressAndFacts(sheet: Sheet, facts: readonly [string, string][]): void {
  const { document, locale } = sheet;
  const { seller, buyer } = document;
  const addressTop = sheet.y + 28;
  const senderLine = [seller.legalName, seller.address.line1, `${seller.address.postcode} ${seller.address.city}`].join(' · ');
  sheet.write(senderLine, left, addressTop, { size: 6.5, color: muted, width: 260 });
  sheet.rule(addressTop + 10, hairline, 0.4, left, left + 250);
  let buyerY = addressTop + 18;
  sheet.write(buyer.name, left, buyerY, { size: 10.5, bold: true, width: 250 });
  buyerY += sheet.heightOf(buyer.name, 250, 10.5, true);
  const buyerLines = buyer.address ? addressLines(locale, buyer.address, buyer.address.countryCode !== seller.address.countryCode) : [];
  for (const line of buyerLines) {
    sheet.write(line, left, buyerY, { size: 10, width: 250 });
    buyerY += sheet.heightOf(line, 250, 10);
  }
  if (buyer.vatId) {
    buyerY += 4;
    sheet.write(sheet.t('facts.vatId', { id: buyer.vatId }), left, buyerY, { size: 8.5, color: muted, width: 250 });
    buyerY += 12;
  }

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

/** The seller's VAT id (or tax number) as the last fact of every document. */
export function sellerTaxFact(sheet: Sheet): [string, string][] {
  const { seller } = sheet.document;
  if (seller.vatId) return [[sheet.t('facts.ourVatId'), seller.vatId]];
  return seller.taxNumber ? [[sheet.t('facts.ourTaxNumber'), seller.taxNumber]] : [];
}

/** The invoice's facts: number, dates, period, what it corrects, the client's reference and the seller's tax id. */
function invoiceFacts(sheet: Sheet): [string, string][] {
  const { document, locale } = sheet;
  const facts: [string, string][] = [
    [sheet.t('facts.number', { kind: sheet.kindTitle }), document.number ?? sheet.t('facts.numberPending')],
    [sheet.t('facts.issueDate'), document.issueDate ? locale.date(document.issueDate) : sheet.t('facts.notIssued')],
  ];
  if (document.dueDate && !sheet.creditNote) facts.push([sheet.t('facts.dueDate'), locale.date(document.dueDate)]);
  facts.push([sheet.t('facts.servicePeriod'), `${locale.date(document.periodFrom)} – ${locale.date(document.periodTo)}`]);
  if (document.creditNoteFor) {
    facts.push([
      sheet.t('facts.correctsInvoice'),
      sheet.t('facts.invoiceOf', { number: document.creditNoteFor.number, date: locale.date(document.creditNoteFor.issueDate) }),
    ]);
  }
  if (document.buyerReference) facts.push([sheet.t('facts.yourReference'), document.buyerReference]);
  return [...facts, ...sellerTaxFact(sheet)];
}

/** The title and a sentence that says what this is. */
function heading(sheet: Sheet): void {
  const { document, locale } = sheet;
  sheet.y += 30;
  sheet.write(sheet.title, left, sheet.y, { size: 15, bold: true, width: contentWidth });
  sheet.y += 22;
  const corrected = document.creditNoteFor;
  const intro = corrected
    ? sheet.t('intro.correction', { number: corrected.number, date: locale.longDate(corrected.issueDate) })
    : sheet.creditNote
      ? sheet.t('intro.credit')
      : sheet.t('intro.invoice', { from: locale.longDate(document.periodFrom), to: locale.longDate(document.periodTo) });
  sheet.write(intro, left, sheet.y, { size: 9.5, width: contentWidth });
  sheet.y += sheet.heightOf(intro, contentWidth, 9.5) + 12;
}

const columnGap = 6;

/** The lines, with the column titles again on every page they run onto. */
function lineTable(sheet: Sheet): void {
  const { document, locale } = sheet;
  const fixedColumns: Column[] = [
    { title: sheet.t('columns.position'), width: 22, align: 'left' },
    { title: sheet.t('columns.description'), width: 0, align: 'left' },
    { title: sheet.t('columns.quantity'), width: 48, align: 'right' },
    { title: sheet.t('columns.unit'), width: 30, align: 'left' },
    { title: sheet.t('columns.unitPrice'), width: 56, align: 'right' },
    { title: sheet.t('columns.vat'), width: 34, align: 'right' },
    { title: sheet.t('columns.amount', { currency: document.currency }), width: 70, align: 'right' },
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
      lineQuantityText(locale, line),
      unitLabel(locale, line.unit, line.quantity),
      sheet.money(line.unitPrice),
      line.taxCategory === 'S' ? locale.percent(line.taxRate) : line.taxCategory,
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
  const { document, locale } = sheet;
  const { totals, currency } = document;
  const rows: TotalsRow[] = [{ label: sheet.t('totals.net'), amount: sheet.money(totals.lineNet) }];
  // One discount row: its spread over the VAT rates shows in the taxable amounts below it.
  if (document.allowances.length > 0) {
    const reasons = [...new Set(document.allowances.map((allowance) => allowance.reason))].join(', ');
    rows.push({ label: reasons, amount: `−${sheet.money(totals.allowances)}` });
    rows.push({ label: sheet.t('totals.netAfterDiscount'), amount: sheet.money(totals.taxBasis), ruleAbove: true });
  }
  for (const tax of totals.taxes) {
    const label =
      tax.category === 'S'
        ? sheet.t('totals.vatOn', { rate: locale.percent(tax.rate), basis: sheet.money(tax.basis) })
        : sheet.t('totals.vatCategory', { rate: locale.percent(tax.rate), category: categoryLabel(locale, tax.category) });
    rows.push({ label, amount: sheet.money(tax.amount) });
  }
  rows.push({
    label: sheet.t(sheet.creditNote ? 'totals.totalCredit' : 'totals.total', { currency }),
    amount: sheet.money(totals.gross),
    strong: true,
    ruleAbove: true,
  });
  if (!isZeroAmount(totals.paid)) {
    rows.push({ label: sheet.t('totals.paid'), amount: `−${sheet.money(totals.paid)}` });
    rows.push({ label: sheet.t('totals.due', { currency }), amount: sheet.money(totals.due), strong: true, ruleAbove: true });
  }
  const totalsLeft = 318;
  const labelWidth = right - totalsLeft - 90;
  const breakdownWidth = 238;
  const exemptions = totals.taxes.filter((tax): tax is ClientInvoiceDocumentTax & { exemptionReason: string } => Boolean(tax.exemptionReason));
  const exemptionText = exemptions.map((tax) => `${categoryLabel(locale, tax.category)}: ${tax.exemptionReason}`).join('\n');
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
  sheet.write(sheet.t('breakdown.title'), left, taxY, { size: 8.5, bold: true, color: muted, width: breakdownWidth });
  taxY += 14;
  const taxColumns: Column[] = [
    { title: sheet.t('breakdown.category'), width: 90, align: 'left' },
    { title: sheet.t('breakdown.rate'), width: 38, align: 'right' },
    { title: sheet.t('breakdown.taxable'), width: 58, align: 'right' },
    { title: sheet.t('breakdown.vat'), width: 52, align: 'right' },
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
    taxRow([`${categoryLabel(locale, tax.category)} (${tax.category})`, locale.percent(tax.rate), sheet.money(tax.basis), sheet.money(tax.amount)], false);
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
  const { document, locale } = sheet;
  const due = locale.amount(document.totals.due, document.currency);
  const payment = sheet.creditNote
    ? sheet.t('payment.refund', { amount: due })
    : isZeroAmount(document.totals.due)
      ? sheet.t('payment.paidInFull')
      : sheet.t('payment.transfer', {
          amount: due,
          by: document.dueDate ? sheet.t('payment.by', { date: locale.date(document.dueDate) }) : '',
          within: document.paymentTermsDays > 0 ? sheet.t('payment.within', { days: document.paymentTermsDays }) : '',
          reference: document.number ? sheet.t('payment.referenceNumber', { number: document.number }) : sheet.t('payment.referencePending'),
        });
  paymentBlock(sheet, payment, !sheet.creditNote);
  const notes = document.notes?.trim() ?? '';
  if (notes) {
    sheet.y += 12;
    // The heading with three lines at least; longer notes flow on over as many pages as they take.
    sheet.keep(16 + Math.min(sheet.heightOf(notes, contentWidth, 9.5), 40));
    sheet.write(sheet.t('payment.notes'), left, sheet.y, { size: 10, bold: true, color: accent, width: contentWidth });
    sheet.y += 16;
    sheet.write(notes, left, sheet.y, { size: 9.5, width: contentWidth });
  }
}

/** The payment heading, the sentence that says how to pay, and (when `withBank`) the seller's bank account. */
export function paymentBlock(sheet: Sheet, payment: string, withBank: boolean): void {
  const { seller } = sheet.document;
  const bank: [string, string][] = [];
  if (seller.iban && withBank) {
    bank.push([sheet.t('payment.accountHolder'), seller.legalName], [sheet.t('payment.iban'), ibanText(seller.iban)]);
    if (seller.bic) bank.push([sheet.t('payment.bic'), seller.bic]);
    if (seller.bankName) bank.push([sheet.t('payment.bank'), seller.bankName]);
  }
  sheet.keep(16 + sheet.heightOf(payment, contentWidth, 9.5) + 6 + bank.length * 13);
  sheet.write(sheet.t('payment.title'), left, sheet.y, { size: 10, bold: true, color: accent, width: contentWidth });
  sheet.y += 16;
  sheet.write(payment, left, sheet.y, { size: 9.5, width: contentWidth });
  sheet.y += sheet.heightOf(payment, contentWidth, 9.5) + 6;
  bank.forEach(([label, value], index) => {
    sheet.write(label, left, sheet.y, { size: 9, color: muted, width: 90 });
    sheet.write(value, left + 92, sheet.y, { size: 9, bold: index === 1, width: contentWidth - 92 });
    sheet.y += 13;
  });
}

/** On every page: the footer with the seller's legal data and the page count, and on a draft the mark. */
export function footers(sheet: Sheet): void {
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
      ...(seller.vatId ? [sheet.t('facts.vatId', { id: seller.vatId })] : []),
      ...(seller.taxNumber ? [sheet.t('facts.taxNumber', { number: seller.taxNumber })] : []),
    ],
    seller.iban
      ? [
          ...(seller.bankName ? [seller.bankName] : []),
          `${sheet.t('payment.iban')} ${ibanText(seller.iban)}`,
          ...(seller.bic ? [`${sheet.t('payment.bic')} ${seller.bic}`] : []),
        ]
      : [],
  ];
  const columnWidth = contentWidth / 3;
  const range = pdf.bufferedPageRange();
  for (let index = 0; index < range.count; index += 1) {
    pdf.switchToPage(range.start + index);
    if (document.status === 'draft') {
      pdf.save();
      pdf.rotate(-35, { origin: [297.64, 421] });
      pdf.fillOpacity(0.13);
      sheet.write(sheet.t('document.draftMark'), 0, 360, { size: 130, bold: true, color: '#b03a2e', width: 595.28, align: 'center' });
      pdf.restore();
      pdf.fillOpacity(1);
    }
    // The footer stands below the flow's margin: without it there, pdfkit would start a page for it.
    pdf.page.margins.bottom = 0;
    sheet.rule(footerTop, hairline, 0.6);
    columns.forEach((lines, column) => {
      sheet.write(lines.join('\n'), left + column * columnWidth, footerTop + 6, { size: 7, color: muted, width: columnWidth - 8 });
    });
    sheet.write(sheet.t('document.page', { page: index + 1, pages: range.count }), left, 818, { size: 7.5, color: muted, width: contentWidth, align: 'right' });
    if (range.count > 1) sheet.write(sheet.title, left, 818, { size: 7.5, color: muted, width: contentWidth / 2 });
  }
}
