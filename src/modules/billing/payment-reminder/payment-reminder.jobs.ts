/**
 * The reminder sweep's queue: one job raises every overdue invoice of every tenant to the level it has reached.
 * Fired daily and whenever a worker starts; `singleton` keeps one queued at a time. Two sweeps running at once
 * (two workers) still write each level once: the invoice's row lock and the unique (invoice, level) decide.
 */
import { defineQueue } from '../../../events/jobs.js';

export const paymentReminderSweepQueue = defineQueue<Record<string, never>>('payment_reminder.sweep', {
  policy: 'singleton',
  expireInSeconds: 3600,
  retryLimit: 3,
  retryDelay: 60,
  deleteAfterSeconds: 7 * 24 * 3600,
});
