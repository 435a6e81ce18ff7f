/**
 * The mailbox queues. `sync.run` reads one mailbox; its `stately` policy with
 * the sync's id as key keeps at most one run queued and one running per
 * sync, however often "run now" is pressed or the clock ticks. `sync.tick`
 * fires every minute and queues the runs that are due.
 */
import { defineQueue } from '../../../events/jobs.js';

export interface SyncRunJob {
  syncId: string;
}

export const syncRunQueue = defineQueue<SyncRunJob>(
  'sync.run',
  {
    policy: 'stately',
    // A run reads at most a batch of messages; a killed worker's run is taken up again after this.
    expireInSeconds: 600,
    // A failed run is recorded on the sync (status error) and retried by the next due tick, not here.
    retryLimit: 0,
    deleteAfterSeconds: 7 * 24 * 3600,
    notify: true,
  },
  { concurrency: 2 },
);

export const syncTickQueue = defineQueue<Record<string, never>>('sync.tick', {
  policy: 'singleton',
  expireInSeconds: 60,
  retryLimit: 0,
  deleteAfterSeconds: 24 * 3600,
});
