/**
 * What the CII, UBL and Peppol writers share: the object tree xmlbuilder2 writes, the identifiers of the
 * specifications, and the parts of an invoice every syntax says the same way.
 */
import { documentLocale } from '../../../../lib/i18n.js';
import type { ClientInvoiceDocument, PostalAddress, TaxCategory } from '../client-invoice.document.js';

/** An xmlbuilder2 object tree: undefined and null members are left out. */
export type Tree = { [name: string]: Node };
type Node = string | Tree | readonly Tree[] | null | undefined;

/** BT-24: the EN 16931 core, the German CIUS XRechnung 3.0, or Peppol BIS Billing 3.0. */
export const specificationIds = {
  en16931: 'urn:cen.eu:en16931:2017',
  xrechnung: 'urn:cen.eu:en16931:2017#compliant#urn:xeinkauf.de:kosit:xrechnung_3.0',
  peppol: 'urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0',
};
/** BT-23: the Peppol billing process, which Peppol requires and XRechnung's examples declare. */
export const peppolBillingProcess = 'urn:fdc:peppol.eu:2017:poacc:billing:01:1.0';
/** UNTDID 1001: commercial invoice, credit note. */
export const typeCode = (document: ClientInvoiceDocument) => (document.type === 'credit_note' ? '381' : '380');
/** UNTDID 4461: SEPA credit transfer. */
export const sepaCreditTransfer = '58';

/**
 * BR-IC-12: an intra-community supply (K) names where it was delivered (BG-15): the buyer's address, in full,
 * as XRechnung asks (BR-DE-10, BR-DE-11).
 */
export const deliverTo = (document: ClientInvoiceDocument): PostalAddress | undefined =>
  document.totals.taxes.some((tax) => tax.category === 'K') ? (document.buyer.address ?? undefined) : undefined;

/**
 * Lines and allowances not subject to VAT carry no rate (BR-O-05, BR-O-06); the breakdown's row keeps its
 * 0, which XRechnung requires (BR-DE-14).
 */
export const withoutRate = (category: TaxCategory) => category === 'O';

export const isZero = (amount: string) => /^-?0*(\.0*)?$/.test(amount);

/** A base quantity worth writing (BT-149): one is what a reader assumes without it. */
export const baseQuantityOf = (baseQuantity: string): string | undefined => (/^0*1(\.0*)?$/.test(baseQuantity) ? undefined : baseQuantity);

/** The notes (BT-22): the invoice's own, and a small business's that it charges no VAT. */
export function notesOf(document: ClientInvoiceDocument): string[] {
  const notes: string[] = [];
  if (document.notes) notes.push(document.notes);
  if (document.seller.smallBusiness) notes.push(documentLocale(document.buyer.language).t('einvoice.smallBusiness'));
  return notes;
}

/** BT-20, in words: when and how to pay (or, for a credit note, that the amount is refunded). */
export function paymentTermsText(document: ClientInvoiceDocument): string {
  const { t } = documentLocale(document.buyer.language);
  if (document.type === 'credit_note') return t('einvoice.refund');
  const days = document.paymentTermsDays;
  return days === 0 ? t('einvoice.immediately') : t('einvoice.within', { days });
}
