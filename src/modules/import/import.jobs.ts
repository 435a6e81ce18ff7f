/**
 * `import.run` works through one import's file. A job that dies (its worker
 * killed, the database gone) is retried, and the retry goes on after the
 * last batch that committed: the import's `rowsDone` is written in each
 * batch's transaction.
 */
import { defineQueue } from '../../events/jobs.js';

export interface ImportRunJob {
  importId: string;
}

export const importRunQueue = defineQueue<ImportRunJob>(
  'import.run',
  {
    policy: 'stately',
    // 100,000 rows take about a minute here; a job silent for longer than this died with its worker.
    expireInSeconds: 1800,
    retryLimit: 3,
    retryDelay: 5,
    deleteAfterSeconds: 7 * 24 * 3600,
    notify: true,
  },
  { concurrency: 2 },
);
