/**
 * The EN 16931 XML a PDF carries (Factur-X, ZUGFeRD 2.x, XRechnung in a
 * PDF), read without letting the PDF decide what it costs: the structure is
 * read and the one file inflated (to at most the XML limit) by
 * received-invoice.pdf-attachment.ts, in a worker thread under a memory and time
 * budget (lib/bounded-worker.ts). A PDF whose e-invoice, or whose structure,
 * needs more than that is `too-large`: the upload is refused (400 naming
 * `file`, docs/decisions.md "Hostile files").
 */
import { BudgetExceeded, runBounded } from '../../../lib/bounded-worker.js';
import type { PdfAttachment } from './received-invoice.pdf-attachment.js';
import { maxXmlBytes } from './received-invoice.xml.js';

/** What a PDF carries, or that reading it went over the budget. */
export type EmbeddedInvoice = PdfAttachment | { kind: 'over-budget'; resource: 'memory' | 'time' };

/**
 * What reading one PDF may add to the process: the worker thread and pdf-lib
 * (about 20 MB), the PDF (at most the upload limit, 20 MiB) with a copy of
 * its streams, and the XML (5 MiB).
 */
const budget = { memoryBytes: 80 * 1024 * 1024, heapMb: 48, timeMs: 10_000 };

const attachmentModule = new URL(`./received-invoice.pdf-attachment${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url);

/** The e-invoice embedded in `pdf` (whose buffer is handed to the worker: do not use it afterwards). */
export async function embeddedInvoice(pdf: Buffer): Promise<EmbeddedInvoice> {
  // Its own buffer moves to the worker; a slice of a shared one is copied.
  const own = pdf.byteOffset === 0 && pdf.byteLength === pdf.buffer.byteLength && pdf.buffer instanceof ArrayBuffer;
  const bytes = own ? new Uint8Array(pdf.buffer, 0, pdf.byteLength) : new Uint8Array(pdf);
  try {
    return await runBounded<PdfAttachment>(attachmentModule, 'pdfAttachment', [bytes, maxXmlBytes], budget, [bytes.buffer as ArrayBuffer]);
  } catch (error) {
    if (error instanceof BudgetExceeded) return { kind: 'over-budget', resource: error.resource };
    throw error;
  }
}
