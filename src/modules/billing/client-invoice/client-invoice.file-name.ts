/** What a client invoice's files are called when downloaded. */
import type { ClientInvoiceDocument } from './client-invoice.document.js';

/** A file name for the download, e.g. `invoice-2026-0042.pdf`. */
export function clientInvoicePdfFileName(document: ClientInvoiceDocument): string {
  const kind = document.type === 'credit_note' ? 'credit-note' : 'invoice';
  return `${kind}-${(document.number ?? 'draft').replace(/[^\w.-]+/g, '_')}.pdf`;
}
