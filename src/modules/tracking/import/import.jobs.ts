/**
 * `import.run` works through one import's file. A job that dies (its worker
 * killed, the database gone) is retried, and the retry goes on after the
 * last batch that committed: the import's `rowsDone` is written in each
 * batch's transaction. After the last retry the abandoned queue marks the
 * import failed, so that it never stays `running`.
 */
import { defineQueue } from '../../../events/jobs.js';

export interface ImportRunJob {
  importId: string;
}

/** Where an import's job goes after its retries: the import is marked failed and its file released. */
export const abandonedImportQueue = defineQueue<ImportRunJob>('import.run.abandoned', {
  retryLimit: 5,
  retryDelay: 30,
  retryBackoff: true,
  expireInSeconds: 60,
});

export const importRunQueue = defineQueue<ImportRunJob>(
  'import.run',
  {
    deadLetter: abandonedImportQueue.name,
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
