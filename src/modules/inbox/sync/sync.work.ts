/**
 * The mailbox work the workers run: every minute, queue a run of each sync
 * that is due; a run reads the messages after the last UID it saw and makes
 * an invoice of each PDF, image or XML e-invoice attachment (through the
 * invoice service, as the tenant's `imap-sync` system actor: an e-invoice,
 * or a PDF carrying one, is read from its XML, anything else by OCR; a PDF
 * and the XML that states it make one invoice, see sync.pairing.ts).
 *
 * At most once per message: the last UID moves forward after each message,
 * and an attachment already imported in the tenant (same file) is skipped,
 * so a run that died half way, two runs at once, or a UIDVALIDITY change
 * (which starts the mailbox over) import nothing twice. Jobs reach this
 * through their JobContext; the API's way in is `runNow`, which queues a job.
 */
import { systemActor } from '../../../auth/actor.js';
import { systemAccess, type TenantAccess } from '../../../auth/tenant-access.js';
import { recordEvent } from '../../../events/outbox.js';
import type { Sync } from '../../../generated/prisma/client.js';
import { createSecretBox } from '../../../lib/crypto.js';
import { AppError } from '../../../lib/errors.js';
import type { StagedFile } from '../../../lib/file-storage.js';
import type { Logger } from '../../../lib/logger.js';
import { uploadLimit } from '../../../rest/body.js';
import type { WorkDependencies } from '../../module.js';
import type { MailMessage, OpenMailbox } from './sync.imap.js';
import { pairAttachments, type MailFile } from './sync.pairing.js';
import { syncRunQueue } from './sync.jobs.js';

/** Messages one run reads; the next run goes on from there. */
export const messagesPerRun = 200;
/** A run that has said nothing for this long is taken to have died with its worker. */
const staleRunMs = 15 * 60_000;

/** What events and logs show of a sync: never the password. */
function shown({ passwordEncrypted: _password, uidValidity, lastUid, ...sync }: Sync): Record<string, unknown> {
  return { ...sync, uidValidity: uidValidity?.toString() ?? null, lastUid: lastUid?.toString() ?? null };
}

