/**
 * Whether a draft can be issued: issuing freezes the seller (the billing profile) and the buyer (the client)
 * into the invoice, so what any of its files will need of them is checked before, from the one list of
 * requirements (einvoice/requirements.ts): the invoice itself, the EN 16931 core (CII, UBL and Factur-X are
 * always available for an issued invoice), and the format the client is set to receive (`einvoiceFormat`).
 * A 409 names every field that is missing, relative to the resource its reason names (the profile's fields
 * for BILLING_PROFILE_INCOMPLETE, the client's for CLIENT_INCOMPLETE; another resource's with its prefix).
 */
import type { Client, ClientInvoice } from '../../../generated/prisma/client.js';
import type { FieldError } from '../../../lib/errors.js';
import type { Address, ElectronicAddress } from '../../tracking/party/party.fields.js';
import type { BillingProfileView } from '../billing-profile/billing-profile.service.js';
import type { BuyerSnapshot, ClientInvoiceDocument, SellerSnapshot } from './client-invoice.document.js';
import { clientInvoiceConflicts } from './client-invoice.dto.js';
import { type ClientEInvoiceFormat, type MissingField, missingForAll, type RequirementFormat } from './einvoice/requirements.js';

/** The seller as the profile names it now: what issuing freezes. */
export function sellerOf(profile: BillingProfileView): SellerSnapshot {
  return {
    legalName: profile.legalName ?? '',
    address: profile.address as Address,
    vatId: profile.vatId,
    taxNumber: profile.taxNumber,
    registrationId: profile.registrationId,
    registrationScheme: profile.registrationScheme,
    email: profile.email ?? '',
    phone: profile.phone,
    contactName: profile.contactName,
    electronicAddress: profile.electronicAddress,
    iban: profile.iban,
    bic: profile.bic,
    bankName: profile.bankName,
    smallBusiness: profile.smallBusiness,
  };
}

/**
 * The buyer as the client's billing details name it now: what issuing freezes, with the language its documents
 * are written in (the client's, else the profile's), so that they read the same at any later time.
 */
export function buyerOf(client: Client, profile: Pick<BillingProfileView, 'language'>): BuyerSnapshot {
  return {
    language: client.language ?? profile.language,
    name: client.name,
    address: (client.billingAddress as Address | null) ?? null,
    vatId: client.vatId,
    email: client.invoiceEmail,
    electronicAddress: (client.electronicAddress as ElectronicAddress | null) ?? null,
  };
}

/** The formats issuing checks for a client: the invoice, the EN 16931 core, and the one it is set to receive. */
export function formatsToCheck(einvoiceFormat: string): RequirementFormat[] {
  const format = einvoiceFormat as ClientEInvoiceFormat;
  return ['pdf', 'cii', ...(format === 'none' || format === 'cii' ? [] : [format])];
}

const resources = [
  { prefix: 'billingProfile.', reason: 'BILLING_PROFILE_INCOMPLETE', what: 'The billing profile' },
  { prefix: 'client.', reason: 'CLIENT_INCOMPLETE', what: 'The client' },
  { prefix: 'invoice.', reason: 'EINVOICE_INCOMPLETE', what: 'The draft' },
] as const;

/**
 * 409 when `missing` (what a prospective document lacks; issuing gives the rest) names anything: the reason of the
 * first resource that lacks something, every missing field in `errors`.
 */
export function refuseIncomplete(missing: readonly MissingField[], formats: readonly RequirementFormat[]): void {
  const fillable = missing.filter((field): field is MissingField & { source: string } => field.source !== null);
  const first = resources.find((resource) => fillable.some((field) => field.source.startsWith(resource.prefix)));
  if (!first) return;
  const errors: FieldError[] = fillable.map((field) => ({
    path: field.source.startsWith(first.prefix) ? field.source.slice(first.prefix.length) : field.source,
    message: field.message,
  }));
  const named = formats.filter((format) => format !== 'pdf' && format !== 'cii').join(', ');
  throw clientInvoiceConflicts.refuse(
    first.reason,
    `${first.what} lacks what the invoice${named ? ` and its ${named} e-invoice` : ''} will need once issued: ${fillable.map((field) => field.source).join(', ')}`,
    { errors },
  );
}

/** 409 unless `document` (a draft with the seller and buyer it would freeze) can be issued to a client receiving `einvoiceFormat`. */
export function assertIssuable(document: ClientInvoiceDocument, einvoiceFormat: string): void {
  const formats = formatsToCheck(einvoiceFormat);
  refuseIncomplete(missingForAll(document, formats), formats);
}

/** 409 BILLING_PROFILE_INCOMPLETE unless the profile can name the seller of a draft's PDF. */
export function assertSellerComplete(document: ClientInvoiceDocument): void {
  refuseIncomplete(
    missingForAll(document, ['pdf']).filter((field) => field.source?.startsWith('billingProfile.')),
    ['pdf'],
  );
}

/** The reason a live invoice in `status` refuses a change meant for drafts. */
export function assertDraft(invoice: ClientInvoice): void {
  if (invoice.status === 'void') throw clientInvoiceConflicts.refuse('INVOICE_VOID', 'The invoice is void');
  if (invoice.status !== 'draft') {
    throw clientInvoiceConflicts.refuse(
      'INVOICE_ISSUED',
      `The invoice is ${invoice.status} (${invoice.number}): it is never changed or deleted; void it instead`,
    );
  }
}

/** An issued, sent or paid invoice (not a draft, not void). */
export function assertIssued(invoice: ClientInvoice, what: string): void {
  if (invoice.status === 'draft') throw clientInvoiceConflicts.refuse('INVOICE_NOT_ISSUED', `The invoice is a draft: issue it before it is ${what}`);
  if (invoice.status === 'void') throw clientInvoiceConflicts.refuse('INVOICE_VOID', 'The invoice is void');
}
