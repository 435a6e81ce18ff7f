import { Readable } from 'node:stream';
import { z } from 'zod';
import { systemActor } from '../../auth/actor.js';
import { systemAccess, type TenantAccess } from '../../auth/tenant-access.js';
import type { Config } from '../../config.js';
import type { Db, Sql, Tx } from '../../db/client.js';
import { tenantPage } from '../../db/list.js';
import { shapesResult, type PrismaQuery } from '../../db/query.js';
import type { JobQueue } from '../../events/jobs.js';
import { recordEvent } from '../../events/outbox.js';
import type { Prisma, Sync } from '../../generated/prisma/client.js';
import { SyncStatus } from '../../generated/prisma/enums.js';
import { createSecretBox } from '../../lib/crypto.js';
import { args, dto, fields, pagination } from '../../lib/dto.js';
import { AppError, notFound, validationFailed } from '../../lib/errors.js';
import type { Logger } from '../../lib/logger.js';
import { outboundHostProblem } from '../../lib/outbound.js';
import type { Secrets } from '../../lib/secrets.js';
import { defineEnum } from '../../lib/vocabulary.js';
import type { InvoiceService } from '../invoice/invoice.service.js';
import type { MailMessage } from './sync.imap.js';
import { syncRunQueue } from './sync.jobs.js';

export const syncStatus = defineEnum('SyncStatus', SyncStatus);

/** Messages one run reads; the next run goes on from there. */
export const messagesPerRun = 200;
/** A run that has said nothing for this long is taken to have died with its worker. */
const staleRunMs = 15 * 60_000;

const host = z
  .string()
  .trim()
  .min(1)
  .max(253)
  .regex(/^[A-Za-z0-9.:[\]-]+$/, 'must be a host name or an IP address')
  .describe('IMAP server host name, e.g. imap.example.com');
const port = z.number().int().min(1).max(65_535).describe('IMAP port: 993 with TLS, 143 without');
const password = z.string().min(1).max(500).describe('IMAP password; write-only, stored encrypted');
const intervalMinutes = z.number().int().min(5).max(1440).describe('Minutes between scheduled runs (5 to 1440)');
const mailbox = z.string().trim().min(1).max(200).describe('Mailbox (folder) to read, e.g. INBOX');
const fromFilter = z.string().trim().min(1).max(200).describe('Only messages whose sender contains this, e.g. billing@vendor.com');

export const CreateSyncDto = dto('CreateSyncDto', 'A mailbox whose invoice attachments become invoices.', {
  name: z.string().trim().min(1).max(200).describe('Display name'),
  host,
  port: port.default(993),
  secure: z.boolean().default(true).describe('TLS from the first byte (port 993); false for plain IMAP'),
  username: z.string().trim().min(1).max(320).describe('IMAP username'),
  password,
  mailbox: mailbox.default('INBOX'),
  fromFilter: fromFilter.optional(),
  enabled: z.boolean().default(true).describe('False stops scheduled runs'),
  intervalMinutes: intervalMinutes.default(15),
});

export const UpdateSyncDto = dto('UpdateSyncDto', 'Changes to a mailbox sync; null clears the sender filter.', {
  name: z.string().trim().min(1).max(200).optional(),
  host: host.optional(),
  port: port.optional(),
  secure: z.boolean().optional(),
  username: z.string().trim().min(1).max(320).optional(),
  password: password.optional(),
  mailbox: mailbox.optional(),
  fromFilter: fromFilter.nullable().optional(),
  enabled: z.boolean().optional(),
  intervalMinutes: intervalMinutes.optional(),
});

const tenantId = fields.id('Tenant id');
const syncId = fields.id('Sync id');
export const ListSyncsArgs = args({ tenantId, ...pagination });
export const SyncArgs = args({ tenantId, id: syncId });
export const CreateSyncArgs = args({ tenantId, input: CreateSyncDto });
export const UpdateSyncArgs = args({ tenantId, id: syncId, input: UpdateSyncDto });

export type SyncQuery = PrismaQuery<Prisma.SyncInclude, Prisma.SyncSelect>;

