/**
 * The EN 16931 XML a PDF carries (Factur-X, ZUGFeRD 2.x, XRechnung in a PDF):
 * an embedded file named `factur-x.xml`, `zugferd-invoice.xml` or
 * `xrechnung.xml` (ZUGFeRD 1's `ZUGFeRD-invoice.xml` too; names compared
 * without case) in the document's EmbeddedFiles name tree, which Factur-X
 * requires beside the catalog's /AF array.
 *
 * pdfjs-dist reads it (already what OCR renders with): it follows the
 * cross-reference table to the catalog, the name tree and that one stream,
 * so the cost does not grow with the pages and images of the PDF. A PDF that
 * never says `/EmbeddedFile` (the type of every embedded file stream, which
 * PDF keeps outside compressed object streams) has none, and is not opened
 * at all: `mentionsEmbeddedFile` tells that from a stream of its bytes.
 */
import type { Readable } from 'node:stream';

/** Embedded file names that hold the invoice's XML, lower-cased. */
const invoiceFileNames = new Set(['factur-x.xml', 'zugferd-invoice.xml', 'xrechnung.xml']);

const marker = Buffer.from('/EmbeddedFile');

/** Whether the bytes of `stream` contain `/EmbeddedFile` (read in chunks: a 20 MiB scan is never held whole). */
export async function mentionsEmbeddedFile(stream: Readable): Promise<boolean> {
  let tail = Buffer.alloc(0);
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    const window = Buffer.concat([tail, chunk]);
    if (window.includes(marker)) {
      stream.destroy();
      return true;
    }
    tail = window.subarray(Math.max(0, window.length - marker.length + 1));
  }
  return false;
}

/** The XML of the e-invoice embedded in `pdf`, or undefined when it has none (or cannot be opened: OCR says why). */
export async function embeddedInvoiceXml(pdf: Buffer): Promise<Buffer | undefined> {
  const { getDocument, VerbosityLevel } = await import('pdfjs-dist/legacy/build/pdf.mjs');
  // A copy: pdfjs detaches the array it is given.
  const task = getDocument({ data: new Uint8Array(pdf), verbosity: VerbosityLevel.ERRORS, isEvalSupported: false, disableFontFace: true });
  try {
    const document = await task.promise;
    const attachments = ((await document.getAttachments()) ?? {}) as Record<string, { filename?: string; content?: Uint8Array }>;
    for (const [name, attachment] of Object.entries(attachments)) {
      const names = [name, attachment.filename ?? ''].map((each) => each.toLowerCase());
      if (attachment.content && names.some((each) => invoiceFileNames.has(each))) return Buffer.from(attachment.content);
    }
    return undefined;
  } catch {
    // Damaged or password-protected: not readable here; the OCR job tells the uploader in words.
    return undefined;
  } finally {
    await task.destroy();
  }
}
