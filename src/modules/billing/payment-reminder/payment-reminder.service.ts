/**
 * Payment reminders as callers read them: the reminders of one invoice, by level, and each one's PDF as it was
 * written when the reminder was made. Whoever may read the invoice may read its reminders; the sweep that
 * writes them is the work object's (payment-reminder.work.ts).
 */
import type { TenantAccess } from '../../../auth/tenant-access.js';
import type { ServiceDependencies } from '../../module.js';
import type { ClientInvoiceReminder } from '../../../generated/prisma/client.js';
import type { z } from 'zod';
import { args, fields, pagination } from '../../../lib/dto.js';
import { notFound } from '../../../lib/errors.js';
import { SendReminderDto } from '../client-invoice/client-invoice.dto.js';
import { assertIssued } from '../client-invoice/client-invoice.issuable.js';
import { lockInvoice } from '../client-invoice/client-invoice.rows.js';
import { recipientsOf, recordSend } from '../client-invoice/client-invoice.send.js';
import { keptReminderPdf } from './payment-reminder.file.js';

const tenantId = fields.id('Tenant id');
const clientInvoiceId = fields.id('Client invoice id');
export const ListRemindersArgs = args({ tenantId, clientInvoiceId, ...pagination });
export const ReminderArgs = args({ tenantId, clientInvoiceId, reminderId: fields.id('Reminder id') });
export const SendReminderArgs = args({ tenantId, clientInvoiceId, reminderId: fields.id('Reminder id'), input: SendReminderDto.optional() });

/** A reminder without its file. */
export type ReminderView = Omit<ClientInvoiceReminder, 'content'>;

const withoutContent = { content: false } as const;

export function createPaymentReminderService({ db, clock, jobs, config }: Pick<ServiceDependencies, 'db' | 'clock' | 'jobs' | 'config'>) {
  /** 404 unless the caller may read invoice `id`. */
  async function assertInvoice(access: TenantAccess, id: string): Promise<void> {
    const invoice = await db.clientInvoice.findFirst({ where: { id, ...access.scope('read', 'ClientInvoice') }, select: { id: true } });
    if (!invoice) throw notFound('ClientInvoice', id);
  }

  /** One reminder's PDF, as written when it was made (or now, once, if the sweep stopped before it). */
  async function file(access: TenantAccess, invoiceId: string, reminderId: string): Promise<{ fileName: string; content: Buffer }> {
    await assertInvoice(access, invoiceId);
    const reminder = await db.clientInvoiceReminder.findFirst({
      where: { id: reminderId, clientInvoiceId: invoiceId, invoice: access.scope('read', 'ClientInvoice') },
      select: { fileName: true, content: true },
    });
    if (!reminder) throw notFound('ClientInvoiceReminder', reminderId);
    return { fileName: reminder.fileName, content: reminder.content ? Buffer.from(reminder.content) : await keptReminderPdf(db, reminderId) };
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

    file,

    /**
     * Sends a reminder by e-mail the way invoices go (client-invoice.send.ts): with SMTP a worker mails its PDF
     * once and sets its sentAt; without, it is marked sent now. Who may send the invoice may send its reminders.
     */
    async send(access: TenantAccess, { clientInvoiceId: invoiceId, reminderId, input = {} }: z.output<typeof SendReminderArgs>): Promise<ReminderView> {
      access.assert('update', 'ClientInvoice');
      // Its PDF is written (once, if the sweep stopped before it) before the send is recorded: the job mails kept bytes.
      await file(access, invoiceId, reminderId);
      return db.$transaction(async (tx) => {
        const invoice = await lockInvoice(tx, access, invoiceId);
        assertIssued(invoice, 'reminded');
        const reminder = await tx.clientInvoiceReminder.findFirst({ where: { id: reminderId, clientInvoiceId: invoice.id }, omit: withoutContent });
        if (!reminder) throw notFound('ClientInvoiceReminder', reminderId);
        const to = recipientsOf(invoice, input.to, config.smtpUrl !== undefined);
        const mailed = await recordSend(
          tx,
          access,
          { jobs, config },
          { clientInvoiceId: invoice.id, reminderId, to, cc: input.cc, message: input.message, attach: ['pdf'] },
        );
        if (mailed) return reminder;
        return tx.clientInvoiceReminder.update({ where: { id: reminderId }, data: { sentAt: clock.now() }, omit: withoutContent });
      });
    },
  };
}

export type PaymentReminderService = ReturnType<typeof createPaymentReminderService>;
