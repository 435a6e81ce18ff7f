/**
 * The mail job: delivers one send (client-invoice.send.ts) over SMTP, exactly once.
 *
 * The send's row is the state machine: `queued` until the SMTP server accepted the message, then
 * `delivered`, written in the same transaction that holds the row's lock while the message is handed over,
 * together with the invoice's `sentAt`, `sentTo` and status. So a job that runs again (a retry, a second
 * worker taking it up after an expiry) waits for the lock and then finds the send delivered, and mails
 * nothing; a failed attempt rolls back and is retried by pg-boss, its error noted on the send.
 *
 * The residual window: the process dies (or loses the database) after the SMTP server said 250 and before
 * the commit. The send is then still `queued` and the retry mails it again, with the same Message-ID (the
 * send's own, fixed when it was recorded): the recipient's mail system sees the same message twice, which
 * mail clients show once. No protocol closes that window (SMTP has no two-phase commit); it is as wide as
 * one COMMIT.
 */
import type { Transporter } from 'nodemailer';
import { systemActor } from '../../../auth/actor.js';
import { systemAccess } from '../../../auth/tenant-access.js';
import { recordEvent, withDays } from '../../../events/outbox.js';
import { documentLocale } from '../../../lib/i18n.js';
import type { Logger } from '../../../lib/logger.js';
import type { WorkDependencies } from '../../module.js';
import type { ClientInvoiceDocument } from './client-invoice.document.js';
import { attachmentFile, type AttachableFormat } from './client-invoice.files.js';

/** Long enough for a slow SMTP server; short of the queue's expiry, so a hung attempt ends before another starts. */
const deliveryTransaction = { maxWait: 10_000, timeout: 240_000 };

/** A mail's subject and default text, in the document's language (fixed at issue: the client's, else the billing profile's). */
function localized(document: ClientInvoiceDocument, subject: string, text: string, message: string | null, level?: number) {
  const { t } = documentLocale(document.buyer.language);
  const values = { number: document.number ?? '', seller: document.seller.legalName, level };
  return { subject: t(subject, values).replace(/\s+/g, ' ').trim(), text: message ?? t(text, values).replace(/ +/g, ' ') };
}

/** The subject and default text of the mail: the document and its number. */
export function mailText(document: ClientInvoiceDocument, message: string | null): { subject: string; text: string } {
  return document.type === 'credit_note'
    ? localized(document, 'mail.creditNoteSubject', 'mail.creditNoteText', message)
    : localized(document, 'mail.invoiceSubject', 'mail.invoiceText', message);
}

/** The subject and default text of a payment reminder's mail: its level and the invoice's number. */
export function reminderText(document: ClientInvoiceDocument, level: number, message: string | null): { subject: string; text: string } {
  return localized(document, 'mail.reminderSubject', 'mail.reminderText', message, level);
}

export function createClientInvoiceMailWork({ db, clock, config, services }: Pick<WorkDependencies, 'db' | 'clock' | 'config' | 'services'>) {
  // nodemailer is loaded by the first mail: an API process, which never mails, kept its 3 MB of heap (docs/performance.md).
  let transport: Promise<Transporter> | undefined;
  const transportOf = (): Promise<Transporter> => {
    const url = config.smtpUrl;
    if (url === undefined) throw new Error('SMTP_URL is not set: a queued send waits until it is');
    transport ??= import('nodemailer').then(({ default: nodemailer }) =>
      nodemailer.createTransport({ url, connectionTimeout: 30_000, greetingTimeout: 30_000, socketTimeout: 60_000 }),
    );
    transport.catch(() => {
      transport = undefined; // a failed load is retried by the next attempt, not remembered
    });
    return transport;
  };

  return {
    /** Marks a send whose retries are spent failed, unless an attempt delivered it after all. */
    async abandon(sendId: string, log: Logger): Promise<void> {
      const { count } = await db.clientInvoiceSend.updateMany({ where: { id: sendId, status: 'queued' }, data: { status: 'failed' } });
      if (count > 0) log.warn({ sendId }, 'an invoice could not be mailed: its retries are spent');
    },

    /** Mails send `sendId` unless it was delivered before; throws (for pg-boss to retry) when SMTP fails. */
    async deliver(sendId: string, log: Logger): Promise<void> {
      try {
        await db.$transaction(async (tx) => {
          const locked = await tx.$queryRaw<{ id: string }[]>`SELECT id FROM client_invoice_sends WHERE id = ${sendId} AND status = 'queued' FOR UPDATE`;
          if (locked.length === 0) {
            log.info({ sendId }, 'send already delivered (or gone): nothing to mail');
            return;
          }
          const send = await tx.clientInvoiceSend.findUniqueOrThrow({ where: { id: sendId }, include: { tenant: true } });
          const access = systemAccess(send.tenant, systemActor('mail'));
          const files = services.clientInvoices;
          const document = await files.document(access, send.clientInvoiceId);
          // A reminder's send attaches the reminder's kept PDF (written before the send was recorded); an invoice's its formats.
          const reminder = send.reminderId
            ? await tx.clientInvoiceReminder.findUniqueOrThrow({ where: { id: send.reminderId }, select: { level: true, fileName: true, content: true } })
            : null;
          const attachments = [];
          if (reminder) {
            if (!reminder.content) throw new Error(`reminder ${send.reminderId} has no PDF yet`);
            attachments.push({ filename: reminder.fileName, contentType: 'application/pdf', content: Buffer.from(reminder.content) });
          } else {
            for (const format of send.attach as AttachableFormat[]) {
              const file = await attachmentFile(files, access, send.clientInvoiceId, format);
              attachments.push({ filename: file.fileName, contentType: file.contentType, content: file.content });
            }
          }
          const { subject, text } = reminder ? reminderText(document, reminder.level, send.message) : mailText(document, send.message);
          const info = await (await transportOf()).sendMail({
            from: config.mailFrom,
            to: send.to,
            cc: send.cc,
            replyTo: document.seller.email,
            subject,
            text,
            messageId: send.messageId,
            attachments,
          });
          const now = clock.now();
          await tx.clientInvoiceSend.update({
            where: { id: sendId },
            data: { status: 'delivered', deliveredAt: now, attempts: { increment: 1 }, lastError: null },
          });
          if (send.reminderId) {
            // The reminder is sent; the invoice's own sentAt, sentTo and status stay as they are.
            await tx.clientInvoiceReminder.update({ where: { id: send.reminderId }, data: { sentAt: now } });
            log.info({ sendId, smtp: info.response }, 'payment reminder mailed');
            return;
          }
          const invoice = await tx.clientInvoice.findUniqueOrThrow({ where: { id: send.clientInvoiceId } });
          const sent = await tx.clientInvoice.update({
            where: { id: invoice.id },
            data: { sentAt: now, sentTo: [...send.to, ...send.cc], ...(invoice.status === 'issued' ? { status: 'sent' } : {}) },
          });
          await recordEvent(tx, access, {
            type: 'client_invoice.sent',
            subjectId: invoice.id,
            data: withDays(sent, ['issueDate', 'dueDate', 'periodFrom', 'periodTo']),
          });
          log.info({ sendId, smtp: info.response }, 'invoice mailed');
        }, deliveryTransaction);
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        await db.clientInvoiceSend.updateMany({
          where: { id: sendId, status: 'queued' },
          data: { attempts: { increment: 1 }, lastError: reason.slice(0, 1000) },
        });
        throw error;
      }
    },
  };
}

export type ClientInvoiceMailWork = ReturnType<typeof createClientInvoiceMailWork>;
