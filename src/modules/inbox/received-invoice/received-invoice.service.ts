import path from 'node:path';
import type { Readable } from 'node:stream';
import type { z } from 'zod';
import type { TenantAccess } from '../../../auth/tenant-access.js';
import type { Config } from '../../../config.js';
import type { Db, Tx } from '../../../db/client.js';
import type { Reads } from '../../../db/replicas.js';
import { tenantPage } from '../../../db/list.js';
import { shapesResult } from '../../../db/query.js';
import type { JobQueue } from '../../../events/jobs.js';
import { recordEvent, withDays } from '../../../events/outbox.js';
import type { Invoice, Prisma } from '../../../generated/prisma/client.js';
import { AppError, notFound } from '../../../lib/errors.js';
import { createLocalFileStorage, type FileStorage, type StagedFile } from '../../../lib/file-storage.js';
import { projectForWork } from '../../tracking/project/project.service.js';
import {
  assertAmountsFit,
  type CreateInvoiceDto,
  invoiceConflicts,
  type InvoiceQuery,
  type ListInvoicesArgs,
  type UpdateInvoiceDto,
  type UploadInvoiceFields,
} from './received-invoice.dto.js';
import { readEInvoice, type ReceivedEInvoice } from './received-invoice.einvoice-reader.js';
import { assertUploadType, readStagedEInvoice, type ReadEInvoice, uploadTypes, xmlType } from './received-invoice.intake.js';
import { ocrQueue } from './received-invoice.jobs.js';
import { maxXmlBytes, UnreadableXml } from './received-invoice.xml.js';
import { dayColumn, optionalDayColumn } from '../../../lib/day.js';

export { uploadTypes, xmlType };

/** An invoice's fields as its e-invoice states them, and its lines. */
function fromEInvoice({ format, invoice }: ReadEInvoice) {
  const { syntax: _syntax, lines, issueDate, dueDate, ...fields } = invoice;
  return {
    fields: { ...fields, issueDate: optionalDayColumn(issueDate), dueDate: optionalDayColumn(dueDate), eInvoiceFormat: format },
    lines: { createMany: { data: lines } },
  };
}

/** A file on its way in: staged in storage, with the name it came with. */
export interface IncomingInvoiceFile {
  staged: StagedFile;
  fileName: string;
  /**
   * The XML e-invoice that states this file's invoice (a PDF mailed with
   * its XML): the invoice is read from it, and the file is its picture.
   * Discarded either way; the file alone is what the invoice keeps.
   */
  eInvoice?: StagedFile;
}

/** What a staged file is: its type by content (none we take: undefined), and the e-invoice an XML file is. */
export interface StagedKind {
  mimeType: string | undefined;
  eInvoice?: ReceivedEInvoice;
}

/** Where a file came from, for the invoice it becomes. */
export interface FileOrigin {
  source: 'upload' | 'email';
  syncId?: string;
  emailMessageId?: string;
}

