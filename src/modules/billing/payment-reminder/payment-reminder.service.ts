/**
 * Payment reminders as callers read them: the reminders of one invoice, by level, and each one's PDF as it was
 * written when the reminder was made. Whoever may read the invoice may read its reminders; the sweep that
 * writes them is the work object's (payment-reminder.work.ts).
 */
import type { TenantAccess } from '../../../auth/tenant-access.js';
import type { Db } from '../../../db/client.js';
import type { ClientInvoiceReminder } from '../../../generated/prisma/client.js';
import type { z } from 'zod';
import { args, fields, pagination } from '../../../lib/dto.js';
import { notFound } from '../../../lib/errors.js';
import { keptReminderPdf } from './payment-reminder.file.js';

const tenantId = fields.id('Tenant id');
const clientInvoiceId = fields.id('Client invoice id');
export const ListRemindersArgs = args({ tenantId, clientInvoiceId, ...pagination });
export const ReminderArgs = args({ tenantId, clientInvoiceId, reminderId: fields.id('Reminder id') });

/** A reminder without its file. */
export type ReminderView = Omit<ClientInvoiceReminder, 'content'>;

const withoutContent = { content: false } as const;

export function createPaymentReminderService({ db }: { db: Db }) {
  /** 404 unless the caller may read invoice `id`. */
  async function assertInvoice(access: TenantAccess, id: string): Promise<void> {
    const invoice = await db.clientInvoice.findFirst({ where: { id, ...access.scope('read', 'ClientInvoice') }, select: { id: true } });
    if (!invoice) throw notFound('ClientInvoice', id);
  }

  return {
    /** The invoice's reminders, by level. */
    async list(access: TenantAccess, { clientInvoiceId: invoiceId, limit, offset }: z.output<typeof ListRemindersArgs>): Promise<ReminderView[]> {
      await assertInvoice(access, invoiceId);
      return db.clientInvoiceReminder.findMany({
        take: limit,
        skip: offset,
        where: { clientInvoiceId: invoiceId, invoice: access.scope('read', 'ClientInvoice') },
        omit: withoutContent,
        orderBy: { level: 'asc' },
      });
    },

    /** One reminder's PDF, as written when it was made (or now, once, if the sweep stopped before it). */
    async file(access: TenantAccess, invoiceId: string, reminderId: string): Promise<{ fileName: string; content: Buffer }> {
      await assertInvoice(access, invoiceId);
      const reminder = await db.clientInvoiceReminder.findFirst({
        where: { id: reminderId, clientInvoiceId: invoiceId, invoice: access.scope('read', 'ClientInvoice') },
        select: { fileName: true, content: true },
      });
      if (!reminder) throw notFound('ClientInvoiceReminder', reminderId);
      return { fileName: reminder.fileName, content: reminder.content ? Buffer.from(reminder.content) : await keptReminderPdf(db, reminderId) };
    },
  };
}

export type PaymentReminderService = ReturnType<typeof createPaymentReminderService>;
