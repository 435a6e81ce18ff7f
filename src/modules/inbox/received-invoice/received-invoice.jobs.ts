/**
 * The OCR queue. A job reads one invoice's file; a file that cannot be read
 * (broken, encrypted, too many pages) is an outcome (`ocr_failed`), not a job
 * failure. pg-boss retries only what went wrong with the worker itself: a
 * process killed mid-job has its job retried after `expireInSeconds`; after
 * the last retry the abandoned queue marks the invoice failed.
 */
import { defineQueue } from '../../../events/jobs.js';

export interface OcrJob {
  invoiceId: string;
}

/** Where an OCR job goes after its retries: the invoice is marked failed, so it never stays `running`. */
export const abandonedOcrQueue = defineQueue<OcrJob>('invoice.ocr.abandoned', {
  retryLimit: 5,
  retryDelay: 30,
  retryBackoff: true,
  expireInSeconds: 60,
});

export const ocrQueue = defineQueue<OcrJob>(
  'invoice.ocr',
  {
    deadLetter: abandonedOcrQueue.name,
    // A scanned PDF of the most pages we read (20) at about 1.5 s a page, with room to spare.
    expireInSeconds: 120,
    retryLimit: 3,
    retryDelay: 10,
    retryBackoff: true,
    deleteAfterSeconds: 7 * 24 * 3600,
    notify: true,
  },
  // Recognition is CPU work in worker threads: two at a time keeps a small machine responsive.
  { concurrency: 2 },
);
