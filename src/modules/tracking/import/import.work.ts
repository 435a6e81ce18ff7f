/**
 * The import job: reads the file row by row (csv-parse, streaming) and
 * writes it in batches of `batchRows`, each batch in one transaction with
 * the import's progress (`rowsDone`, the counts, the first errors), so
 * `GET imports/{id}` shows it move and a job that dies resumes after the
 * last committed batch without importing a row twice.
 *
 * A dry run does the very same work in one transaction that is rolled back
 * at the end: what it counts is what a real run would do (people, clients
 * and projects a first row creates are found by the rows after it), and
 * nothing stays but the import's counts, written beside it.
 */
import type { Actor } from '../../../auth/actor.js';
import { systemAccess } from '../../../auth/tenant-access.js';
import type { Db, Tx } from '../../../db/client.js';
import { recordEvent, type EventOrigin } from '../../../events/outbox.js';
import type { Import, Prisma } from '../../../generated/prisma/client.js';
import type { Logger } from '../../../lib/logger.js';
import type { WorkDependencies } from '../../module.js';
import { settingsOf } from '../../platform/tenant/tenant.settings.js';
import { createBatchWriter, type BatchContext, type BatchResult, type RowProblem } from './import.batch.js';
import { readImportRows, type ParsedRow } from './import.formats.js';
import type { GenericMapping } from './import.generic.js';
import { ImportFileError } from './import.source.js';
import { emptyReferences, type ImportReferences } from './import.references.js';
import { importFileStorage, keptRowErrors, releaseFile } from './import.service.js';

/** Rows per transaction: large enough that 10,000 rows are 20 round trips of a few statements, small enough to hold few locks briefly. */
export const batchRows = 500;
/** A dry run holds one transaction over the whole file; this is how long it may take. */
const dryRunTimeoutMs = 15 * 60_000;
const batchTimeoutMs = 60_000;

/** Unwinds a dry run's transaction once its counts are taken. */
class DryRunRollback extends Error {}