/** Only what makes sense in a Content-Disposition and a log line: no path, no control characters. */
export function safeFileName(name: string | undefined, mimeType: string): string {
  const base = path
    .basename((name ?? '').replace(/\\/g, '/'))
    .replace(/[\p{Cc}"\\]/gu, '')
    .trim()
    .slice(0, 200);
  return base || `invoice.${uploadTypes[mimeType] ?? 'bin'}`;
}

/** Where invoice files are kept (by their content's hash): the service stores and serves them, the OCR work reads them. */
export function invoiceFileStorage(config: Config): FileStorage {
  return createLocalFileStorage(path.join(config.dataDir, 'files'));
}

/**
 * Received invoices: typed in, uploaded, or imported from a mailbox; OCR
 * fills what is empty. Members upload and read their own; managers and
 * admins manage all.
 */
export function createInvoiceService({ db, reads, jobs, config }: { db: Db; reads: Reads; jobs: JobQueue; config: Config }) {
  const files = invoiceFileStorage(config);

  /** An invoice the caller may read (a member: one they uploaded), or 404; with `change`, one they may also change (403 otherwise). */
  async function findVisible(tx: Tx | Db, access: TenantAccess, id: string, change?: 'update' | 'delete'): Promise<Invoice> {
    const invoice = await tx.invoice.findFirst({ where: { id, ...access.scope('read', 'Invoice') } });
    if (!invoice) throw notFound('Invoice', id);
    if (change) access.assertMayChange(change, 'Invoice', invoice);
    return invoice;
  }

  const reread = (tx: Tx, id: string, query: InvoiceQuery, row: Invoice) =>
    shapesResult(query) ? tx.invoice.findUniqueOrThrow({ ...query, where: { id } }) : row;

  function duplicateOf(tenant: string, existing: { id: string }): AppError {
    return invoiceConflicts.refuse('DUPLICATE_FILE', `This file was already uploaded as invoice ${existing.id}`, {
      errors: [{ path: 'file', message: `is the file of invoice ${existing.id}` }],
      headers: { location: `/tenants/${tenant}/invoices/${existing.id}` },
    });
  }

  /** Removes a stored file once no invoice uses it (under the file's lock, see `fromFile`). */
  async function releaseFile(tx: Tx, key: string | null): Promise<void> {
    if (!key) return;
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext('invoice-file:' || ${key}))`;
    const users = await tx.invoice.count({ where: { storageKey: key } });
    if (users === 0) await files.remove(key);
  }

  return {
    /** The tenant's invoices (a member's own), newest first. */
    async list(
      access: TenantAccess,
      { limit, offset, status, ocrStatus, projectId, from, to }: z.output<typeof ListInvoicesArgs>,
      query: InvoiceQuery = {},
    ): Promise<Invoice[]> {
      const readable = access.scope('read', 'Invoice');
      const issued = from || to ? { issueDate: { ...(from ? { gte: dayColumn(from) } : {}), ...(to ? { lte: dayColumn(to) } : {}) } } : {};
      return reads.run(access, ({ db }) =>
        db.invoice.findMany({
          ...query,
          ...tenantPage(
            readable,
            { limit, offset },
            {
              ...(status ? { status } : {}),
              ...(ocrStatus ? { ocrStatus } : {}),
              ...(projectId ? { projectId } : {}),
              ...issued,
            },
          ),
        }),
      );
    },

    /** One invoice (a member: one they uploaded). */
    async get(access: TenantAccess, id: string, query: InvoiceQuery = {}): Promise<Invoice> {
      const invoice = await db.invoice.findFirst({ ...query, where: { id, ...access.scope('read', 'Invoice') } });
      if (!invoice) throw notFound('Invoice', id);
      return invoice;
    },

    /** An invoice typed in by hand; records `invoice.created`. */
    async create(access: TenantAccess, { issueDate, dueDate, ...data }: z.output<typeof CreateInvoiceDto>, query: InvoiceQuery = {}): Promise<Invoice> {
      access.assert('create', 'Invoice');
      assertAmountsFit(data.currency, data);
      return db.$transaction(async (tx) => {
        if (data.projectId) await projectForWork(tx, access, data.projectId, 'projectId');
        const invoice = await tx.invoice.create({
          data: access.stamp({
            ...data,
            issueDate: optionalDayColumn(issueDate),
            dueDate: optionalDayColumn(dueDate),
            source: 'manual',
            uploadedById: access.tenantUserId,
          }),
        });
        await recordEvent(tx, access, { type: 'invoice.created', subjectId: invoice.id, data: eventData(invoice) });
        return reread(tx, invoice.id, query, invoice);
      });
    },

    /** Writes a file aside while it arrives; `fromFile` makes it an invoice or discards it. */
    stage: (stream: Readable): Promise<StagedFile> => files.stage(stream),

    /**
     * A staged file becomes an invoice: its type checked by content (415), the
     * same file in the tenant refused (409 naming the first), OCR queued, and
     * `invoice.created` recorded. The staged file is kept or discarded either way.
     */
    async fromFile(
      access: TenantAccess,
      { staged, fileName, eInvoice: statement }: IncomingInvoiceFile,
      meta: z.output<typeof UploadInvoiceFields>,
      origin: FileOrigin = { source: 'upload' },
      query: InvoiceQuery = {},
    ): Promise<Invoice> {
      access.assert('create', 'Invoice');
      let kept = false;
      try {
        const mimeType = await assertUploadType(staged);
        // Read before anything is written: an XML that is no invoice leaves nothing behind.
        const eInvoice = statement ? await readStagedEInvoice(statement, xmlType) : await readStagedEInvoice(staged, mimeType);
        const read = eInvoice ? fromEInvoice(eInvoice) : undefined;
        const { key } = staged;
        const invoice = await db.$transaction(async (tx) => {
          // Orders this upload against a deletion that would remove the same file (releaseFile).
          await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext('invoice-file:' || ${key}))`;
          // The same file once per tenant, whoever uploaded it first.
          const existing = await tx.invoice.findFirst({ where: { sha256: staged.sha256, ...access.tenantWide('Invoice') }, select: { id: true } });
          if (existing) throw duplicateOf(access.tenantId, existing);
          if (meta.projectId) await projectForWork(tx, access, meta.projectId, 'projectId');
          await staged.keep();
          kept = true;
          const { issueDate, dueDate, ...rest } = meta;
          const created = await tx.invoice.create({
            data: access.stamp({
              // What the uploader typed wins over the file, as it does over OCR.
              ...read?.fields,
              ...rest,
              ...(issueDate ? { issueDate: dayColumn(issueDate) } : {}),
              ...(dueDate ? { dueDate: dayColumn(dueDate) } : {}),
              ...(read ? { lines: read.lines } : {}),
              source: origin.source,
              syncId: origin.syncId ?? null,
              emailMessageId: origin.emailMessageId ?? null,
              fileName: safeFileName(fileName, mimeType),
              mimeType,
              size: staged.size,
              sha256: staged.sha256,
              storageKey: key,
              // An e-invoice is read already, exactly: nothing for OCR to guess.
              ocrStatus: read ? 'none' : 'pending',
              uploadedById: access.tenantUserId,
            }),
          });
          await recordEvent(tx, access, { type: 'invoice.created', subjectId: created.id, data: eventData(created) });
          if (!read) await jobs.send(tx, ocrQueue, { invoiceId: created.id });
          return reread(tx, created.id, query, created);
        });
        return invoice;
      } finally {
        if (!kept) await staged.discard();
        await statement?.discard();
      }
    },

    /** What a staged file is, without storing anything: for a mail's attachments, before they are paired. */
    async kindOf(staged: StagedFile): Promise<StagedKind> {
      let mimeType: string;
      try {
        mimeType = await assertUploadType(staged);
      } catch (error) {
        if (error instanceof AppError) return { mimeType: undefined };
        throw error;
      }
      if (mimeType !== xmlType || staged.size > maxXmlBytes) return { mimeType };
      try {
        return { mimeType, eInvoice: readEInvoice(await staged.read()) };
      } catch (error) {
        if (error instanceof UnreadableXml) return { mimeType };
        throw error;
      }
    },

    /** The stored file of an invoice, to stream back. */
    async file(access: TenantAccess, id: string): Promise<{ stream: Readable; fileName: string; mimeType: string; size: number | null }> {
      access.assert('read', 'Invoice');
      const invoice = await findVisible(db, access, id);
      if (!invoice.storageKey || !invoice.mimeType) throw notFound('File of invoice', id);
      try {
        return { stream: await files.open(invoice.storageKey), fileName: invoice.fileName ?? 'invoice', mimeType: invoice.mimeType, size: invoice.size };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw notFound('File of invoice', id);
        throw error;
      }
    },

    /** Changes an invoice (managers and admins) and records `invoice.updated`. */
    async update(
      access: TenantAccess,
      id: string,
      { issueDate, dueDate, ...data }: z.output<typeof UpdateInvoiceDto>,
      query: InvoiceQuery = {},
    ): Promise<Invoice> {
      return db.$transaction(async (tx) => {
        await findVisible(tx, access, id, 'update');
        if (data.projectId) await projectForWork(tx, access, data.projectId, 'projectId');
        const invoice = await tx.invoice.update({
          where: { id },
          data: { ...data, issueDate: optionalDayColumn(issueDate), dueDate: optionalDayColumn(dueDate) },
        });
        // As the invoice now is: the amounts given, and all it keeps when its currency changes.
        const text = (value: Prisma.Decimal | null) => value?.toString() ?? null;
        const { netAmount, taxAmount, totalAmount } = invoice;
        assertAmountsFit(
          invoice.currency,
          data.currency === undefined ? data : { netAmount: text(netAmount), taxAmount: text(taxAmount), totalAmount: text(totalAmount) },
        );
        await recordEvent(tx, access, { type: 'invoice.updated', subjectId: id, data: eventData(invoice) });
        return reread(tx, id, query, invoice);
      });
    },

    /** Deletes an invoice, and its file when no other invoice has the same one; records `invoice.deleted`. */
    async remove(access: TenantAccess, id: string, query: InvoiceQuery = {}): Promise<Invoice> {
      return db.$transaction(async (tx) => {
        const existing = await findVisible(tx, access, id, 'delete');
        const deleted = await tx.invoice.delete({ ...query, where: { id } });
        await releaseFile(tx, existing.storageKey);
        await recordEvent(tx, access, { type: 'invoice.deleted', subjectId: id, data: eventData(existing) });
        return deleted;
      });
    },

    /** Queues OCR again (202): fields already filled stay as they are. */
    async rerunOcr(access: TenantAccess, id: string, query: InvoiceQuery = {}): Promise<Invoice> {
      access.assert('update', 'Invoice');
      return db.$transaction(async (tx) => {
        const invoice = await findVisible(tx, access, id);
        if (!invoice.storageKey)
          throw invoiceConflicts.refuse('NO_FILE', 'The invoice has no file to read', { errors: [{ path: 'file', message: 'is missing' }] });
        if (invoice.eInvoiceFormat) {
          throw invoiceConflicts.refuse('READ_FROM_EINVOICE', `The invoice was read from its e-invoice (${invoice.eInvoiceFormat}); OCR has nothing to add`);
        }
        if (invoice.ocrStatus === 'pending' || invoice.ocrStatus === 'running') {
          throw invoiceConflicts.refuse('OCR_IN_PROGRESS', `OCR of this invoice is already ${invoice.ocrStatus}`);
        }
        const updated = await tx.invoice.update({ where: { id }, data: { ocrStatus: 'pending', lastError: null } });
        await jobs.send(tx, ocrQueue, { invoiceId: id });
        return reread(tx, id, query, updated);
      });
    },
  };
}

/** What events carry of an invoice: its fields (its dates as days), not its OCR text. */
export function eventData(invoice: Invoice): Record<string, unknown> {
  const { ocrText: _ocrText, storageKey: _storageKey, ...rest } = invoice;
  return withDays(rest, ['issueDate', 'dueDate']);
}

export type InvoiceService = ReturnType<typeof createInvoiceService>;
