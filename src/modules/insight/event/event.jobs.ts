/** `event.prune` runs once a day and deletes the events older than EVENT_RETENTION_DAYS that are fully processed. */
import { defineQueue } from '../../../events/jobs.js';

export const eventPruneQueue = defineQueue<Record<string, never>>('event.prune', {
  policy: 'singleton',
  // A prune deletes in batches and can be stopped anywhere; a killed one is simply the next day's.
  expireInSeconds: 3600,
  retryLimit: 2,
  deleteAfterSeconds: 7 * 24 * 3600,
});
