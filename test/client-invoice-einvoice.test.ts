import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import {
  creditNote,
  draftInvoice,
  intraCommunityInvoice,
  issuedFixtures,
  notSubjectInvoice,
  reverseChargeInvoice,
  sellerDe,
  smallBusinessInvoice,
  twoRateInvoice,
  xrechnungInvoice,
} from './helpers/client-invoice-documents.js';
import {
  type EInvoiceFormat,
  eInvoiceContentTypes,
  eInvoiceFileName,
  missingEInvoiceFields,
  writeEInvoice,
} from '../src/modules/client-invoice/client-invoice.einvoice.js';

/** Every value `expression` selects in `xml`, read by libxml2's xmllint (not by the writer's library). */
function values(xml: string, expression: string): string[] {
  try {
    const out = execFileSync('xmllint', ['--xpath', expression, '-'], { input: xml, encoding: 'utf8', stdio: ['pipe', 'pipe', 'ignore'] });
    return out.split('\n').filter((line) => line !== '');
  } catch {
    return [];
  }
}
/** The text of elements by local name, wherever they are. */
const texts = (xml: string, ...path: string[]) => values(xml, `//${path.map((name) => `*[local-name()='${name}']`).join('/')}/text()`);
const attribute = (xml: string, element: string, name: string) => values(xml, `string(//*[local-name()='${element}']/@${name})`);

describe('missing e-invoice fields', () => {
  it('names what XRechnung needs beyond EN 16931: the buyer reference, the seller contact and both electronic addresses', async () => {
    const bare = {
      ...twoRateInvoice,
      buyerReference: null,
      seller: { ...twoRateInvoice.seller, contactName: null, phone: null, electronicAddress: null },
      buyer: { ...twoRateInvoice.buyer, electronicAddress: null },
    };
    for (const format of ['xrechnung-cii', 'xrechnung-ubl'] as const) {
      expect(missingEInvoiceFields(bare, format)).toEqual([
        'buyerReference',
        'seller.contactName',
        'seller.phone',
        'seller.electronicAddress',
        'buyer.electronicAddress',
      ]);
    }
    expect(missingEInvoiceFields(bare, 'cii')).toEqual([]);
    expect(missingEInvoiceFields(bare, 'ubl')).toEqual([]);
    await expect(writeEInvoice(bare, 'xrechnung-ubl')).rejects.toThrow(/buyerReference/);
  });

  it('names the number of a draft, the buyer VAT id of reverse charge and the seller VAT id', async () => {
    expect(missingEInvoiceFields(draftInvoice, 'cii')).toEqual(['number', 'issueDate']);
    expect(missingEInvoiceFields({ ...reverseChargeInvoice, buyer: { ...reverseChargeInvoice.buyer, vatId: null } }, 'ubl')).toEqual(['buyer.vatId']);
    expect(missingEInvoiceFields({ ...smallBusinessInvoice, seller: { ...smallBusinessInvoice.seller, vatId: null } }, 'cii')).toEqual(['seller.vatId']);
    // A legal registration identifies a seller without a VAT id, except under reverse charge.
    const registered = { ...smallBusinessInvoice.seller, vatId: null, registrationId: 'HRB 4711, Amtsgericht Freiburg' };
    expect(missingEInvoiceFields({ ...smallBusinessInvoice, seller: registered }, 'cii')).toEqual([]);
    expect(missingEInvoiceFields({ ...reverseChargeInvoice, seller: { ...registered, smallBusiness: false } }, 'cii')).toEqual(['seller.vatId']);
    // Not subject to VAT: the registration is required, and no other category may be beside it.
    expect(missingEInvoiceFields({ ...notSubjectInvoice, seller: sellerDe }, 'ubl')).toEqual(['seller.registrationId']);
    const mixed = { ...notSubjectInvoice, totals: { ...notSubjectInvoice.totals, taxes: [...notSubjectInvoice.totals.taxes, ...twoRateInvoice.totals.taxes] } };
    expect(missingEInvoiceFields(mixed, 'ubl')).toEqual(['totals.taxes']);
    for (const document of Object.values(issuedFixtures)) {
      for (const format of ['cii', 'ubl', 'xrechnung-cii', 'xrechnung-ubl'] as EInvoiceFormat[]) expect(missingEInvoiceFields(document, format)).toEqual([]);
    }
  });
});

