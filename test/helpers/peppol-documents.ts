/**
 * The Peppol BIS Billing 3.0 cases of issue 37, as documents: a domestic Belgian invoice, its credit note, a
 * cross-border reverse charge and a German small business with only a tax number, each with both parties'
 * Peppol participant ids.
 */
import type { ClientInvoiceDocument, SellerSnapshot } from '../../src/modules/billing/client-invoice/client-invoice.document.js';
import { buyerDe, documentOf, reverseChargeInvoice, sellerDe, smallBusinessInvoice } from './client-invoice-documents.js';

/** A Belgian seller on Peppol: its enterprise number (0208) is its participant id and its legal registration. */
export const sellerBe: SellerSnapshot = {
  legalName: 'Brugge Digital BV',
  address: { line1: 'Markt 7', postcode: '8000', city: 'Brugge', countryCode: 'BE' },
  vatId: 'BE0202239951',
  registrationId: '0202239951',
  registrationScheme: '0208',
  email: 'facturen@brugge-digital.example',
  phone: '+32 50 123456',
  contactName: 'Lotte Peeters',
  electronicAddress: { scheme: '0208', id: '0202239951' },
  iban: 'BE68539007547034',
  bic: 'GKCCBEBB',
  bankName: null,
  smallBusiness: false,
};

/** A domestic Belgian invoice (S 21 %): the case the Belgian mandate of 2026 is about. */
export const peppolDomesticInvoice: ClientInvoiceDocument = documentOf({
  lines: [
    { description: 'Webshop development', quantity: '1530.0000', unit: 'MIN', unitPrice: '85.00', taxRate: '21.00' },
    { description: 'Hosting, October', quantity: '1.0000', unit: 'C62', unitPrice: '49.00', taxRate: '21.00' },
  ],
  overrides: {
    number: 'BD-2026-0311',
    buyerReference: 'PO-88412',
    seller: sellerBe,
    buyer: {
      name: 'Gent Logistics NV',
      address: { line1: 'Korenmarkt 3', postcode: '9000', city: 'Gent', countryCode: 'BE' },
      vatId: 'BE0403170701',
      email: 'ap@gent-logistics.example',
      electronicAddress: { scheme: '0208', id: '0403170701' },
    },
  },
});

/** Its credit note (type 381, naming the invoice). */
export const peppolCreditNote: ClientInvoiceDocument = {
  ...peppolDomesticInvoice,
  id: '0190a6f0-0000-7000-8000-000000000003',
  type: 'credit_note',
  number: 'BD-2026-0312',
  issueDate: '2026-11-06',
  dueDate: '2026-11-06',
  creditNoteFor: { number: 'BD-2026-0311', issueDate: '2026-11-02' },
  notes: 'This credit note cancels invoice BD-2026-0311 in full.',
};

/** Cross-border reverse charge (AE): a German seller (9930, its VAT id) to a French business (0009, its SIRET). */
export const peppolReverseChargeInvoice: ClientInvoiceDocument = {
  ...reverseChargeInvoice,
  seller: { ...sellerDe, electronicAddress: { scheme: '9930', id: 'DE123456789' } },
  buyer: { ...reverseChargeInvoice.buyer, electronicAddress: { scheme: '0009', id: '30326504500016' } },
};

/**
 * A small business (§ 19 UStG) with only a tax number, no VAT id: the tax number identifies it (BT-29) and is
 * its tax registration (BT-32); both parties German, so Peppol asks XRechnung's seller contact (DE-R-*).
 */
export const peppolSmallBusinessInvoice: ClientInvoiceDocument = {
  ...smallBusinessInvoice,
  seller: { ...smallBusinessInvoice.seller, vatId: null, electronicAddress: { scheme: '0088', id: '4000001123452' } },
  buyer: { ...buyerDe, electronicAddress: { scheme: '9930', id: 'DE987654321' } },
};

/** The four Peppol cases of issue 37, validated with `--peppol`. */
export const peppolFixtures: Record<string, ClientInvoiceDocument> = {
  'peppol-domestic': peppolDomesticInvoice,
  'peppol-reverse-charge': peppolReverseChargeInvoice,
  'peppol-credit-note': peppolCreditNote,
  'peppol-small-business': peppolSmallBusinessInvoice,
};