/** What events and logs show of a sync: never the password. */
function shown({ passwordEncrypted: _password, uidValidity, lastUid, ...sync }: Sync): Record<string, unknown> {
  return { ...sync, uidValidity: uidValidity?.toString() ?? null, lastUid: lastUid?.toString() ?? null };
}

/**
 * IMAP mailboxes that import invoices (owners and admins). A run reads the
 * messages after the last UID it saw, makes an invoice of each PDF or image
 * attachment, and queues its OCR.
 *
 * At most once per message: the last UID moves forward after each message,
 * and an attachment already imported in the tenant (same file) is skipped,
 * so a run that died half way, two runs at once, or a UIDVALIDITY change
 * (which starts the mailbox over) import nothing twice.
 */
export function createSyncService({ db, sql, jobs, config, secrets }: { db: Db; sql: Sql; jobs: JobQueue; config: Config; secrets: Secrets }) {
  const box = createSecretBox(secrets.encryptionKey);
  const allowPrivate = config.webhookAllowPrivateUrls;

  async function assertReachable(hostName: string | undefined): Promise<void> {
    if (hostName === undefined) return;
    const problem = await outboundHostProblem(hostName, { allowPrivate });
    if (problem) throw validationFailed([{ path: 'host', message: problem }]);
  }

  async function findSync(tx: Tx | Db, access: TenantAccess, id: string): Promise<Sync> {
    const sync = await tx.sync.findFirst({ where: { id, tenantId: access.tenantId } });
    if (!sync) throw notFound('Sync', id);
    return sync;
  }

  const reread = (tx: Tx, id: string, query: SyncQuery, row: Sync) => (shapesResult(query) ? tx.sync.findUniqueOrThrow({ ...query, where: { id } }) : row);

  /** The message's attachments as invoices; duplicates (and files of other types) are skipped. */
  async function importMessage(
    invoices: InvoiceService,
    access: TenantAccess,
    sync: Sync,
    message: MailMessage,
    log: Logger,
  ): Promise<{ imported: number; skipped: number }> {
    let imported = 0;
    let skipped = 0;
    for (const attachment of message.attachments) {
      const staged = await invoices.stage(Readable.from([attachment.content]));
      try {
        await invoices.fromFile(
          access,
          { staged, fileName: attachment.fileName ?? 'attachment' },
          {},
          { source: 'email', syncId: sync.id, emailMessageId: message.messageId.slice(0, 500) },
        );
        imported += 1;
      } catch (error) {
        // Already imported (the same file in this tenant), or not an invoice type (a signature logo is, though: see README).
        if (error instanceof AppError && (error.code === 'CONFLICT' || error.code === 'UNSUPPORTED_MEDIA_TYPE')) {
          skipped += 1;
          log.debug({ uid: message.uid, file: attachment.fileName, reason: error.code }, 'attachment skipped');
          continue;
        }
        throw error;
      }
    }
    return { imported, skipped };
  }

  return {
    /** The tenant's mailbox syncs, newest first. */
    async list(access: TenantAccess, page: z.output<typeof ListSyncsArgs>, query: SyncQuery = {}): Promise<Sync[]> {
      access.assert('read', 'Sync');
      return db.sync.findMany({ ...query, ...tenantPage(access.tenantId, page) });
    },

    async get(access: TenantAccess, id: string, query: SyncQuery = {}): Promise<Sync> {
      access.assert('read', 'Sync');
      const sync = await db.sync.findFirst({ ...query, where: { id, tenantId: access.tenantId } });
      if (!sync) throw notFound('Sync', id);
      return sync;
    },

    /** Saves a mailbox (its server must be public unless WEBHOOK_ALLOW_PRIVATE_URLS); the password is stored encrypted. */
    async create(access: TenantAccess, { password: secret, ...data }: z.output<typeof CreateSyncDto>, query: SyncQuery = {}): Promise<Sync> {
      access.assert('create', 'Sync');
      await assertReachable(data.host);
      return db.$transaction(async (tx) => {
        const sync = await tx.sync.create({ data: { ...data, tenantId: access.tenantId, passwordEncrypted: box.seal(secret) } });
        return reread(tx, sync.id, query, sync);
      });
    },

    /** Changes a sync; a new server or mailbox starts over from its first message. */
    async update(access: TenantAccess, id: string, { password: secret, ...data }: z.output<typeof UpdateSyncDto>, query: SyncQuery = {}): Promise<Sync> {
      access.assert('update', 'Sync');
      await assertReachable(data.host);
      return db.$transaction(async (tx) => {
        const existing = await findSync(tx, access, id);
        const moved =
          (data.host !== undefined && data.host !== existing.host) ||
          (data.port !== undefined && data.port !== existing.port) ||
          (data.username !== undefined && data.username !== existing.username) ||
          (data.mailbox !== undefined && data.mailbox !== existing.mailbox);
        const sync = await tx.sync.update({
          where: { id },
          data: {
            ...data,
            ...(secret !== undefined ? { passwordEncrypted: box.seal(secret) } : {}),
            ...(moved ? { uidValidity: null, lastUid: null } : {}),
            ...(data.enabled === true && existing.status === 'error' ? { status: 'idle', lastError: null } : {}),
          },
        });
        return reread(tx, id, query, sync);
      });
    },

    /** Deletes a sync; the invoices it imported stay. */
    async remove(access: TenantAccess, id: string, query: SyncQuery = {}): Promise<Sync> {
      access.assert('delete', 'Sync');
      return db.$transaction(async (tx) => {
        await findSync(tx, access, id);
        return tx.sync.delete({ ...query, where: { id } });
      });
    },

    /** Queues a run now (202); a run already waiting is not queued twice. */
    async runNow(access: TenantAccess, id: string, query: SyncQuery = {}): Promise<Sync> {
      access.assert('update', 'Sync');
      return db.$transaction(async (tx) => {
        const sync = await findSync(tx, access, id);
        await jobs.send(tx, syncRunQueue, { syncId: id }, { singletonKey: id });
        return reread(tx, id, query, sync);
      });
    },

    /** Worker, every minute: queues a run of each enabled sync whose interval has passed. */
    async queueDue(log: Logger): Promise<void> {
      const due = await sql.query<{ id: string }>(
        `SELECT id FROM syncs
          WHERE enabled AND status <> 'running'
            AND ("lastSyncedAt" IS NULL OR "lastSyncedAt" <= now() - "intervalMinutes" * interval '1 minute')
          ORDER BY "lastSyncedAt" NULLS FIRST LIMIT 500`,
        [],
      );
      if (due.length === 0) return;
      await db.$transaction(async (tx) => {
        for (const { id } of due) await jobs.send(tx, syncRunQueue, { syncId: id }, { singletonKey: id });
      });
      log.info({ syncs: due.length }, 'mailbox syncs queued');
    },

    /** Worker: one run of one sync (see the service's comment for why nothing is imported twice); attachments go to `invoices`. */
    async run(id: string, invoices: InvoiceService, log: Logger): Promise<void> {
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
      // Loaded on first run: API processes never read a mailbox and do not carry imapflow and mailparser.
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
              const outcome = await importMessage(invoices, access, sync, message, runLog);
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
          const done = await tx.sync.update({ where: { id }, data: { status: 'idle', lastSyncedAt: new Date(), lastError: null } });
          await recordEvent(tx, {
            tenantId: sync.tenantId,
            type: 'sync.completed',
            actor: access.actor,
            subjectId: id,
            data: { ...shown(done), messages, imported, skipped },
          });
        });
        runLog.info({ messages, imported, skipped }, 'mailbox synced');
      } catch (error) {
        const reason = error instanceof MailboxProblem ? error.message : `The sync stopped: ${error instanceof Error ? error.message : String(error)}`;
        if (!(error instanceof MailboxProblem)) runLog.error({ err: error }, 'mailbox sync failed');
        else runLog.warn({ reason }, 'mailbox sync failed');
        await db.$transaction(async (tx) => {
          // lastSyncedAt moves too, so the schedule waits an interval before trying again.
          const failed = await tx.sync.update({ where: { id }, data: { status: 'error', lastError: reason.slice(0, 1000), lastSyncedAt: new Date() } });
          await recordEvent(tx, {
            tenantId: sync.tenantId,
            type: 'sync.failed',
            actor: access.actor,
            subjectId: id,
            data: { ...shown(failed), messages, imported },
          });
        });
      }
    },
  };
}

export type SyncService = ReturnType<typeof createSyncService>;
