/**
 * The webhook queues. A delivery job is one HTTP attempt; the contract's
 * retry schedule (5 s ... 24 h) is kept by the delivery itself, which
 * enqueues its next attempt. pg-boss's own retries are for the worker's
 * failures: a process killed mid-attempt has its job retried after
 * `expireInSeconds`, with the same `webhook-id`; after ten such failures the
 * job goes to the abandoned queue, which records the delivery as failed.
 */
import { defineQueue } from '../../../events/jobs.js';

export interface DeliveryJob {
  deliveryId: string;
}

export const abandonedDeliveryQueue = defineQueue<DeliveryJob>('webhook.deliver.abandoned', {
  retryLimit: 5,
  retryDelay: 30,
  retryBackoff: true,
  expireInSeconds: 60,
});

export const deliveryQueue = defineQueue<DeliveryJob>(
  'webhook.deliver',
  {
    // An attempt takes at most 10 s of HTTP plus two short transactions.
    expireInSeconds: 15,
    retryLimit: 10,
    retryDelay: 5,
    retryBackoff: true,
    retryDelayMax: 600,
    deadLetter: abandonedDeliveryQueue.name,
    // Retries wait up to 24 h before they may start.
    retentionSeconds: 3 * 24 * 3600,
    deleteAfterSeconds: 24 * 3600,
    notify: true,
  },
  { concurrency: 8 },
);