export function createImportWork({ db, config, clock }: Pick<WorkDependencies, 'db' | 'config' | 'clock'>) {
  const files = importFileStorage(config);

  /** Who the job writes as: the importer, as events and invitations name them. */
  async function actorOf(found: Import): Promise<Actor> {
    if (found.actorType === 'user' && found.actorId) {
      const user = await db.user.findUnique({ where: { id: found.actorId }, select: { id: true, email: true, name: true } });
      if (user) return { type: 'user', userId: user.id, email: user.email, name: user.name, isSuperadmin: false };
    }
    if (found.actorType === 'api_key' && found.actorId) {
      const key = await db.apiKey.findUnique({ where: { id: found.actorId }, select: { id: true, tenantId: true, name: true } });
      if (key) return { type: 'api_key', apiKeyId: key.id, tenantId: key.tenantId, name: key.name };
    }
    return { type: 'system', name: 'import' };
  }

  /** Adds a batch's outcome to the import (in `tx`: a real batch's own transaction; `db` for a dry run). */
  async function progress(tx: Tx | Db, found: Pick<Import, 'id' | 'errors'>, lastRow: number, result: BatchResult, keptErrors: RowProblem[]): Promise<void> {
    const room = keptRowErrors - keptErrors.length;
    if (room > 0) keptErrors.push(...result.problems.slice(0, room));
    await tx.import.update({
      where: { id: found.id },
      data: {
        rowsDone: lastRow,
        imported: { increment: result.imported },
        skipped: { increment: result.skipped },
        failed: { increment: result.failed },
        createdClients: { increment: result.created.clients },
        createdProjects: { increment: result.created.projects },
        createdTasks: { increment: result.created.tasks },
        createdMembers: { increment: result.created.members },
        ...(result.problems.length > 0 && room > 0 ? { errors: keptErrors as unknown as Prisma.InputJsonValue } : {}),
      },
    });
  }

  /** The file's rows after `rowsDone`, `batchRows` at a time. */
  async function* batchesOf(found: Import): AsyncGenerator<ParsedRow[]> {
    const rows = readImportRows(await files.open(found.fileKey as string), {
      source: found.source,
      timeZone: found.timezone,
      ...(found.mapping ? { mapping: found.mapping as GenericMapping } : {}),
    });
    let batch: ParsedRow[] = [];
    for await (const row of rows) {
      if (row.row <= found.rowsDone) continue;
      batch.push(row);
      if (batch.length === batchRows) {
        yield batch;
        batch = [];
      }
    }
    if (batch.length > 0) yield batch;
  }

  /** Ends the import: done or failed, its file released, `import.completed` recorded as from `origin` (the importer is notified). */
  async function finish(found: Import, origin: EventOrigin, outcome: { status: 'done' } | { status: 'failed'; lastError: string }): Promise<Import> {
    const ended = await db.$transaction(async (tx) => {
      const ended = await tx.import.update({
        where: { id: found.id },
        data: { status: outcome.status, finishedAt: clock.now(), fileKey: null, lastError: outcome.status === 'failed' ? outcome.lastError : null },
      });
      const { fileKey: _key, ...shown } = ended;
      await recordEvent(tx, origin, { type: 'import.completed', subjectId: found.id, data: { ...shown, rows: ended.imported + ended.skipped + ended.failed } });
      return ended;
    });
    if (found.fileKey) await releaseFile(db, files, found.fileKey);
    return ended;
  }

  return {
    /** Runs (or resumes) one import; an import that has ended is left alone. */
    async run(importId: string, log: Logger): Promise<void> {
      const found = await db.import.findUnique({ where: { id: importId }, include: { tenant: true } });
      if (!found || found.status === 'done' || found.status === 'failed') return;
      // The job writes as the importer in the import's tenant: the import was allowed when it was queued.
      const access = systemAccess(found.tenant, await actorOf(found));
      if (found.fileKey === null) {
        await finish(found, access, { status: 'failed', lastError: 'The file is gone; upload it again' });
        return;
      }
      const context: BatchContext = {
        access,
        reviewerId: found.createdById,
        entryStatus: found.entryStatus,
        settings: settingsOf(found.tenant),
        clock,
      };
      const started = await db.import.update({
        where: { id: found.id },
        // A dry run counts from the start again: nothing of an earlier attempt stayed.
        data: {
          status: 'running',
          startedAt: found.startedAt ?? clock.now(),
          ...(found.dryRun
            ? { rowsDone: 0, imported: 0, skipped: 0, failed: 0, errors: [], createdClients: 0, createdProjects: 0, createdTasks: 0, createdMembers: 0 }
            : {}),
        },
      });
      const keptErrors = [...((started.errors as unknown as RowProblem[] | null) ?? [])];
      const references: ImportReferences = emptyReferences();
      const runLog = log.child({ importId, tenantId: found.tenantId, source: found.source, dryRun: found.dryRun });
      const startedAt = performance.now();
      try {
        if (found.dryRun) {
          await db
            .$transaction(
              async (tx) => {
                for await (const batch of batchesOf(started)) {
                  const result = await createBatchWriter(tx, context, references).write(batch);
                  await progress(db, started, (batch.at(-1) as ParsedRow).row, result, keptErrors);
                }
                throw new DryRunRollback();
              },
              { timeout: dryRunTimeoutMs, maxWait: batchTimeoutMs },
            )
            .catch((error: unknown) => {
              if (!(error instanceof DryRunRollback)) throw error;
            });
        } else {
          for await (const batch of batchesOf(started)) {
            await db.$transaction(
              async (tx) => {
                const result = await createBatchWriter(tx, context, references).write(batch);
                await progress(tx, started, (batch.at(-1) as ParsedRow).row, result, keptErrors);
              },
              { timeout: batchTimeoutMs, maxWait: batchTimeoutMs },
            );
          }
        }
      } catch (error) {
        if (!(error instanceof ImportFileError)) {
          runLog.warn({ err: error }, 'the import stopped; the job is retried and goes on after the last batch that committed');
          // What the importer sees meanwhile: still running, and that it paused (not the database's own words).
          await db.$executeRaw`UPDATE imports SET "lastError" = 'Stopped after row ' || "rowsDone" || '; the job retries from there', "updatedAt" = now() WHERE id = ${found.id}`.catch(
            () => undefined,
          );
          throw error;
        }
        runLog.info({ reason: error.message }, 'the import file cannot be read');
        await finish(started, access, { status: 'failed', lastError: error.message });
        return;
      }
      const ended = await finish(started, access, { status: 'done' });
      runLog.info(
        { rows: ended.rowsDone, imported: ended.imported, skipped: ended.skipped, failed: ended.failed, ms: Math.round(performance.now() - startedAt) },
        'import finished',
      );
    },

    /**
     * The import's job kept failing (the database or the worker, not the file): the import ends failed,
     * saying how far it got, instead of staying `running`. Its file is released; uploading it again
     * goes on where this one stopped, since the rows it imported are skipped by their fingerprints.
     */
    async abandon(importId: string, log: Logger): Promise<void> {
      const found = await db.import.findUnique({ where: { id: importId } });
      if (!found || found.status === 'done' || found.status === 'failed') return;
      const lastError =
        `Stopped after row ${found.rowsDone} and gave up after repeated failures on our side; ` +
        (found.dryRun ? 'run the dry run again later' : 'upload the file again to import the rest (the rows imported so far are skipped)');
      await finish(found, { tenantId: found.tenantId, actor: await actorOf(found) }, { status: 'failed', lastError });
      log.error({ importId, tenantId: found.tenantId, rowsDone: found.rowsDone }, 'an import was abandoned after its job failed repeatedly');
    },
  };
}

export type ImportWork = ReturnType<typeof createImportWork>;
