/**
 * Sending an issued invoice (CONTRACT.md section 11, "Sending"). With SMTP configured (SMTP_URL, MAIL_FROM),
 * `send` records a send (`client_invoice_sends`, status queued) and enqueues its mail job in the same
 * transaction; the job mails it (client-invoice.mail.ts) and only then does the invoice show `sentAt`,
 * `sentTo` and status sent. Without SMTP, `send` marks the invoice sent at once, as before mail existed, and
 * records a send with status `not_configured`: the answer's `lastSend.status` says which of the two happened.
 * The attachments are written (and kept) here, before anything is recorded: a format the invoice as issued
 * lacks is a 409 now, not a failed job later, and the job mails the kept bytes the downloads serve.
 */
import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import type { TenantAccess } from '../../../auth/tenant-access.js';
import type { Db, Tx } from '../../../db/client.js';
import { recordEvent, withDays } from '../../../events/outbox.js';
import { defineQueue, type JobQueue } from '../../../events/jobs.js';
import type { ClientInvoice } from '../../../generated/prisma/client.js';
import type { Clock } from '../../../lib/clock.js';
import { validationFailed } from '../../../lib/errors.js';
import type { Config } from '../../../config.js';
import type { BuyerSnapshot } from './client-invoice.document.js';
import type { ClientInvoiceQuery, SendClientInvoiceDto } from './client-invoice.dto.js';
import { attachmentFile, type AttachableFormat, type InvoiceFiles } from './client-invoice.files.js';

export interface MailJob {
  sendId: string;
}

/** A send whose retries are spent lands here: its job marks it failed (a later `send` is a new send). */
export const abandonedMailQueue = defineQueue<MailJob>('client-invoice.mail.abandoned', {
  retryLimit: 5,
  retryDelay: 30,
  retryBackoff: true,
  expireInSeconds: 60,
});

/**
 * One job per send. A failed attempt (the SMTP server down or refusing) is retried with backoff for about
 * an hour; an attempt holds its send's row lock while it talks SMTP, so it expires well after SMTP's timeouts.
 */
export const clientInvoiceMailQueue = defineQueue<MailJob>(
  'client-invoice.mail',
  {
    retryLimit: 8,
    retryDelay: 15,
    retryBackoff: true,
    retryDelayMax: 900,
    expireInSeconds: 300,
    deleteAfterSeconds: 7 * 24 * 3600,
    deadLetter: abandonedMailQueue.name,
  },
  { concurrency: 2 },
);

/** The domain of the Message-IDs: MAIL_FROM's, so they are unique to this sender. */
export function messageDomain(mailFrom: string | undefined): string {
  const address = /<([^>]+)>/.exec(mailFrom ?? '')?.[1] ?? mailFrom ?? '';
  return address.split('@')[1]?.trim() || 'tally.invalid';
}

/** The client's e-mail on the invoice as issued (its buyer snapshot). */
const buyerEmail = (invoice: ClientInvoice): string | undefined => (invoice.buyer as BuyerSnapshot | null)?.email ?? undefined;

/** Who a send of `invoice` goes to: `to`, else the client's e-mail as issued; 400 naming `to` when mailing to nobody. */
export function recipientsOf(invoice: ClientInvoice, to: string[] | undefined, mailing: boolean): string[] {
  const recipients = to ?? [buyerEmail(invoice)].filter((email): email is string => email !== undefined);
  if (mailing && recipients.length === 0) {
    throw validationFailed([{ path: 'to', message: 'is needed: the client had no e-mail when the invoice was issued' }]);
  }
  return recipients;
}

/**
 * Records a send in `tx` (status queued with SMTP, not_configured without) and, when mailing, its mail job: of the
 * invoice itself, or with `reminderId` of one of its payment reminders. Returns whether it is mailed.
 */
export async function recordSend(
  tx: Tx,
  access: TenantAccess,
  { jobs, config }: { jobs: JobQueue; config: Pick<Config, 'smtpUrl' | 'mailFrom'> },
  send: { clientInvoiceId: string; reminderId?: string; to: string[]; cc?: string[]; message?: string; attach: string[] },
): Promise<boolean> {
  const mailing = config.smtpUrl !== undefined;
  const sendId = randomUUID();
  await tx.clientInvoiceSend.create({
    data: access.stamp({
      id: sendId,
      clientInvoiceId: send.clientInvoiceId,
      reminderId: send.reminderId ?? null,
      status: mailing ? 'queued' : 'not_configured',
      to: send.to,
      cc: send.cc ?? [],
      message: send.message ?? null,
      attach: send.attach,
      messageId: `<${sendId}@${messageDomain(config.mailFrom)}>`,
      createdById: access.tenantUserId,
    }),
  });
  if (mailing) await jobs.send(tx, clientInvoiceMailQueue, { sendId });
  return mailing;
}

export function createSendStep({
  db,
  clock,
  jobs,
  config,
  files,
  lockInvoice,
  assertIssued,
  reread,
}: {
  db: Db;
  clock: Clock;
  jobs: JobQueue;
  config: Pick<Config, 'smtpUrl' | 'mailFrom'>;
  files: InvoiceFiles;
  lockInvoice: (tx: Tx, access: TenantAccess, id: string) => Promise<ClientInvoice>;
  assertIssued: (invoice: ClientInvoice, what: string) => void;
  reread: (tx: Tx, id: string, query: ClientInvoiceQuery, row: ClientInvoice) => Promise<ClientInvoice>;
}) {
  /** Sends an issued invoice by e-mail, from a worker; without SMTP only marks it sent. */
  return async function send(
    access: TenantAccess,
    id: string,
    // No body at all (the send of before there was mail) is the defaults: the PDF to the client's e-mail.
    input: z.output<typeof SendClientInvoiceDto> = { attach: ['pdf'] },
    query: ClientInvoiceQuery = {},
  ): Promise<ClientInvoice> {
    access.assert('update', 'ClientInvoice');
    const attach = [...new Set(input.attach)] as AttachableFormat[];
    const mailing = config.smtpUrl !== undefined;
    if (mailing) {
      const current = await db.clientInvoice.findFirst({ where: { id, ...access.scope('update', 'ClientInvoice') } });
      if (current) assertIssued(current, 'sent');
      // One after the other: each may write the file it keeps.
      for (const format of attach) await attachmentFile(files, access, id, format);
    }
    return db.$transaction(async (tx) => {
      const existing = await lockInvoice(tx, access, id);
      assertIssued(existing, 'sent');
      const to = recipientsOf(existing, input.to, mailing);
      if (await recordSend(tx, access, { jobs, config }, { clientInvoiceId: id, to, cc: input.cc, message: input.message, attach })) {
        return reread(tx, id, query, existing);
      }
      const sent = await tx.clientInvoice.update({
        where: { id },
        data: { sentAt: clock.now(), ...(existing.status === 'issued' ? { status: 'sent' } : {}) },
      });
      await recordEvent(tx, access, { type: 'client_invoice.sent', subjectId: id, data: withDays(sent, ['issueDate', 'dueDate', 'periodFrom', 'periodTo']) });
      return reread(tx, id, query, sent);
    });
  };
}
