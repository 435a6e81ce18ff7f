/**
 * One batch of an import's rows, written in the caller's transaction: the
 * people, clients, projects and tasks the rows name (import.references.ts:
 * matched by email or name, created when missing), then the entries, their
 * values from entry.values.ts, each with its row's fingerprint, in one
 * INSERT. A row imported before (by this import before a crash, by an
 * earlier import, or earlier in this file) inserts nothing and is skipped.
 *
 * What a batch resolves is remembered for the next batches of the same run
 * (`ImportReferences`); a batch whose transaction fails takes its run down
 * with it, and the retry starts with empty memory.
 */
import type { TenantAccess } from '../../../auth/tenant-access.js';
import type { Tx } from '../../../db/client.js';
import { recordEvents } from '../../../events/outbox.js';
import { Prisma, type Entry, type EntryStatus } from '../../../generated/prisma/client.js';
import type { TenantSettings } from '../../platform/tenant/tenant.settings.js';
import { billableOf, entryValues, textWithinLimits, type RecordedMoney } from '../entry/entry.values.js';
import type { ImportedEntry, ParsedRow } from './import.formats.js';
import type { Clock } from '../../../lib/clock.js';
import { createReferenceResolver, type CreatedCounts, type ImportReferences, type ResolvedEntry } from './import.references.js';

/** A row's outcome as the import counts it. */
export interface RowProblem {
  row: number;
  message: string;
}

export interface BatchResult {
  imported: number;
  skipped: number;
  failed: number;
  problems: RowProblem[];
  created: CreatedCounts;
}

export interface BatchContext {
  /** The import's tenant, as its importer writes there (`systemAccess`: the job was allowed when it was queued). */
  access: TenantAccess;
  /** The importer's membership: reviewer of approved imported entries (null for an API key). */
  reviewerId: string | null;
  entryStatus: EntryStatus;
  settings: Pick<TenantSettings, 'currency' | 'defaultHourlyRate'>;
  /** When approved entries are reviewed and new members join. */
  clock: Clock;
}

const decimalOrNull = (value: string | null): Prisma.Decimal | null => (value === null ? null : new Prisma.Decimal(value));

/** What the file says of the entry's money itself (entry.values.ts lets it win over the money model). */
const recordedMoney = (entry: ImportedEntry): RecordedMoney => ({
  hourlyRate: decimalOrNull(entry.billableRate),
  billableAmount: decimalOrNull(entry.billableAmount),
  costRate: decimalOrNull(entry.costRate),
});

/** An entry as a batch inserts it. */
interface ImportedEntryRow {
  tenantUserId: string;
  projectId: string | null;
  taskId: string | null;
  startedAt: Date;
  endedAt: Date;
  breakMinutes: number;
  durationMinutes: number;
  description: string | null;
  billable: boolean;
  tags: string[];
  hourlyRate: Prisma.Decimal | null;
  costRate: Prisma.Decimal | null;
  currency: string;
  billableAmount: Prisma.Decimal | null;
  costAmount: Prisma.Decimal | null;
  fingerprint: string;
}

/** Every column of an entry but its search vector (which the database writes). */
const entryColumns = `id, "tenantId", "tenantUserId", "projectId", "taskId", "vehicleId", "distanceKm", "startedAt", "endedAt", "breakMinutes",
  "durationMinutes", description, billable, tags, "hourlyRate", "costRate", "billableAmount", "costAmount", currency, status, "submittedAt",
  "reviewedById", "reviewedAt", "rejectionReason", "importFingerprint", "createdAt", "updatedAt"`;
const decimalColumns = ['distanceKm', 'hourlyRate', 'costRate', 'billableAmount', 'costAmount'] as const;
const text = (value: Prisma.Decimal | null): string | null => (value === null ? null : value.toString());

/**
 * Inserts a batch's entries in one statement, one array per column (a
 * statement that binds every value of 500 rows costs Prisma a third of a
 * second), skipping those whose fingerprint the tenant has already; returns
 * the inserted ones as Prisma reads entries.
 */