describe('EN 16931 XML', () => {
  it('writes an invoice in CII with its taxes, discount per rate, SEPA payment, due date and service period', async () => {
    const xml = await writeEInvoice(twoRateInvoice, 'cii');
    expect(texts(xml, 'ExchangedDocument', 'TypeCode')).toEqual(['380']);
    expect(texts(xml, 'GuidelineSpecifiedDocumentContextParameter', 'ID')).toEqual(['urn:cen.eu:en16931:2017']);
    expect(texts(xml, 'ApplicableHeaderTradeSettlement', 'ApplicableTradeTax', 'RateApplicablePercent')).toEqual(['19.00', '7.00']);
    expect(texts(xml, 'ApplicableHeaderTradeSettlement', 'ApplicableTradeTax', 'BasisAmount')).toEqual(twoRateInvoice.totals.taxes.map((tax) => tax.basis));
    expect(texts(xml, 'SpecifiedTradeAllowanceCharge', 'ActualAmount')).toEqual(twoRateInvoice.allowances.map((allowance) => allowance.amount));
    expect(texts(xml, 'SpecifiedTradeAllowanceCharge', 'CategoryTradeTax', 'RateApplicablePercent')).toEqual(['19.00', '7.00']);
    expect(texts(xml, 'SpecifiedTradeSettlementPaymentMeans', 'TypeCode')).toEqual(['58']);
    expect(texts(xml, 'PayeePartyCreditorFinancialAccount', 'IBANID')).toEqual(['DE89370400440532013000']);
    expect(texts(xml, 'DueDateDateTime', 'DateTimeString')).toEqual(['20261116']);
    expect(texts(xml, 'BillingSpecifiedPeriod', 'StartDateTime', 'DateTimeString')).toEqual(['20261001']);
    expect(texts(xml, 'BillingSpecifiedPeriod', 'EndDateTime', 'DateTimeString')).toEqual(['20261031']);
    expect(texts(xml, 'BuyerReference')).toEqual(['PO-2026-118']);
    expect(texts(xml, 'SpecifiedTradeSettlementHeaderMonetarySummation', 'GrandTotalAmount')).toEqual([twoRateInvoice.totals.gross]);
    expect(texts(xml, 'IncludedSupplyChainTradeLineItem', 'SpecifiedTradeProduct', 'Name')).toHaveLength(3);
    expect(attribute(xml, 'BilledQuantity', 'unitCode')).toEqual(['HUR']);
  });

  it('writes a credit note as type 381 that names the invoice it corrects, in CII and as a UBL CreditNote', async () => {
    const cii = await writeEInvoice(creditNote, 'cii');
    expect(texts(cii, 'ExchangedDocument', 'TypeCode')).toEqual(['381']);
    expect(texts(cii, 'InvoiceReferencedDocument', 'IssuerAssignedID')).toEqual(['2026-0042']);
    const ubl = await writeEInvoice(creditNote, 'ubl');
    expect(values(ubl, 'local-name(/*)')).toEqual(['CreditNote']);
    expect(texts(ubl, 'CreditNoteTypeCode')).toEqual(['381']);
    expect(texts(ubl, 'BillingReference', 'InvoiceDocumentReference', 'ID')).toEqual(['2026-0042']);
    expect(texts(ubl, 'CreditNoteLine', 'CreditedQuantity')).toHaveLength(3);
    expect(texts(ubl, 'PaymentMeans', 'PaymentDueDate')).toEqual(['2026-11-05']);
  });

  it('writes exemption reasons and both VAT ids for reverse charge, and electronic addresses as endpoints', async () => {
    const ubl = await writeEInvoice(reverseChargeInvoice, 'ubl');
    expect(texts(ubl, 'TaxSubtotal', 'TaxCategory', 'ID')).toEqual(['AE']);
    expect(texts(ubl, 'TaxSubtotal', 'TaxCategory', 'TaxExemptionReason')).toEqual([reverseChargeInvoice.totals.taxes[0]?.exemptionReason]);
    expect(texts(ubl, 'AccountingCustomerParty', 'Party', 'PartyTaxScheme', 'CompanyID')).toEqual(['FR40303265045']);
    expect(texts(ubl, 'AccountingSupplierParty', 'Party', 'EndpointID')).toEqual(['invoices@nordlicht.example']);
    expect(texts(ubl, 'AccountingCustomerParty', 'Party', 'EndpointID')).toEqual(['factures@atelier-lumiere.example']);
    const cii = await writeEInvoice(smallBusinessInvoice, 'cii');
    expect(texts(cii, 'ApplicableHeaderTradeSettlement', 'ApplicableTradeTax', 'ExemptionReason')).toEqual([
      smallBusinessInvoice.totals.taxes[0]?.exemptionReason,
    ]);
    expect(texts(cii, 'TotalPrepaidAmount')).toEqual(['100.00']);
  });

  it('names where an intra-community supply went, and leaves every VAT id out of an invoice not subject to VAT', async () => {
    for (const format of ['cii', 'xrechnung-ubl'] as const) {
      const xml = await writeEInvoice(intraCommunityInvoice, format);
      const delivery = format === 'cii' ? ['ShipToTradeParty', 'PostalTradeAddress'] : ['Delivery', 'DeliveryLocation', 'Address'];
      expect(texts(xml, ...delivery, format === 'cii' ? 'CountryID' : 'PostalZone')).toEqual([format === 'cii' ? 'AT' : '6020']);
    }
    const cii = await writeEInvoice(notSubjectInvoice, 'cii');
    expect(values(cii, "//*[local-name()='SpecifiedTaxRegistration']/*[@schemeID='VA']/text()")).toEqual([]);
    expect(texts(cii, 'SpecifiedLegalOrganization', 'ID')).toEqual(['HRB 123456, Amtsgericht Hamburg']);
    expect(texts(cii, 'SpecifiedLineTradeSettlement', 'ApplicableTradeTax', 'RateApplicablePercent')).toEqual([]);
    expect(texts(cii, 'ApplicableHeaderTradeSettlement', 'ApplicableTradeTax', 'RateApplicablePercent')).toEqual(['0.00']);
    const ubl = await writeEInvoice(notSubjectInvoice, 'ubl');
    expect(values(ubl, "//*[local-name()='PartyTaxScheme'][*[local-name()='TaxScheme']/*[local-name()='ID']='VAT']")).toEqual([]);
    expect(texts(ubl, 'PartyLegalEntity', 'CompanyID')).toEqual(['HRB 123456, Amtsgericht Hamburg']);
  });

  it('writes XRechnung 3.0 with its specification identifier, the Leitweg-ID and the seller contact', async () => {
    for (const format of ['xrechnung-cii', 'xrechnung-ubl'] as const) {
      const xml = await writeEInvoice(xrechnungInvoice, format);
      const specification = format === 'xrechnung-cii' ? texts(xml, 'GuidelineSpecifiedDocumentContextParameter', 'ID') : texts(xml, 'CustomizationID');
      expect(specification).toEqual(['urn:cen.eu:en16931:2017#compliant#urn:xeinkauf.de:kosit:xrechnung_3.0']);
      expect(texts(xml, 'BuyerReference')).toEqual(['04011000-12345-34']);
      expect(xml).toContain('Jana Berger');
      expect(xml).toContain('+49 40 1234567');
    }
    expect(attribute(await writeEInvoice(xrechnungInvoice, 'xrechnung-ubl'), 'EndpointID', 'schemeID')).toEqual(['EM']);
  });

  it('escapes what it is given and names the files it writes', async () => {
    const tricky = {
      ...twoRateInvoice,
      notes: 'Fish & chips <b>"ok"</b>',
      lines: twoRateInvoice.lines.map((line) => ({ ...line, description: 'R&D <phase 2>' })),
    };
    const xml = await writeEInvoice(tricky, 'ubl');
    expect(texts(xml, 'Note')[0]).toBe('Fish &amp; chips &lt;b&gt;"ok"&lt;/b&gt;');
    expect(values(xml, "string(//*[local-name()='InvoiceLine'][1]/*[local-name()='Item']/*[local-name()='Name'])")).toEqual(['R&D <phase 2>']);
    expect(eInvoiceFileName(creditNote, 'xrechnung-cii')).toBe('credit-note-2026-0043-xrechnung-cii.xml');
    expect(eInvoiceContentTypes.ubl).toBe('application/xml; charset=utf-8');
  });
});
