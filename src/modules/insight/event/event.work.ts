/**
 * Retention of the outbox: events older than EVENT_RETENTION_DAYS are
 * deleted once they are fully processed (fanned out by the dispatcher, and no
 * webhook delivery of theirs still pending), in batches, so that one prune
 * never holds long locks on a table every write appends to. Their deliveries
 * and attempts go with them (ON DELETE CASCADE). The events of billing
 * records are their audit trail: they stay as long as the invoices do, until
 * 8 years after the end of their year.
 */
import { billingRecordEventTypes, billingRecordRetentionYears } from '../../../events/outbox.js';
import type { Logger } from '../../../lib/logger.js';
import type { WorkDependencies } from '../../module.js';

const batchSize = 5_000;
const dayMs = 24 * 3600 * 1000;

export function createEventWork({ sql, config }: Pick<WorkDependencies, 'sql' | 'config'>) {
  return {
    /** Deletes the events past retention; returns how many. */
    async prune(log: Logger, now = new Date()): Promise<number> {
      const before = new Date(now.getTime() - config.eventRetentionDays * dayMs);
      // A billing record's event of a year that ended 8 years ago or earlier may go (UTC years, as the invoices' retention).
      const recordsBefore = new Date(Date.UTC(now.getUTCFullYear() - billingRecordRetentionYears, 0, 1));
      let deleted = 0;
      for (;;) {
        const rows = await sql.query<{ id: string }>(
          `DELETE FROM events WHERE id IN (
             SELECT e.id FROM events e
              WHERE e."createdAt" < $1 AND e."processedAt" IS NOT NULL
                AND (e."createdAt" < $4 OR e.type <> ALL ($3::text[]))
                AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d."eventId" = e.id AND d.status = 'pending')
              ORDER BY e."createdAt" LIMIT $2
           ) RETURNING id`,
          [before, batchSize, billingRecordEventTypes, recordsBefore],
        );
        deleted += rows.length;
        if (rows.length < batchSize) break;
      }
      log.info({ deleted, before: before.toISOString(), retentionDays: config.eventRetentionDays }, 'pruned old events');
      return deleted;
    },
  };
}

export type EventWork = ReturnType<typeof createEventWork>;