export function createSyncWork({
  db,
  sql,
  jobs,
  config,
  secrets,
  services,
  clock,
}: Pick<WorkDependencies, 'db' | 'sql' | 'jobs' | 'config' | 'secrets' | 'services' | 'clock'>) {
  const box = createSecretBox(secrets.encryptionKey);
  const allowPrivate = config.webhookAllowPrivateUrls;
  const { invoices } = services;

  /**
   * The message's attachments as invoices: each streamed to staging (one
   * over the upload limit is skipped unread), paired (a PDF with the XML
   * e-invoice that states it makes one invoice), then made invoices;
   * duplicates and files of other types are skipped.
   */
  async function importMessage(
    access: TenantAccess,
    sync: Sync,
    mailbox: OpenMailbox,
    message: MailMessage,
    log: Logger,
  ): Promise<{ imported: number; skipped: number }> {
    let imported = 0;
    let skipped = 0;
    const skip = (file: string | undefined, reason: string, detail?: string) => {
      skipped += 1;
      log.info({ uid: message.uid, file, reason, detail }, 'attachment skipped');
    };
    const files: (MailFile & { staged: StagedFile })[] = [];
    try {
      for (const attachment of message.attachments) {
        if (attachment.size > uploadLimit) {
          skip(attachment.fileName, 'PAYLOAD_TOO_LARGE', `${attachment.size} bytes`);
          continue;
        }
        const stream = await mailbox.download(message.uid, attachment.part, uploadLimit + 1);
        if (!stream) continue;
        const staged = await invoices.stage(stream);
        if (staged.size > uploadLimit) {
          await staged.discard();
          skip(attachment.fileName, 'PAYLOAD_TOO_LARGE', `${staged.size} bytes`);
          continue;
        }
        const kind = await invoices.kindOf(staged);
        files.push({ staged, fileName: attachment.fileName ?? 'attachment', mimeType: kind.mimeType, eInvoiceNumber: kind.eInvoice?.number });
      }
      for (const { file, statement } of pairAttachments(files)) {
        try {
          await invoices.fromFile(
            access,
            { staged: file.staged, fileName: file.fileName, eInvoice: statement?.staged },
            {},
            { source: 'email', syncId: sync.id, emailMessageId: message.messageId.slice(0, 500) },
          );
          imported += 1;
        } catch (error) {
          // Already imported (the same file in this tenant), not an invoice type (a signature logo is, though: docs/decisions.md,
          // "Invoices, files and mail"), or a file an upload of which is a 400 (an XML that is no e-invoice, a hostile file).
          if (
            error instanceof AppError &&
            (error.reason === 'DUPLICATE_FILE' || error.code === 'UNSUPPORTED_MEDIA_TYPE' || error.code === 'VALIDATION_FAILED')
          ) {
            skip(file.fileName, error.reason ?? error.code, error.message);
            continue;
          }
          throw error;
        }
      }
    } finally {
      // What became an invoice was moved already; this removes the rest.
      await Promise.all(files.map((file) => file.staged.discard()));
    }
    return { imported, skipped };
  }

  return {
    /** Every minute: queues a run of each enabled sync whose interval has passed. */
    async queueDue(log: Logger): Promise<void> {
      const due = await sql.query<{ id: string }>(
        `SELECT id FROM syncs
        WHERE enabled AND status <> 'running'
          AND ("lastSyncedAt" IS NULL OR "lastSyncedAt" <= $1::timestamptz - "intervalMinutes" * interval '1 minute')
        ORDER BY "lastSyncedAt" NULLS FIRST LIMIT 500`,
        [clock.now()],
      );
      if (due.length === 0) return;
      await db.$transaction(async (tx) => {
        for (const { id } of due) await jobs.send(tx, syncRunQueue, { syncId: id }, { singletonKey: id });
      });
      log.info({ syncs: due.length }, 'mailbox syncs queued');
    },

    /** One run of one sync (see above for why nothing is imported twice). */
    async run(id: string, log: Logger): Promise<void> {
      // A lease on the row's own updatedAt, which Prisma stamps by the system clock: read by the same clock.
      const { count } = await db.sync.updateMany({
        where: { id, OR: [{ status: { not: 'running' } }, { updatedAt: { lt: new Date(Date.now() - staleRunMs) } }] },
        data: { status: 'running' },
      });
      if (count === 0) {
        log.info({ syncId: id }, 'mailbox sync already running (or deleted); this run stops');
        return;
      }
      const sync = await db.sync.findUniqueOrThrow({ where: { id }, include: { tenant: true } });
      const access = systemAccess(sync.tenant, systemActor('imap-sync'));
      const runLog = log.child({ syncId: id, tenantId: sync.tenantId });
      let messages = 0;
      let imported = 0;
      let skipped = 0;
      // Loaded on first run: API processes never read a mailbox and do not carry imapflow.
      const { MailboxProblem, openMailbox } = await import('./sync.imap.js');
      try {
        const mailbox = await openMailbox(
          { host: sync.host, port: sync.port, secure: sync.secure, username: sync.username, password: box.open(sync.passwordEncrypted), mailbox: sync.mailbox },
          { allowPrivate },
        );
        try {
          let lastUid = sync.lastUid === null ? 0 : Number(sync.lastUid);
          if (sync.uidValidity !== null && sync.uidValidity !== mailbox.uidValidity) {
            runLog.warn({ was: sync.uidValidity.toString(), now: mailbox.uidValidity.toString() }, 'UIDVALIDITY changed: reading the mailbox from the start');
            lastUid = 0;
          }
          if (sync.uidValidity !== mailbox.uidValidity || lastUid === 0) {
            await db.sync.update({ where: { id }, data: { uidValidity: mailbox.uidValidity, lastUid: BigInt(lastUid) } });
          }
          for (const uid of await mailbox.newUids(lastUid, sync.fromFilter, messagesPerRun)) {
            const message = await mailbox.message(uid);
            if (message) {
              const outcome = await importMessage(access, sync, mailbox, message, runLog);
              imported += outcome.imported;
              skipped += outcome.skipped;
            }
            messages += 1;
            // The mark moves forward only: a slower run beside this one cannot move it back.
            await db.sync.updateMany({ where: { id, OR: [{ lastUid: null }, { lastUid: { lt: BigInt(uid) } }] }, data: { lastUid: BigInt(uid) } });
          }
        } finally {
          await mailbox.close();
        }
        await db.$transaction(async (tx) => {
          const done = await tx.sync.update({ where: { id }, data: { status: 'idle', lastSyncedAt: clock.now(), lastError: null } });
          await recordEvent(tx, access, { type: 'sync.completed', subjectId: id, data: { ...shown(done), messages, imported, skipped } });
        });
        runLog.info({ messages, imported, skipped }, 'mailbox synced');
      } catch (error) {
        const reason = error instanceof MailboxProblem ? error.message : `The sync stopped: ${error instanceof Error ? error.message : String(error)}`;
        if (!(error instanceof MailboxProblem)) runLog.error({ err: error }, 'mailbox sync failed');
        else runLog.warn({ reason }, 'mailbox sync failed');
        await db.$transaction(async (tx) => {
          // lastSyncedAt moves too, so the schedule waits an interval before trying again.
          const failed = await tx.sync.update({ where: { id }, data: { status: 'error', lastError: reason.slice(0, 1000), lastSyncedAt: clock.now() } });
          await recordEvent(tx, access, { type: 'sync.failed', subjectId: id, data: { ...shown(failed), messages, imported } });
        });
      }
    },
  };
}

export type SyncWork = ReturnType<typeof createSyncWork>;
