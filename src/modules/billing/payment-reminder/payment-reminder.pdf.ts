/**
 * A payment reminder as the PDF a business sends (the Mahnung of German practice): on the invoice's sheet and in
 * the language it was issued in, the seller's letterhead, the client's address, the reminder's facts (level,
 * date, the invoice's number and dates, days overdue), the seller's own text, what was invoiced, paid and is
 * open, the fee, and what is due now, with the bank account. Written once, when the reminder is made, and kept.
 */
import { dayColumn } from '../../../lib/day.js';
import type { ClientInvoiceDocument } from '../client-invoice/client-invoice.document.js';
import { addressAndFacts, footers, letterhead, paymentBlock, sellerTaxFact } from '../client-invoice/client-invoice.pdf-layout.js';
import { openPdf } from '../client-invoice/client-invoice.pdf.js';
import { contentWidth, hairline, ink, left, right, Sheet } from '../client-invoice/client-invoice.pdf-sheet.js';

/** What a reminder says beyond its invoice. */
export interface ReminderFacts {
  level: number;
  /** `YYYY-MM-DD`, the day it was made. */
  date: string;
  daysOverdue: number;
  /** Decimal strings at the currency's scale. */
  paid: string;
  open: string;
  fee: string;
  /** open + fee */
  totalDue: string;
  /** The level's text of the seller, printed above the standard one; empty for none. */
  text: string;
}

/** The reminder PDF of the issued invoice `document`. */
export async function renderReminderPdf(document: ClientInvoiceDocument, reminder: ReminderFacts): Promise<Buffer> {
  const { pdf, ended } = await openPdf(document, dayColumn(reminder.date), false, 'reminder');
  const sheet = new Sheet(pdf, document, 'reminder');
  const { locale } = sheet;
  const number = document.number ?? '';
  letterhead(sheet);
  addressAndFacts(sheet, [
    [sheet.t('reminder.date'), locale.date(reminder.date)],
    [sheet.t('reminder.invoiceNumber'), number],
    [sheet.t('reminder.invoiceDate'), document.issueDate ? locale.date(document.issueDate) : ''],
    [sheet.t('reminder.dueDate'), document.dueDate ? locale.date(document.dueDate) : ''],
    [sheet.t('reminder.daysOverdue'), locale.number(String(reminder.daysOverdue), 0)],
    ...sellerTaxFact(sheet),
  ]);
  sheet.y += 30;
  sheet.write(sheet.t('reminder.level', { level: reminder.level }), left, sheet.y, { size: 15, bold: true, width: contentWidth });
  sheet.y += 24;
  const paragraphs = [
    ...(reminder.text.trim() ? [reminder.text.trim()] : []),
    sheet.t('reminder.intro', {
      number,
      date: document.issueDate ? locale.longDate(document.issueDate) : '',
      due: document.dueDate ? locale.longDate(document.dueDate) : '',
    }),
  ];
  for (const paragraph of paragraphs) {
    sheet.write(paragraph, left, sheet.y, { size: 9.5, width: contentWidth });
    sheet.y += sheet.heightOf(paragraph, contentWidth, 9.5) + 8;
  }
  const rows: [string, string, boolean][] = [
    [sheet.t('reminder.invoiceTotal'), sheet.money(document.totals.gross), false],
    // Taken off the total: with a minus, unless nothing was paid (no "−0.00").
    [sheet.t('reminder.paid'), /^0(\.0*)?$/.test(reminder.paid) ? sheet.money(reminder.paid) : `−${sheet.money(reminder.paid)}`, false],
    [sheet.t('reminder.open'), sheet.money(reminder.open), false],
    [sheet.t('reminder.fee'), sheet.money(reminder.fee), false],
    [sheet.t('reminder.totalDue', { currency: document.currency }), sheet.money(reminder.totalDue), true],
  ];
  const labelsLeft = 318;
  sheet.y += 8;
  for (const [label, amount, strong] of rows) {
    if (strong) {
      sheet.rule(sheet.y, ink, 0.9, labelsLeft, right);
      sheet.y += 4;
    }
    const size = strong ? 10.5 : 9;
    sheet.write(label, labelsLeft, sheet.y, { size, bold: strong, width: right - labelsLeft - 90 });
    sheet.write(amount, right - 88, sheet.y, { size, bold: strong, width: 88, align: 'right' });
    sheet.y += strong ? 20 : 15;
  }
  sheet.rule(sheet.y, hairline, 0.6);
  sheet.y += 18;
  paymentBlock(sheet, sheet.t('reminder.request', { amount: locale.amount(reminder.totalDue, document.currency), number }), true);
  footers(sheet);
  pdf.end();
  return ended;
}
