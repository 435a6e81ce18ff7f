/**
 * What a client invoice's files are called when downloaded: one rule for the PDF, the Factur-X PDF and every
 * e-invoice format, so that the files of one invoice sort together and say what they are.
 */
import type { ClientInvoiceDocument } from './client-invoice.document.js';
import type { WrittenEInvoiceFormat } from './einvoice/requirements.js';

/** The files an invoice becomes: its PDF (plain or Factur-X) and its e-invoice XML formats. */
export type ClientInvoiceFileFormat = 'pdf' | 'facturx' | WrittenEInvoiceFormat;

/**
 * The download's name: the kind, the number (`draft` before it has one) with anything but letters, digits,
 * `.` and `-` as `_`, and for an e-invoice the format: `invoice-2026-0042.pdf` (plain and Factur-X alike: a
 * Factur-X is the same PDF people read), `credit-note-2026-0043-xrechnung-cii.xml`.
 */
export function clientInvoiceFileName(document: ClientInvoiceDocument, format: ClientInvoiceFileFormat): string {
  const kind = document.type === 'credit_note' ? 'credit-note' : 'invoice';
  const stem = `${kind}-${(document.number ?? 'draft').replace(/[^\w.-]+/g, '_')}`;
  return format === 'pdf' || format === 'facturx' ? `${stem}.pdf` : `${stem}-${format}.xml`;
}
