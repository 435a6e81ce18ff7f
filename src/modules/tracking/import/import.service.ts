import path from 'node:path';
import type { Readable } from 'node:stream';
import { z } from 'zod';
import type { TenantAccess } from '../../../auth/tenant-access.js';
import { actorReference } from '../../../auth/actor.js';
import type { Config } from '../../../config.js';
import type { Db, Tx } from '../../../db/client.js';
import type { Reads } from '../../../db/replicas.js';
import { tenantPage } from '../../../db/list.js';
import type { PrismaQuery } from '../../../db/query.js';
import type { JobQueue } from '../../../events/jobs.js';
import type { Import, Prisma } from '../../../generated/prisma/client.js';
import { ImportSource, ImportStatus } from '../../../generated/prisma/enums.js';
import { args, fields, pagination } from '../../../lib/dto.js';
import { AppError, notFound, validationFailed } from '../../../lib/errors.js';
import { createLocalFileStorage, type FileStorage, type StagedFile } from '../../../lib/file-storage.js';
import { isTimeZone } from '../../../lib/time.js';
import { defineEnum } from '../../../lib/vocabulary.js';
import { settingsFor } from '../../platform/tenant/tenant.settings.js';
import { checkHeader, looksLikeCsv } from './import.formats.js';
import { checkMapping, type GenericMapping } from './import.generic.js';
import { ImportFileError } from './import.source.js';
import { importRunQueue } from './import.jobs.js';

export const importSource = defineEnum('ImportSource', ImportSource);
export const importStatus = defineEnum('ImportStatus', ImportStatus);
export const importEntryStatus = defineEnum('ImportEntryStatus', ['approved', 'draft']);

/** How many row errors an import keeps (the counts hold them all). */
export const keptRowErrors = 100;

/** The text fields of `POST imports` (multipart, beside the file). */
export const UploadImportFields = z.strictObject({
  source: importSource.schema('The tool the file was exported from: toggl, clockify, harvest, kimai, or generic (with `mapping`)'),
  dryRun: z
    .stringbool({ error: 'must be true or false' })
    .default(false)
    .describe('true: count what a real run would do (rows, people, clients, projects, tasks to create) and write nothing'),
  timezone: z
    .string()
    .refine(isTimeZone, 'must be an IANA time zone such as Europe/Berlin')
    .optional()
    .describe("The zone of the file's local dates and times; default: the tenant's"),
  mapping: z
    .string()
    .max(10_000)
    .optional()
    .describe('generic only, required there: JSON object of field -> column header, e.g. {"date":"Day","startTime":"Start","endTime":"End","email":"Mail"}'),
  entryStatus: importEntryStatus.schema('The status imported entries get: approved (history, the default) or draft').default('approved'),
});

const tenantId = fields.id('Tenant id');
export const ListImportsArgs = args({ tenantId, ...pagination });
export const ImportArgs = args({ tenantId, id: fields.id('Import id') });

export type ImportQuery = PrismaQuery<Prisma.ImportInclude, Prisma.ImportSelect>;

/** A file on its way in: staged while the upload streamed. */
export interface IncomingImportFile {
  staged: StagedFile;
  fileName: string;
}

/** Where import files wait for their job: apart from invoices', so that ending an import never removes an invoice's file. */
export function importFileStorage(config: Pick<Config, 'dataDir'>): FileStorage {
  return createLocalFileStorage(path.join(config.dataDir, 'import-files'));
}

/** Orders the start of an import against the end of another holding the same file (which removes it when nobody else does). */
export const lockImportFile = (tx: Tx, key: string) => tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext('import-file:' || ${key}))`;

/** A file problem as the API answers it: the field it is about, and what to do. */
function refusalOf(error: ImportFileError): AppError {
  return validationFailed(
    [{ path: error.path, message: error.message }],
    error.path === 'mapping' ? 'The mapping does not fit the file' : 'The file cannot be imported',
  );
}

/** The generic source's mapping, parsed and checked; the other sources take none. */
function mappingOf(source: ImportSource, mapping: string | undefined): GenericMapping | undefined {
  if (source !== 'generic') {
    if (mapping !== undefined) throw validationFailed([{ path: 'mapping', message: `is for the generic source only; a ${source} file's columns are known` }]);
    return undefined;
  }
  if (mapping === undefined) throw validationFailed([{ path: 'mapping', message: 'is required for a generic file: a JSON object of field -> column header' }]);
  let parsed: unknown;
  try {
    parsed = JSON.parse(mapping);
  } catch {
    throw validationFailed([{ path: 'mapping', message: 'is not JSON: send an object such as {"date":"Day","startTime":"Start"}' }]);
  }
  try {
    return checkMapping(parsed);
  } catch (error) {
    if (error instanceof ImportFileError) throw refusalOf(error);
    throw error;
  }
}

