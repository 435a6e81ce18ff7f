import { z } from 'zod';
import type { TenantAccess } from '../../../auth/tenant-access.js';
import type { Config } from '../../../config.js';
import type { Db, Tx } from '../../../db/client.js';
import type { Reads } from '../../../db/replicas.js';
import { tenantPage } from '../../../db/list.js';
import { shapesResult, type PrismaQuery } from '../../../db/query.js';
import type { JobQueue } from '../../../events/jobs.js';
import type { Prisma, Sync } from '../../../generated/prisma/client.js';
import { SyncStatus } from '../../../generated/prisma/enums.js';
import { createSecretBox } from '../../../lib/crypto.js';
import { args, dto, fields, pagination } from '../../../lib/dto.js';
import { notFound, validationFailed } from '../../../lib/errors.js';
import { outboundHostProblem } from '../../../lib/outbound.js';
import type { Secrets } from '../../../lib/secrets.js';
import { defineEnum } from '../../../lib/vocabulary.js';
import { syncRunQueue } from './sync.jobs.js';

export const syncStatus = defineEnum('SyncStatus', SyncStatus);

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

/**
 * IMAP mailboxes that import invoices (owners and admins). Reading them is
 * the workers' (sync.work.ts): a run reads the messages after the last UID
 * it saw, makes an invoice of each PDF or image attachment, and queues its OCR.
 *
 * At most once per message: the last UID moves forward after each message,
 * and an attachment already imported in the tenant (same file) is skipped,
 * so a run that died half way, two runs at once, or a UIDVALIDITY change
 * (which starts the mailbox over) import nothing twice.
 */
export function createSyncService({ db, reads, jobs, config, secrets }: { db: Db; reads: Reads; jobs: JobQueue; config: Config; secrets: Secrets }) {
  const box = createSecretBox(secrets.encryptionKey);
  const allowPrivate = config.webhookAllowPrivateUrls;

  async function assertReachable(hostName: string | undefined): Promise<void> {
    if (hostName === undefined) return;
    const problem = await outboundHostProblem(hostName, { allowPrivate });
    if (problem) throw validationFailed([{ path: 'host', message: problem }]);
  }

  async function findSync(tx: Tx | Db, access: TenantAccess, id: string): Promise<Sync> {
    const sync = await tx.sync.findFirst({ where: { id, ...access.scope('read', 'Sync') } });
    if (!sync) throw notFound('Sync', id);
    return sync;
  }

  const reread = (tx: Tx, id: string, query: SyncQuery, row: Sync) => (shapesResult(query) ? tx.sync.findUniqueOrThrow({ ...query, where: { id } }) : row);

  return {
    /** The tenant's mailbox syncs, newest first. */
    async list(access: TenantAccess, page: z.output<typeof ListSyncsArgs>, query: SyncQuery = {}): Promise<Sync[]> {
      return reads.run(access, ({ db }) => db.sync.findMany({ ...query, ...tenantPage(access.scope('read', 'Sync'), page) }));
    },

    async get(access: TenantAccess, id: string, query: SyncQuery = {}): Promise<Sync> {
      const sync = await db.sync.findFirst({ ...query, where: { id, ...access.scope('read', 'Sync') } });
      if (!sync) throw notFound('Sync', id);
      return sync;
    },

    /** Saves a mailbox (its server must be public unless WEBHOOK_ALLOW_PRIVATE_URLS); the password is stored encrypted. */
    async create(access: TenantAccess, { password: secret, ...data }: z.output<typeof CreateSyncDto>, query: SyncQuery = {}): Promise<Sync> {
      access.assert('create', 'Sync');
      await assertReachable(data.host);
      return db.$transaction(async (tx) => {
        const sync = await tx.sync.create({ data: access.stamp({ ...data, passwordEncrypted: box.seal(secret) }) });
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
  };
}

export type SyncService = ReturnType<typeof createSyncService>;
