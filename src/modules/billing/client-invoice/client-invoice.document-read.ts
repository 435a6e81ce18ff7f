/**
 * Reads one invoice as the document its files are written from (client-invoice.document.ts): an issued one
 * from what it kept at issue alone, so its files never change; a draft, which has no snapshots yet, with the
 * seller and buyer as they are now.
 */
import type { TenantAccess } from '../../../auth/tenant-access.js';
import type { Db, Tx } from '../../../db/client.js';
import { notFound } from '../../../lib/errors.js';
import { billingProfileFor } from '../billing-profile/billing-profile.service.js';
import type { ClientInvoiceDocument } from './client-invoice.document.js';
import { issuedClientInvoiceDocument, toClientInvoiceDocument } from './client-invoice.document-of.js';
import { assertSellerComplete, buyerOf, sellerOf } from './client-invoice.issuable.js';

/**
 * One invoice of the tenant as the files are written from, read with `client` (a transaction sees its own
 * writes); a draft with the seller and buyer as they are now, once the profile can name a seller (409 otherwise).
 */
export async function readClientInvoiceDocument(client: Tx | Db, access: TenantAccess, id: string): Promise<ClientInvoiceDocument> {
  const invoice = await client.clientInvoice.findFirst({
    where: { id, ...access.scope('read', 'ClientInvoice') },
    include: { lines: { orderBy: { position: 'asc' } }, client: true, creditNoteFor: { select: { number: true, issueDate: true } } },
  });
  if (!invoice) throw notFound('ClientInvoice', id);
  if (invoice.status !== 'draft') return issuedClientInvoiceDocument({ invoice, lines: invoice.lines, creditNoteFor: invoice.creditNoteFor });
  const profile = await billingProfileFor(client, access);
  const document = toClientInvoiceDocument({
    invoice,
    lines: invoice.lines,
    creditNoteFor: invoice.creditNoteFor,
    paymentTermsDays: profile.paymentTermsDays,
    // A draft has no snapshots yet: it shows the seller and buyer as they are now.
    seller: sellerOf(profile),
    buyer: buyerOf(invoice.client, profile),
  });
  // A draft is shown with the seller as the profile is now: it must be one a document can name.
  assertSellerComplete(document);
  return document;
}
