/**
 * A client invoice as an EN 16931 electronic invoice: UN/CEFACT CII D16B or OASIS UBL 2.1 (Invoice, or
 * CreditNote for a credit note), each plain or with the XRechnung 3.0 specification identifier, or Peppol BIS
 * Billing 3.0 (UBL): the one entry to the writers. A writer per syntax (cii.ts, ubl.ts, peppol.ts beside this)
 * builds an object tree that xmlbuilder2 writes (why not @e-invoice-eu/core: docs/decisions.md); what each format
 * needs is one list (requirements.ts). The inbox reads received e-invoices with a reader of its own
 * (received-invoice.einvoice-reader.ts). Amounts are the document's decimal strings as given: the breakdown and totals
 * were computed once, by billing, and the writer only places them, so what the PDF prints and what the XML
 * says are the same numbers.
 */
import type { ClientInvoiceDocument } from '../client-invoice.document.js';
import { ciiOf } from './cii.js';
import { peppolOf } from './peppol.js';
import { type WrittenEInvoiceFormat, missingEInvoiceFields } from './requirements.js';
import { peppolBillingProcess, specificationIds, type Tree } from './shared.js';
import { ublOf } from './ubl.js';

export {
  availableEInvoiceFormats,
  clientEInvoiceFormats,
  type ClientEInvoiceFormat,
  type WrittenEInvoiceFormat,
  writtenEInvoiceFormats,
  missingEInvoiceFields,
  missingFor,
  type MissingField,
} from './requirements.js';

/** The media type each format is served as (all are XML documents in UTF-8). */
export const eInvoiceContentTypes: Record<WrittenEInvoiceFormat, string> = {
  cii: 'application/xml; charset=utf-8',
  ubl: 'application/xml; charset=utf-8',
  'xrechnung-cii': 'application/xml; charset=utf-8',
  'xrechnung-ubl': 'application/xml; charset=utf-8',
  peppol: 'application/xml; charset=utf-8',
};

const writers: Record<WrittenEInvoiceFormat, (document: ClientInvoiceDocument) => Tree> = {
  cii: (document) => ciiOf(document, false),
  'xrechnung-cii': (document) => ciiOf(document, true),
  ubl: (document) => ublOf(document, { customizationId: specificationIds.en16931 }),
  'xrechnung-ubl': (document) => ublOf(document, { customizationId: specificationIds.xrechnung, profileId: peppolBillingProcess }),
  peppol: peppolOf,
};

/**
 * The XML of `document` in `format`. Throws when `missingEInvoiceFields` names something: the caller
 * answers that as a conflict before it gets here.
 */
export async function writeEInvoice(document: ClientInvoiceDocument, format: WrittenEInvoiceFormat): Promise<string> {
  const missing = missingEInvoiceFields(document, format);
  if (missing.length > 0) throw new Error(`The ${format} e-invoice lacks: ${missing.join(', ')}`);
  const tree = writers[format](document);
  // Loaded on the first e-invoice: a process that writes none does not hold it (figures: docs/performance.md).
  const { create } = await import('xmlbuilder2');
  return create({ version: '1.0', encoding: 'UTF-8' }, tree).end({ prettyPrint: true });
}
