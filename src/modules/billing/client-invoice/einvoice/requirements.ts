/**
 * What each e-invoice format needs of an invoice, its seller and its buyer, listed once (CONTRACT.md section
 * 11, "E-invoice requirements, once"). Issuing reads it for the EN 16931 core and the format the client is set
 * to receive, before the seller and buyer are frozen into the invoice (409 BILLING_PROFILE_INCOMPLETE or
 * CLIENT_INCOMPLETE, naming where to fill each field); the writers' 409 EINVOICE_INCOMPLETE reads the same
 * list for an issued invoice (naming what the frozen invoice lacks). Each requirement names the rule it comes
 * from: the EN 16931 business rules (BR-*), XRechnung's (BR-DE-*) and Peppol's (PEPPOL-EN16931-*, DE-R-*, NL-R-*).
 */
import { type ClientEInvoiceFormat, clientEInvoiceFormats, peppolSchemes } from '../../../tracking/party/party.codes.js';
import type { ClientInvoiceDocument, TaxCategory } from '../client-invoice.document.js';

/**
 * The XML formats billing writes a client invoice in (`GET .../e-invoice`). Not what a client is set to receive
 * (ClientEInvoiceFormat: these, none or facturx), nor what a received invoice is read from (the inbox's
 * ReceivedEInvoiceFormat: cii, ubl, facturx).
 */
export type WrittenEInvoiceFormat = 'cii' | 'ubl' | 'xrechnung-cii' | 'xrechnung-ubl' | 'peppol';

export const writtenEInvoiceFormats: readonly WrittenEInvoiceFormat[] = ['cii', 'ubl', 'xrechnung-cii', 'xrechnung-ubl', 'peppol'];

export { type ClientEInvoiceFormat, clientEInvoiceFormats };

/**
 * Every format a requirement can hold for: the XML formats, Factur-X (the CII inside a PDF), and `pdf`, the
 * invoice itself, whose few requirements (what § 14 UStG asks of a seller, and how to pay) every format shares.
 */
export type RequirementFormat = WrittenEInvoiceFormat | 'facturx' | 'pdf';

/** A field the document lacks for a format. */
export interface MissingField {
  /** The document's field: `seller.vatId`, `buyer.address`, `buyerReference`, `lines`. */
  readonly field: string;
  /**
   * Where it is filled before issue: `billingProfile.<field>`, `client.<field>` or `invoice.<field>` (the draft);
   * null for what issuing gives (the number and the issue date).
   */
  readonly source: string | null;
  /** What is needed and which rule asks for it. */
  readonly message: string;
}

interface Requirement extends MissingField {
  /** The formats it holds for; absent: every e-invoice format (the EN 16931 core). */
  readonly formats?: readonly RequirementFormat[];
  readonly missing: (document: ClientInvoiceDocument, facts: Facts) => boolean;
}

/** What several requirements ask of a document, worked out once per check. */
interface Facts {
  readonly categories: ReadonlySet<TaxCategory>;
  readonly sellerCountry: string;
  readonly buyerCountry: string | null;
}

const blank = (value: string | null | undefined): boolean => value === null || value === undefined || value.trim() === '';
const any = (categories: ReadonlySet<TaxCategory>, ...of: TaxCategory[]) => of.some((category) => categories.has(category));

/** BR-O-02: an invoice not subject to VAT (O) carries no VAT id, the seller's or the buyer's. */
export const withVatIds = (document: ClientInvoiceDocument): boolean => !document.totals.taxes.some((tax) => tax.category === 'O');

/**
 * BT-29, the seller identifier, when nothing else identifies the seller (BR-CO-26 asks for BT-29, BT-30 or
 * BT-31): a seller with only a tax number (many a small business) is identified by it. The tax number is
 * written as BT-32 as well, which is what BR-S-02, BR-Z-02 and BR-E-02 accept in place of a VAT id.
 */
export function sellerIdentifier(document: ClientInvoiceDocument): string | undefined {
  const { seller } = document;
  if ((withVatIds(document) && !blank(seller.vatId)) || !blank(seller.registrationId)) return undefined;
  return blank(seller.taxNumber) ? undefined : (seller.taxNumber as string);
}

/** A party's country as Peppol's rules take it: its VAT id's prefix, else its address's country. */
function countryOf(vatId: string | null | undefined, countryCode: string | undefined, useVatId: boolean): string | null {
  if (useVatId && !blank(vatId)) return (vatId as string).slice(0, 2).toUpperCase();
  return countryCode ?? null;
}

