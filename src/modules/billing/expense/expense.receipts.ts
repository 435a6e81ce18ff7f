/**
 * What OCR reads of a receipt fills the expenses waiting for it: when a
 * received invoice's OCR completes (`invoice.ocr_completed`), each expense
 * linked to it that still lacks its amount, rate or day gets them from the
 * invoice, in the dispatcher's transaction (once per event, however many
 * workers), and records `expense.updated`.
 */
import { systemActor } from '../../../auth/actor.js';
import { systemAccess } from '../../../auth/tenant-access.js';
import type { Tx } from '../../../db/client.js';
import type { OutboxEvent } from '../../../events/dispatcher.js';
import { recordEvent, withDays } from '../../../events/outbox.js';
import { dayText } from '../../../lib/day.js';
import { AppError } from '../../../lib/errors.js';
import type { WorkDependencies } from '../../module.js';
import { timezoneOf } from '../../platform/tenant/tenant.settings.js';
import { expenseColumns, expenseValues, shapeOfUpdate } from './expense.values.js';

export function createExpenseWork({ clock, log }: Pick<WorkDependencies, 'clock' | 'log'>) {
  return {
    /** Fills the expenses whose receipts OCR has read. */
    async fillFromReceipts(tx: Tx, events: readonly OutboxEvent[]): Promise<void> {
      const read = events.flatMap((event) => (event.type === 'invoice.ocr_completed' && event.subjectId ? [event.subjectId] : []));
      if (read.length === 0) return;
      // Across the batch's tenants, by the invoices' ids: no access exists yet (test/architecture/tenant-scope.test.ts).
      const waiting = await tx.expense.findMany({
        where: { invoiceId: { in: read }, clientInvoiceId: null, OR: [{ amount: null }, { taxRate: null }, { date: null }] },
        include: { tenant: true },
      });
      for (const { tenant, ...expense } of waiting) {
        const access = systemAccess(tenant, systemActor('receipt'));
        try {
          const shape = shapeOfUpdate(expense, {}, expense.date && dayText(expense.date));
          const values = await expenseValues(tx, access, shape, clock.today(timezoneOf(tenant)));
          const updated = await tx.expense.update({ where: { id: expense.id }, data: expenseColumns(values) });
          await recordEvent(tx, access, { type: 'expense.updated', subjectId: expense.id, data: withDays(updated, ['date']) });
        } catch (error) {
          // What OCR read does not fit the expense (another currency's decimals): it stays as it was, for its owner to complete.
          if (!(error instanceof AppError)) throw error;
          log.warn({ expenseId: expense.id, err: error }, 'a receipt read by OCR could not fill its expense');
        }
      }
    },
  };
}

export type ExpenseWork = ReturnType<typeof createExpenseWork>;
