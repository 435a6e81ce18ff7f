/**
 * The parts of a client invoice's pages, top to bottom: letterhead, the client's address beside the invoice's
 * facts, the heading, the lines, the VAT breakdown beside the totals, payment and notes, and on every page the
 * footer (and a draft's mark). Each writes on the `Sheet` from its `y` down (client-invoice.pdf-sheet.ts).
 */
import type { ClientInvoiceDocumentTax } from './client-invoice.document.js';
import {
  accent,
  addressLines,
  categoryLabels,
  type Column,
  contentWidth,
  countryName,
  footerTop,
  hairline,
  ibanText,
  ink,
  left,
  lineQuantityText,
  longDate,
  muted,
  percent,
  right,
  shade,
  type Sheet,
  shortDate,
  top,
  unitLabel,
} from './client-invoice.pdf-sheet.js';

/** The whole invoice on `sheet`, page after page, then the footers on every page. */
export function layOutClientInvoice(sheet: Sheet): void {
  letterhead(sheet);
  addressAndFacts(sheet);
  heading(sheet);
  lineTable(sheet);
  breakdownAndTotals(sheet);
  paymentAndNotes(sheet);
  footers(sheet);
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
