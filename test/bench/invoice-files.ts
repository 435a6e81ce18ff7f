/**
 * The invoice files part of `npm run bench`, in this process on a document it builds (no server, no
 * database): a 500-line client invoice (BENCH_INVOICE_LINES) as each EN 16931 XML format (goal under
 * 200 ms, issue 32), as the PDF and as the Factur-X PDF. For each: the first call (cold: modules loaded,
 * code not yet optimised, as the first download after a start) and the median and slowest of the next
 * rounds. The goal is absolute (a download's time): the XML rows say whether their median met it (the
 * slowest call of a round on a shared machine is mostly its neighbours').
 */
import { writtenEInvoiceFormats, writeEInvoice } from '../../src/modules/billing/client-invoice/einvoice/writer.js';
import { renderClientInvoicePdf } from '../../src/modules/billing/client-invoice/client-invoice.pdf.js';
import { manyLineInvoice } from '../helpers/client-invoice-documents.js';

const lineCount = Number(process.env.BENCH_INVOICE_LINES ?? 500);
const xmlRounds = 21;
const pdfRounds = 7;
const xmlGoalMs = 200;

const format = (value: number, digits = 1) => value.toFixed(digits);

async function timed(rounds: number, run: () => unknown): Promise<{ first: number; median: number; slowest: number; size: number }> {
  let started = performance.now();
  const output = await run();
  const first = performance.now() - started;
  const times: number[] = [];
  for (let round = 0; round < rounds; round += 1) {
    started = performance.now();
    await run();
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  const size = typeof output === 'string' ? Buffer.byteLength(output) : Buffer.isBuffer(output) ? output.length : 0;
  return { first, median: times[Math.floor(times.length / 2)] ?? Number.NaN, slowest: times.at(-1) ?? Number.NaN, size };
}

export async function measureInvoiceFiles(): Promise<void> {
  const document = manyLineInvoice(lineCount);
  process.stdout.write(`\ninvoice files: a ${lineCount}-line client invoice, in this process (ms: first call, then median and slowest of the next rounds)\n`);
  const rows: [string, Awaited<ReturnType<typeof timed>>][] = [];
  for (const eInvoiceFormat of writtenEInvoiceFormats)
    rows.push([`XML ${eInvoiceFormat}`, await timed(xmlRounds, () => writeEInvoice(document, eInvoiceFormat))]);
  rows.push(['PDF', await timed(pdfRounds, () => renderClientInvoicePdf(document, { format: 'pdf' }))]);
  rows.push(['Factur-X PDF/A-3', await timed(pdfRounds, () => renderClientInvoicePdf(document, { format: 'facturx' }))]);
  for (const [name, result] of rows) {
    const goal = name.startsWith('XML') ? (result.median < xmlGoalMs ? `  median under ${xmlGoalMs} ms` : `  median OVER ${xmlGoalMs} ms`) : '';
    process.stdout.write(
      `  ${name.padEnd(18)} first ${format(result.first).padStart(7)}  median ${format(result.median).padStart(7)}  slowest ${format(result.slowest).padStart(7)}  ` +
        `${format(result.size / 1024, 0).padStart(4)} KB${goal}\n`,
    );
  }
}
