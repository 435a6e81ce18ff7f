/**
 * The invoices part of `npm run bench`:
 *
 * - OCR of a one-page generated invoice, as a worker does it (the same
 *   tesseract.js worker reused): median seconds per page for a PNG and for a
 *   scanned PDF (rendered by pdfjs first), after one warm-up each;
 * - the upload of a 20 MiB PDF to the API process: how much its RSS grows
 *   while the file streams to disk (sampled every 5 ms).
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { readFile, stopOcrEngine } from '../../src/modules/invoice/invoice.ocr.js';
import { invoicePng, scannedPdf } from '../helpers/invoices.js';

const rounds = 5;

function rssKb(pid: number): number {
  return Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;

async function secondsPerPage(bytes: Buffer, mimeType: string): Promise<{ seconds: number; total: string | undefined }> {
  const first = await readFile(bytes, mimeType);
  const times: number[] = [];
  for (let round = 0; round < rounds; round += 1) {
    const started = performance.now();
    await readFile(bytes, mimeType);
    times.push((performance.now() - started) / 1000);
  }
  return { seconds: median(times), total: first.fields.totalAmount };
}

export async function measureInvoices({ url, pid, key, tenantId }: { url: string; pid: number; key: string; tenantId: string }): Promise<void> {
  const png = invoicePng();
  const pdf = await scannedPdf(png);
  try {
    const fromPng = await secondsPerPage(png, 'image/png');
    const fromPdf = await secondsPerPage(pdf, 'application/pdf');
    process.stdout.write(
      `\nOCR, one page (median of ${rounds}, warm): PNG ${fromPng.seconds.toFixed(2)} s (total read: ${fromPng.total}), ` +
        `scanned PDF ${fromPdf.seconds.toFixed(2)} s (total read: ${fromPdf.total}); goal under 3 s\n`,
    );
  } finally {
    await stopOcrEngine();
  }

  // A PDF by its header; its content does not matter to the upload path (OCR runs later, in a worker).
  const file = Buffer.concat([Buffer.from('%PDF-1.7\n'), randomBytes(20 * 1024 * 1024 - 64 * 1024)]);
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(file)], { type: 'application/pdf' }), 'large.pdf');
  const before = rssKb(pid);
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, rssKb(pid))), 5);
  const started = performance.now();
  const answer = await fetch(`${url}/tenants/${tenantId}/invoices/upload`, { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: form });
  const seconds = (performance.now() - started) / 1000;
  clearInterval(sampler);
  if (answer.status !== 201) throw new Error(`the 20 MiB upload answered ${answer.status}: ${await answer.text()}`);
  process.stdout.write(
    `upload of a 20 MiB PDF: ${seconds.toFixed(2)} s; API process RSS ${(before / 1024).toFixed(0)} MB before, ` +
      `peak ${(peak / 1024).toFixed(0)} MB (+${((peak - before) / 1024).toFixed(1)} MB; goal under +40 MB)\n`,
  );
}
