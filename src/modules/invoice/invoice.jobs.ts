/**
 * The OCR queue. A job reads one invoice's file; a file that cannot be read
 * (broken, encrypted, too many pages) is an outcome (`ocr_failed`), not a job
 * failure. pg-boss retries only what went wrong with the worker itself: a
 * process killed mid-job has its job retried after `expireInSeconds`.
 */
import { defineQueue } from '../../events/jobs.js';

export interface OcrJob {
  invoiceId: string;
}

export const ocrQueue = defineQueue<OcrJob>(
  'invoice.ocr',
  {
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