async function insertEntries(
  tx: Tx,
  /** What every entry of the batch shares, its tenant stamped on. */
  shared: { tenantId: string; status: EntryStatus; reviewedById: string | null; reviewedAt: Date | null },
  rows: readonly ImportedEntryRow[],
): Promise<Entry[]> {
  if (rows.length === 0) return [];
  const inserted = await tx.$queryRawUnsafe<Entry[]>(
    `INSERT INTO entries (id, "tenantId", "tenantUserId", "projectId", "taskId", "startedAt", "endedAt", "durationMinutes", description, billable, tags,
                          "breakMinutes", "hourlyRate", "costRate", "billableAmount", "costAmount", currency, status, "reviewedById", "reviewedAt", "importFingerprint", "updatedAt")
     SELECT uuidv7()::text, $1, r.member, r.project, r.task, r.started::timestamptz, r.ended::timestamptz, r.minutes, r.description, r.billable,
            ARRAY(SELECT jsonb_array_elements_text(r.tags::jsonb)), r.break_minutes, r.rate::numeric, r.cost_rate::numeric, r.amount::numeric, r.cost::numeric,
            r.currency, $2::"EntryStatus", $3, $4::timestamptz, r.fingerprint, now()
       FROM unnest($5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::int[], $11::text[], $12::boolean[], $13::text[],
                   $14::text[], $15::text[], $16::text[], $17::text[], $18::text[], $19::text[], $20::int[]) WITH ORDINALITY
            AS r(member, project, task, started, ended, minutes, description, billable, tags, rate, cost_rate, amount, cost, currency, fingerprint, break_minutes, position)
      ORDER BY r.position
         ON CONFLICT ("tenantId", "importFingerprint") WHERE "importFingerprint" IS NOT NULL DO NOTHING
     RETURNING ${entryColumns}`,
    shared.tenantId,
    shared.status,
    shared.reviewedById,
    shared.reviewedAt?.toISOString() ?? null,
    rows.map((row) => row.tenantUserId),
    rows.map((row) => row.projectId),
    rows.map((row) => row.taskId),
    rows.map((row) => row.startedAt.toISOString()),
    rows.map((row) => row.endedAt.toISOString()),
    rows.map((row) => row.durationMinutes),
    rows.map((row) => row.description),
    rows.map((row) => row.billable),
    rows.map((row) => JSON.stringify(row.tags)),
    rows.map((row) => text(row.hourlyRate)),
    rows.map((row) => text(row.costRate)),
    rows.map((row) => text(row.billableAmount)),
    rows.map((row) => text(row.costAmount)),
    rows.map((row) => row.currency),
    rows.map((row) => row.fingerprint),
    rows.map((row) => row.breakMinutes),
  );
  // Raw rows may carry numerics as text: as Prisma's own reads, amounts are decimals.
  return inserted.map((entry) => {
    const shaped: Record<string, unknown> = { ...entry };
    for (const column of decimalColumns) {
      const value = shaped[column];
      if (value !== null && value !== undefined && !Prisma.Decimal.isDecimal(value)) shaped[column] = new Prisma.Decimal(String(value));
    }
    return shaped as unknown as Entry;
  });
}

export function createBatchWriter(tx: Tx, context: BatchContext, references: ImportReferences) {
  const { access } = context;
  const resolver = createReferenceResolver(tx, context, references);
  const { created } = resolver;

  return {
    created,

    /** Writes `rows` (one batch, in file order); returns how each row ended. */
    async write(rows: readonly ParsedRow[]): Promise<BatchResult> {
      const result: BatchResult = { imported: 0, skipped: 0, failed: 0, problems: [], created };
      const candidates: { row: number; entry: ImportedEntry }[] = [];
      const firstOf = new Map<string, number>();
      for (const parsed of rows) {
        if (parsed.outcome === 'failed') {
          result.failed += 1;
          result.problems.push({ row: parsed.row, message: parsed.message });
        } else if (parsed.outcome === 'skipped') {
          result.skipped += 1;
        } else if (firstOf.has(parsed.entry.fingerprint)) {
          result.skipped += 1;
        } else {
          firstOf.set(parsed.entry.fingerprint, parsed.row);
          candidates.push({ row: parsed.row, entry: parsed.entry });
        }
      }
      if (candidates.length === 0) return result;

      const resolved = await resolver.resolve(candidates.map(({ entry }) => entry));
      const reviewedAt = context.entryStatus === 'approved' ? context.clock.now() : null;
      const rowsOut: ImportedEntryRow[] = [];
      for (const [index, { row, entry }] of candidates.entries()) {
        const target = resolved[index] as ResolvedEntry | Error;
        if (target instanceof Error) {
          result.failed += 1;
          result.problems.push({ row, message: target.message });
          continue;
        }
        const { tenantUserId, project, taskId, rates } = target;
        const billable = billableOf(entry.billable, project);
        // History as it was (README "Imports write history as it was"): the file's minutes, not the tenant's rounding; its own money wins.
        const values = entryValues({
          startedAt: entry.startedAt,
          endedAt: entry.endedAt,
          breakMinutes: entry.breakMinutes,
          roundingMinutes: 0,
          billable,
          rates,
          recorded: recordedMoney(entry),
        });
        rowsOut.push({
          tenantUserId,
          projectId: project?.id ?? null,
          taskId,
          startedAt: entry.startedAt,
          endedAt: entry.endedAt,
          breakMinutes: entry.breakMinutes,
          ...textWithinLimits(entry.description, entry.tags),
          billable,
          ...values,
          fingerprint: entry.fingerprint,
        });
      }
      const inserted = await insertEntries(
        tx,
        access.stamp({ status: context.entryStatus, reviewedById: reviewedAt ? context.reviewerId : null, reviewedAt }),
        rowsOut,
      );
      result.imported += inserted.length;
      result.skipped += rowsOut.length - inserted.length;
      await recordEvents(
        tx,
        access,
        inserted.map((entry) => ({ type: 'entry.created' as const, subjectId: entry.id, data: entry })),
      );
      return result;
    },
  };
}
