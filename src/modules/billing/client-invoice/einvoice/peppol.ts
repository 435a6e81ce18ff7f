/**
 * A client invoice as Peppol BIS Billing 3.0: a UBL 2.1 invoice (or credit note) that declares the BIS 3.0
 * specification and the billing process (PEPPOL-EN16931-R001, R004), with both parties' Peppol participant ids
 * as endpoints (R010, R020; requirements.ts checks their schemes) and one note (R002). What else Peppol asks
 * (a buyer reference, and between two German parties XRechnung's seller contact) is in requirements.ts.
 */
import type { ClientInvoiceDocument } from '../client-invoice.document.js';
import { peppolBillingProcess, specificationIds, type Tree } from './shared.js';
import { ublOf } from './ubl.js';

/** The Peppol BIS Billing 3.0 tree of `document`. */
export function peppolOf(document: ClientInvoiceDocument): Tree {
  return ublOf(document, { customizationId: specificationIds.peppol, profileId: peppolBillingProcess, oneNote: true });
}
