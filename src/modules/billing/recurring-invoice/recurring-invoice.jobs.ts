/**
 * The recurring-invoice queue: one job makes every due period's invoice. It runs every hour (a tenant's
 * day begins at a different UTC hour in each zone) and whenever a worker starts; `singleton` keeps one
 * queued and one running, and a second at once would only find the plans locked or done.
 */
import { defineQueue } from '../../../events/jobs.js';

export const recurringInvoiceRunQueue = defineQueue<Record<string, never>>('recurring-invoice.run', {
  policy: 'singleton',
  // A run makes at most what is due; a killed one is taken up by the next tick (what it made stays made, once).
  expireInSeconds: 3600,
  retryLimit: 1,
  deleteAfterSeconds: 7 * 24 * 3600,
});
