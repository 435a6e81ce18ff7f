/**
 * The OCR work the workers run: claim an invoice, read its file, fill the
 * fields still empty, or record why it could not be read; and give up on an
 * invoice whose job kept failing on our side. Jobs reach it through their
 * JobContext; no resolver can (the API's way in is `rerunOcr`, which queues
 * a job).
 */
import { systemActor } from '../../../auth/actor.js';
import { recordEvent, type EventOrigin } from '../../../events/outbox.js';
import type { Invoice, Prisma } from '../../../generated/prisma/client.js';
import type { OcrStatus } from '../../../generated/prisma/enums.js';
import type { Logger } from '../../../lib/logger.js';
import type { WorkDependencies } from '../../module.js';
import { readFile, UnreadableFile, type ReadResult } from './received-invoice.ocr.js';
import { eventData, invoiceFileStorage } from './received-invoice.service.js';
import { dayColumn } from '../../../lib/day.js';

/** Who records what OCR made of an invoice: the `ocr` system actor, in the invoice's tenant. */
const ocrOf = (invoice: Invoice): EventOrigin => ({ tenantId: invoice.tenantId, actor: systemActor('ocr') });

/** What may be read: an invoice waiting for OCR, or one a worker that died was reading. */
const readable: OcrStatus[] = ['pending', 'running'];

export function createInvoiceWork({ db, config }: Pick<WorkDependencies, 'db' | 'config'>) {
  const files = invoiceFileStorage(config);

  /** Claims an invoice for OCR; undefined when there is nothing to do (deleted, already done, no file). */
  async function claim(id: string): Promise<Invoice | undefined> {
    const { count } = await db.invoice.updateMany({ where: { id, ocrStatus: { in: readable }, storageKey: { not: null } }, data: { ocrStatus: 'running' } });
    return count === 0 ? undefined : ((await db.invoice.findUnique({ where: { id } })) ?? undefined);
  }

  /** Records that OCR of an invoice in one of the states `from` failed; the reason is kept for the uploader. */
  async function fail(invoice: Invoice, reason: string, from: OcrStatus[], log: Logger): Promise<boolean> {
    const failed = await db.$transaction(async (tx) => {
      const { count } = await tx.invoice.updateMany({ where: { id: invoice.id, ocrStatus: { in: from } }, data: { ocrStatus: 'failed', lastError: reason } });
      if (count === 0) return false;
      await recordEvent(tx, ocrOf(invoice), {
        type: 'invoice.ocr_failed',
        subjectId: invoice.id,
        data: { ...eventData(invoice), ocrStatus: 'failed', lastError: reason },
      });
      return true;
    });
    if (failed) log.warn({ invoiceId: invoice.id, reason }, 'invoice could not be read');
    return failed;
  }

  /** What OCR read: fills only the fields still empty, and tells the uploader. */
  async function complete(invoice: Invoice, result: ReadResult, log: Logger): Promise<void> {
    await db.$transaction(async (tx) => {
      const current = await tx.invoice.findUnique({ where: { id: invoice.id } });
      if (!current || current.ocrStatus !== 'running') return;
      const filled: Prisma.InvoiceUpdateInput = {};
      for (const [name, value] of Object.entries(result.fields) as [keyof ReadResult['fields'], string | undefined][]) {
        if (value === undefined || current[name] !== null) continue;
        (filled as Record<string, unknown>)[name] = name === 'issueDate' || name === 'dueDate' ? dayColumn(value) : value;
      }
      const updated = await tx.invoice.update({
        where: { id: invoice.id },
        data: { ...filled, ocrStatus: 'done', ocrText: result.text.replaceAll('\u0000', ''), ocrConfidence: result.confidence, lastError: null },
      });
      await recordEvent(tx, ocrOf(invoice), {
        type: 'invoice.ocr_completed',
        subjectId: invoice.id,
        data: { ...eventData(updated), filled: Object.keys(filled) },
      });
    });
    log.info({ invoiceId: invoice.id, confidence: result.confidence, chars: result.text.length }, 'invoice read');
  }

  return {
    /** The OCR job: claims the invoice, reads its file, and records what came of it. */
    async read(id: string, log: Logger): Promise<void> {
      const invoice = await claim(id);
      if (!invoice) return;
      const started = performance.now();
      let bytes: Buffer;
      try {
        bytes = await files.read(invoice.storageKey as string);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
          await fail(invoice, 'The stored file is missing', ['running'], log);
          return;
        }
        throw error;
      }
      try {
        const result = await readFile(bytes, invoice.mimeType ?? 'application/octet-stream');
        await complete(invoice, result, log.child({ ms: Math.round(performance.now() - started) }));
      } catch (error) {
        if (!(error instanceof UnreadableFile)) throw error;
        await fail(invoice, error.message, ['running'], log);
      }
    },

    /** OCR kept failing on our side (not the file's fault): the invoice says so instead of staying pending or running. */
    async abandon(id: string, log: Logger): Promise<void> {
      const invoice = await db.invoice.findUnique({ where: { id } });
      if (!invoice) return;
      if (await fail(invoice, 'OCR failed repeatedly on our side; run it again later (POST .../ocr)', readable, log)) {
        log.error({ invoiceId: id }, 'an OCR job was abandoned after its retries');
      }
    },
  };
}

export type InvoiceWork = ReturnType<typeof createInvoiceWork>;