const xrechnung: readonly RequirementFormat[] = ['xrechnung-cii', 'xrechnung-ubl'];
const peppol: readonly RequirementFormat[] = ['peppol'];
/** DE-R-*: Peppol's rules for an invoice between two German parties, which are XRechnung's. */
const germanPeppol = (facts: Facts) => facts.sellerCountry === 'DE' && facts.buyerCountry === 'DE';
const germanOrXRechnung = (format: RequirementFormat, facts: Facts) => xrechnung.includes(format) || (format === 'peppol' && germanPeppol(facts));

const peppolAddress = 'a Peppol participant id: a scheme of the Peppol list (such as 0088, 0208, 9930), not EM (PEPPOL-EN16931-R010, R020, CL008)';

/** What every issued invoice names, in every format and on paper: its seller, how to pay it (Tally's rule), a tax id (§ 14 UStG). */
const documentRequirements: Requirement[] = [
  {
    field: 'seller.legalName',
    source: 'billingProfile.legalName',
    message: 'names the seller (BT-27)',
    missing: (document) => blank(document.seller.legalName),
  },
  {
    field: 'seller.address',
    source: 'billingProfile.address',
    message: 'is the seller’s postal address (BG-5)',
    missing: (document) => !document.seller.address,
  },
  {
    field: 'seller.email',
    source: 'billingProfile.email',
    message: 'is where the client writes about the invoice',
    missing: (document) => blank(document.seller.email),
  },
  {
    field: 'seller.vatId',
    source: 'billingProfile.vatId',
    message: 'or taxNumber is on every invoice (§ 14 UStG)',
    missing: (document) => blank(document.seller.vatId) && blank(document.seller.taxNumber),
  },
  { field: 'seller.iban', source: 'billingProfile.iban', message: 'says how the client pays', missing: (document) => blank(document.seller.iban) },
];

/** The requirements, in the order they are named. Formats that hold only in some cases say so in `missing`. */
function requirementsFor(format: RequirementFormat): Requirement[] {
  if (format === 'pdf') return documentRequirements;
  const all: Requirement[] = [
    ...documentRequirements,
    { field: 'number', source: null, message: 'is given at issue (BT-1)', missing: (document) => blank(document.number) },
    { field: 'issueDate', source: null, message: 'is given at issue (BT-2)', missing: (document) => blank(document.issueDate) },
    {
      field: 'buyer.address',
      source: 'client.billingAddress',
      message: 'is the buyer’s postal address (BG-8, BR-10)',
      missing: (document) => !document.buyer.address,
    },
    {
      field: 'seller.vatId',
      source: 'billingProfile.vatId',
      message: 'or taxNumber is required for VAT categories S, Z and E (BR-S-02, BR-Z-02, BR-E-02)',
      missing: (document, { categories }) => any(categories, 'S', 'Z', 'E') && blank(document.seller.vatId) && blank(document.seller.taxNumber),
    },
    {
      field: 'seller.vatId',
      source: 'billingProfile.vatId',
      message: 'is required for reverse charge, intra-community supply and export (BR-AE-02, BR-IC-02, BR-G-02)',
      missing: (document, { categories }) => any(categories, 'AE', 'K', 'G') && blank(document.seller.vatId),
    },
    {
      field: 'buyer.vatId',
      source: 'client.vatId',
      message: 'is required for reverse charge and intra-community supply (BR-AE-02, BR-IC-02)',
      missing: (document, { categories }) => any(categories, 'AE', 'K') && blank(document.buyer.vatId),
    },
    {
      // Not subject to VAT: no VAT id may identify the seller (BR-O-02), so its registration or tax number does (BR-CO-26).
      field: 'seller.registrationId',
      source: 'billingProfile.registrationId',
      message: 'or taxNumber identifies a seller not subject to VAT, who may name no VAT id (BR-CO-26, BR-O-02)',
      missing: (document, { categories }) => categories.has('O') && blank(document.seller.registrationId) && blank(document.seller.taxNumber),
    },
    {
      field: 'lines',
      source: 'invoice.lines',
      message: 'are all not subject to VAT (O), or none is: an invoice cannot mix O with other categories (BR-O-11)',
      missing: (_document, { categories }) => categories.has('O') && categories.size > 1,
    },
    ...(['E', 'AE', 'K', 'G', 'O'] as const).map(
      (category): Requirement => ({
        field: `totals.taxes.${category}.exemptionReason`,
        source: 'invoice.lines',
        message: `says why category ${category} carries no VAT (BR-${category === 'K' ? 'IC' : category}-10)`,
        missing: (document) => document.totals.taxes.some((tax) => tax.category === category && blank(tax.exemptionReason)),
      }),
    ),
    {
      formats: [...xrechnung, ...peppol],
      field: 'buyerReference',
      source: 'client.buyerReference',
      message:
        format === 'peppol' ? 'is required: a buyer reference or an order reference (PEPPOL-EN16931-R003)' : 'is the Leitweg-ID or buyer reference (BR-DE-15)',
      missing: (document) => blank(document.buyerReference),
    },
    ...(
      [
        ['contactName', 'the seller contact (BR-DE-2, BR-DE-5; DE-R-005 between German parties)'],
        ['phone', 'the seller contact’s phone (BR-DE-6; DE-R-006)'],
        ['email', 'the seller contact’s e-mail (BR-DE-7; DE-R-007)'],
        ['iban', 'the payment instructions (BR-DE-1; DE-R-001)'],
      ] as const
    ).map(
      ([name, what]): Requirement => ({
        formats: [...xrechnung, ...peppol],
        field: `seller.${name}`,
        source: `billingProfile.${name}`,
        message: `is ${what}`,
        missing: (document, facts) => germanOrXRechnung(format, facts) && blank(document.seller[name]),
      }),
    ),
    {
      formats: xrechnung,
      field: 'seller.electronicAddress',
      source: 'billingProfile.electronicAddress',
      message: 'is the seller’s electronic address (BT-34, which XRechnung 3.0 requires)',
      missing: (document) => !document.seller.electronicAddress,
    },
    {
      formats: xrechnung,
      field: 'buyer.electronicAddress',
      source: 'client.electronicAddress',
      message: 'is the buyer’s electronic address (BT-49, which XRechnung 3.0 requires)',
      missing: (document) => !document.buyer.electronicAddress,
    },
    {
      formats: peppol,
      field: 'seller.electronicAddress',
      source: 'billingProfile.electronicAddress',
      message: `is the seller’s Peppol address: ${peppolAddress}`,
      missing: (document) => !peppolSchemes.has(document.seller.electronicAddress?.scheme ?? ''),
    },
    {
      formats: peppol,
      field: 'buyer.electronicAddress',
      source: 'client.electronicAddress',
      message: `is the buyer’s Peppol address: ${peppolAddress}`,
      missing: (document) => !peppolSchemes.has(document.buyer.electronicAddress?.scheme ?? ''),
    },
    {
      formats: peppol,
      field: 'seller.registrationScheme',
      source: 'billingProfile.registrationScheme',
      message: 'of a Dutch seller’s registration is 0106 (KVK) or 0190 (OIN) (NL-R-003)',
      missing: (document, { sellerCountry }) =>
        sellerCountry === 'NL' && !blank(document.seller.registrationId) && !['0106', '0190'].includes(document.seller.registrationScheme ?? ''),
    },
  ];
  return all.filter((requirement) => requirement.formats === undefined || requirement.formats.includes(format));
}

