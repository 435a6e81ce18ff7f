/**
 * A reminder's PDF, written once from what its row froze (level, days overdue, fee, open amount, the level's
 * text, the day it was made) and the issued invoice (which never changes), then kept in the row: the sweep writes
 * it right after the reminders it made, and a read that finds none yet (a sweep that stopped in between) writes it
 * the same way. Whoever writes first keeps it (`content IS NULL`); the database refuses changing it after.
 */
import type { Db } from '../../../db/client.js';
import { Prisma } from '../../../generated/prisma/client.js';
import { addDays, dayText } from '../../../lib/day.js';
import { fixedDecimal, minorUnitsOf } from '../../../lib/money.js';
import { issuedClientInvoiceDocument } from '../client-invoice/client-invoice.document-of.js';
import { renderReminderPdf } from './payment-reminder.pdf.js';

/** The PDF of reminder `id`: as kept, or written now and kept. */
export async function keptReminderPdf(db: Db, id: string): Promise<Buffer> {
  const reminder = await db.clientInvoiceReminder.findUniqueOrThrow({
    where: { id },
    include: {
      invoice: { include: { lines: { orderBy: { position: 'asc' } }, creditNoteFor: { select: { number: true, issueDate: true } } } },
    },
  });
  if (reminder.content) return Buffer.from(reminder.content);
  const { invoice } = reminder;
  const digits = minorUnitsOf(invoice.currency);
  const open = fixedDecimal(reminder.openAmount, digits);
  const fee = fixedDecimal(reminder.feeAmount, digits);
  const content = await renderReminderPdf(issuedClientInvoiceDocument({ invoice, lines: invoice.lines, creditNoteFor: invoice.creditNoteFor }), {
    level: reminder.level,
    // The tenant's day it was made: days overdue are counted from the due date to that day, in the tenant's zone
    // (payment-reminder.work.ts), so the PDF's date and its days overdue agree whatever UTC's day was.
    date: addDays(dayText(invoice.dueDate as Date), reminder.daysOverdue),
    daysOverdue: reminder.daysOverdue,
    // What was paid when it was made: the invoice's gross less what was open then.
    paid: fixedDecimal(invoice.gross.minus(reminder.openAmount), digits),
    open,
    fee,
    totalDue: fixedDecimal(new Prisma.Decimal(open).plus(fee), digits),
    text: reminder.text,
  });
  const written = await db.$queryRaw<{ content: Uint8Array }[]>`
    UPDATE client_invoice_reminders SET content = ${content} WHERE id = ${id} AND content IS NULL RETURNING content`;
  if (written[0]) return Buffer.from(written[0].content);
  // Another process wrote it first: theirs is the one kept.
  const kept = await db.clientInvoiceReminder.findUniqueOrThrow({ where: { id }, select: { content: true } });
  return Buffer.from(kept.content as Uint8Array);
}
