/**
 * The invoices part of `npm run bench`:
 *
 * - OCR of a one-page generated invoice, as a worker does it (the same
 *   tesseract.js worker reused): median seconds per page for a PNG and for a
 *   scanned PDF (rendered by pdfjs first), after one warm-up each;
 * - the upload of a 20 MiB PDF to the API process: how much its RSS grows
 *   while the file streams to disk (sampled every 5 ms);
 * - reading a received e-invoice, warm, median of its rounds: CII_example1
 *   (20 lines), the UBL example, a CII of 500 lines and a Factur-X PDF, in
 *   process as the upload does it, beside the XML parse alone (the floor
 *   every reader pays); then uploads of CII_example1 to the API process,
 *   from request to 201, against OCR's seconds above.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { readEInvoice } from '../../src/modules/inbox/received-invoice/received-invoice.einvoice-reader.js';
import { embeddedInvoice } from '../../src/modules/inbox/received-invoice/received-invoice.embedded.js';
import { readXml } from '../../src/modules/inbox/received-invoice/received-invoice.xml.js';
import { ciiWithLines, example, pdfWithEmbedded } from '../helpers/einvoices.js';
import { readFile, stopOcrEngine } from '../../src/modules/inbox/received-invoice/received-invoice.ocr.js';
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

const eInvoiceRounds = 30;

async function medianMs(run: () => unknown): Promise<number> {
  await run();
  const times: number[] = [];
  for (let round = 0; round < eInvoiceRounds; round += 1) {
    const started = performance.now();
    await run();
    times.push(performance.now() - started);
  }
  return median(times);
}

/** Reading received e-invoices, in process and through the API (see the header). */
async function measureEInvoices({ url, key, tenantId }: { url: string; key: string; tenantId: string }): Promise<void> {
  const cii = example('CII_example1.xml');
  const ubl = example('ubl-tc434-example1.xml');
  const large = ciiWithLines(500);
  const pdf = await pdfWithEmbedded(cii);
  const coldStart = performance.now();
  await embeddedInvoice(Buffer.from(pdf));
  const pdfFirstUse = performance.now() - coldStart;
  const readPdf = async () => {
    // A copy each time: the bytes move to the worker thread.
    const found = await embeddedInvoice(Buffer.from(pdf));
    if (found.kind !== 'xml') throw new Error(`no XML came out of the Factur-X PDF: ${found.kind}`);
    return readEInvoice(Buffer.from(found.xml));
  };
  const rows = [
    { name: 'CII_example1 (20 lines)', bytes: cii.length, read: await medianMs(() => readEInvoice(cii)), parse: await medianMs(() => readXml(cii)) },
    { name: 'UBL example (20 lines)', bytes: ubl.length, read: await medianMs(() => readEInvoice(ubl)), parse: await medianMs(() => readXml(ubl)) },
    { name: 'CII of 500 lines', bytes: large.length, read: await medianMs(() => readEInvoice(large)), parse: await medianMs(() => readXml(large)) },
    { name: 'Factur-X PDF (CII_example1)', bytes: pdf.length, read: await medianMs(readPdf), parse: await medianMs(() => readXml(cii)) },
  ];
  process.stdout.write(`
Reading a received e-invoice, in process (median of ${eInvoiceRounds}, warm; goal under 50 ms):
`);
  for (const row of rows) {
    process.stdout.write(`  ${row.name}, ${(row.bytes / 1024).toFixed(0)} KiB: ${row.read.toFixed(2)} ms (XML parse alone ${row.parse.toFixed(2)} ms)
`);
  }
  process.stdout.write(`  a Factur-X PDF's first read in a process (its worker thread and pdf-lib): ${pdfFirstUse.toFixed(0)} ms
`);

  // Through the API: each upload a new file (the same one twice would be a 409), read and stored, answered 201.
  const text = cii.toString('utf8');
  const times: number[] = [];
  for (let round = 0; round <= eInvoiceRounds; round += 1) {
    const file = Buffer.from(text.replace('<ram:ID>12115118</ram:ID>', `<ram:ID>BENCH-${Date.now()}-${round}</ram:ID>`));
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(file)], { type: 'application/xml' }), 'einvoice.xml');
    const started = performance.now();
    const answer = await fetch(`${url}/tenants/${tenantId}/invoices/upload`, { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: form });
    const elapsed = performance.now() - started;
    if (answer.status !== 201) throw new Error(`an e-invoice upload answered ${answer.status}: ${await answer.text()}`);
    const invoice = (await answer.json()) as { ocrStatus: string; totalAmount: string };
    if (invoice.ocrStatus !== 'none' || invoice.totalAmount !== '250.33') throw new Error(`the e-invoice was not read: ${JSON.stringify(invoice)}`);
    if (round > 0) times.push(elapsed);
  }
  process.stdout.write(`  upload of CII_example1 to the API, request to 201 with the invoice read: median ${median(times).toFixed(1)} ms
`);
}

export async function measureInvoices({ url, pid, key, tenantId }: { url: string; pid: number; key: string; tenantId: string }): Promise<void> {
  await measureEInvoices({ url, key, tenantId });
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