function factsOf(document: ClientInvoiceDocument): Facts {
  const vatIds = withVatIds(document);
  return {
    categories: new Set(document.totals.taxes.map((tax) => tax.category)),
    sellerCountry: countryOf(document.seller.vatId, document.seller.address?.countryCode, vatIds) ?? '',
    buyerCountry: countryOf(document.buyer.vatId, document.buyer.address?.countryCode, vatIds),
  };
}

/** What `document` lacks for `format`, each field once, in the list's order: empty when it can be written. */
export function missingFor(document: ClientInvoiceDocument, format: RequirementFormat): MissingField[] {
  const facts = factsOf(document);
  const missing = new Map<string, MissingField>();
  for (const { field, source, message, missing: lacks } of requirementsFor(format)) {
    if (!missing.has(field) && lacks(document, facts)) missing.set(field, { field, source, message });
  }
  return [...missing.values()];
}

/** The fields `format` needs that `document` lacks, by name (`buyerReference`, `seller.contactName`, ...). */
export function missingEInvoiceFields(document: ClientInvoiceDocument, format: RequirementFormat): string[] {
  return missingFor(document, format).map((missing) => missing.field);
}

/**
 * What `document` lacks for every one of `formats`, each field once: what issuing checks (the invoice, the EN 16931
 * core and the client's format) and the writers' 409s name.
 */
export function missingForAll(document: ClientInvoiceDocument, formats: readonly RequirementFormat[]): MissingField[] {
  const missing = new Map<string, MissingField>();
  for (const format of formats) for (const field of missingFor(document, format)) if (!missing.has(field.field)) missing.set(field.field, field);
  return [...missing.values()];
}

/** The e-invoice formats `document` can be written in now: none for a draft, else those it has every field for. */
export function availableEInvoiceFormats(document: ClientInvoiceDocument): WrittenEInvoiceFormat[] {
  if (document.status === 'draft') return [];
  return writtenEInvoiceFormats.filter((format) => missingFor(document, format).length === 0);
}