/**
 * Imports of other time trackers' CSV files (owners and admins). The request
 * checks what can be checked at once (the source, the mapping, that the file
 * is a CSV with the columns its source needs) and queues the job; the rows
 * are the job's (import.work.ts).
 */
export function createImportService({ db, reads, jobs, config }: { db: Db; reads: Reads; jobs: JobQueue; config: Config }) {
  const files = importFileStorage(config);

  return {
    /** The tenant's imports, newest first. */
    async list(access: TenantAccess, page: z.output<typeof ListImportsArgs>, query: ImportQuery = {}): Promise<Import[]> {
      return reads.run(access, ({ db }) => db.import.findMany({ ...query, ...tenantPage(access.scope('read', 'Import'), page) }));
    },

    async get(access: TenantAccess, id: string, query: ImportQuery = {}): Promise<Import> {
      const found = await db.import.findFirst({ ...query, where: { id, ...access.scope('read', 'Import') } });
      if (!found) throw notFound('Import', id);
      return found;
    },

    /** Writes an upload aside while it streams (the route's `stage`). */
    stage: (stream: Readable): Promise<StagedFile> => files.stage(stream),

    /**
     * Queues the import of a staged file: 415 unless it is a text CSV, 400
     * when its header lacks what the source (or the mapping) needs. The
     * staged file is kept for the job, or discarded.
     */
    async start(access: TenantAccess, { staged, fileName }: IncomingImportFile, input: z.output<typeof UploadImportFields>): Promise<Import> {
      access.assert('create', 'Import');
      let kept = false;
      try {
        const mapping = mappingOf(input.source, input.mapping);
        if (!looksLikeCsv(staged.head)) {
          throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'The file is not a CSV (text, comma-separated, UTF-8): export the report as CSV and send that', {
            errors: [{ path: 'file', message: 'is not a CSV file' }],
          });
        }
        const timezone = input.timezone ?? (await settingsFor(db, access)).timezone;
        const options = { source: input.source, timeZone: timezone, ...(mapping ? { mapping } : {}) };
        const actor = actorReference(access.actor);
        const created = await db.$transaction(async (tx) => {
          await lockImportFile(tx, staged.key);
          await staged.keep();
          kept = true;
          try {
            await checkHeader(await files.open(staged.key), options);
          } catch (error) {
            if (error instanceof ImportFileError) throw refusalOf(error);
            throw error;
          }
          const row = await tx.import.create({
            data: access.stamp({
              source: input.source,
              dryRun: input.dryRun,
              timezone,
              entryStatus: input.entryStatus,
              ...(mapping ? { mapping } : {}),
              fileName: fileName.slice(0, 255),
              fileSize: staged.size,
              fileSha256: staged.sha256,
              fileKey: staged.key,
              createdById: access.tenantUserId,
              actorType: actor.type,
              actorId: actor.id,
            }),
          });
          await jobs.send(tx, importRunQueue, { importId: row.id }, { singletonKey: row.id });
          return row;
        });
        return created;
      } catch (error) {
        if (kept) await releaseFile(db, files, staged.key);
        else await staged.discard();
        throw error;
      }
    },
  };
}

/** Removes an import file nobody is waiting for any more (another import of the same file may still be). */
export async function releaseFile(db: Db, files: FileStorage, key: string): Promise<void> {
  await db.$transaction(async (tx) => {
    await lockImportFile(tx, key);
    // Under the lock: an import starting with the same file waits, then keeps the file again.
    if ((await tx.import.count({ where: { fileKey: key } })) === 0) await files.remove(key);
  });
}

export type ImportService = ReturnType<typeof createImportService>;
