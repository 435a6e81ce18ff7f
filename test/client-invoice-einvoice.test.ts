import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import {
  awkwardMinutesInvoice,
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
import { peppolCreditNote, peppolDomesticInvoice, peppolFixtures, peppolSmallBusinessInvoice } from './helpers/peppol-documents.js';
import {
  type WrittenEInvoiceFormat,
  eInvoiceContentTypes,
  missingEInvoiceFields,
  writeEInvoice,
} from '../src/modules/billing/client-invoice/einvoice/writer.js';
import { clientInvoiceFileName } from '../src/modules/billing/client-invoice/client-invoice.file-name.js';

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
    // A tax number is what BR-E-02 (and BR-S-02, BR-Z-02) accept in place of a VAT id; without either, the seller is unnamed.
    expect(missingEInvoiceFields({ ...smallBusinessInvoice, seller: { ...smallBusinessInvoice.seller, vatId: null } }, 'cii')).toEqual([]);
    expect(missingEInvoiceFields({ ...smallBusinessInvoice, seller: { ...smallBusinessInvoice.seller, vatId: null, taxNumber: null } }, 'cii')).toEqual([
      'seller.vatId',
    ]);
    // A legal registration is no tax registration: reverse charge asks for the VAT id itself.
    const registered = { ...smallBusinessInvoice.seller, vatId: null, registrationId: 'HRB 4711, Amtsgericht Freiburg' };
    expect(missingEInvoiceFields({ ...smallBusinessInvoice, seller: registered }, 'cii')).toEqual([]);
    expect(missingEInvoiceFields({ ...reverseChargeInvoice, seller: { ...registered, smallBusiness: false } }, 'cii')).toEqual(['seller.vatId']);
    // Not subject to VAT: the registration or the tax number identifies the seller, and no other category may be beside it.
    expect(missingEInvoiceFields({ ...notSubjectInvoice, seller: sellerDe }, 'ubl')).toEqual([]);
    expect(missingEInvoiceFields({ ...notSubjectInvoice, seller: { ...sellerDe, taxNumber: null } }, 'ubl')).toEqual(['seller.registrationId']);
    const mixed = { ...notSubjectInvoice, totals: { ...notSubjectInvoice.totals, taxes: [...notSubjectInvoice.totals.taxes, ...twoRateInvoice.totals.taxes] } };
    expect(missingEInvoiceFields(mixed, 'ubl')).toEqual(['lines']);
    for (const document of Object.values(issuedFixtures)) {
      for (const format of ['cii', 'ubl', 'xrechnung-cii', 'xrechnung-ubl'] as WrittenEInvoiceFormat[])
        expect(missingEInvoiceFields(document, format)).toEqual([]);
      // Peppol needs Peppol participant ids: an e-mail address is none.
      expect(missingEInvoiceFields(document, 'peppol')).toEqual(expect.arrayContaining(['seller.electronicAddress']));
    }
    for (const document of Object.values(peppolFixtures)) expect(missingEInvoiceFields(document, 'peppol')).toEqual([]);
  });

  it('asks Peppol for a buyer reference, and between two German parties for XRechnung’s seller contact', () => {
    const withoutReference = { ...peppolDomesticInvoice, buyerReference: null, seller: { ...peppolDomesticInvoice.seller, contactName: null, phone: null } };
    // Belgian parties: the reference only (PEPPOL-EN16931-R003).
    expect(missingEInvoiceFields(withoutReference, 'peppol')).toEqual(['buyerReference']);
    const german = { ...peppolSmallBusinessInvoice, seller: { ...peppolSmallBusinessInvoice.seller, contactName: null, phone: null } };
    expect(missingEInvoiceFields(german, 'peppol')).toEqual(['seller.contactName', 'seller.phone']);
    expect(missingEInvoiceFields(german, 'ubl')).toEqual([]);
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
    expect(attribute(xml, 'BilledQuantity', 'unitCode')).toEqual(['MIN']);
    // Minutes at a rate per hour: the price is for 60 of them (BT-149, BT-150).
    expect(texts(xml, 'NetPriceProductTradePrice', 'BasisQuantity')).toEqual(['60', '60']);
    expect(attribute(xml, 'BasisQuantity', 'unitCode')).toEqual(['MIN']);
  });

  it('writes time in minutes over a base quantity of 60, and the rounding line as minus one unit, in UBL too', async () => {
    const ubl = await writeEInvoice(awkwardMinutesInvoice, 'ubl');
    expect(texts(ubl, 'InvoiceLine', 'InvoicedQuantity')).toEqual(['95.0000', '1.0000', '7.0000', '100003.0000', '-1.0000', '1.0000']);
    expect(texts(ubl, 'InvoiceLine', 'Price', 'BaseQuantity')).toEqual(['60', '60', '60', '60']);
    expect(texts(ubl, 'InvoiceLine', 'LineExtensionAmount')).toEqual(['174.17', '0.00', '3.89', '162254.87', '-0.02', '950.00']);
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

  it('writes Peppol BIS Billing 3.0: its specification and process, Peppol endpoints, the registration with its scheme, one note', async () => {
    const xml = await writeEInvoice(peppolDomesticInvoice, 'peppol');
    expect(texts(xml, 'CustomizationID')).toEqual(['urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0']);
    expect(texts(xml, 'ProfileID')).toEqual(['urn:fdc:peppol.eu:2017:poacc:billing:01:1.0']);
    expect(values(xml, "//*[local-name()='EndpointID']/@schemeID").map((line) => line.trim())).toEqual(['schemeID="0208"', 'schemeID="0208"']);
    expect(texts(xml, 'AccountingSupplierParty', 'Party', 'PartyLegalEntity', 'CompanyID')).toEqual(['0202239951']);
    expect(attribute(xml, 'CompanyID', 'schemeID')).toEqual(['0208']);
    const credit = await writeEInvoice(peppolCreditNote, 'peppol');
    expect(values(credit, 'local-name(/*)')).toEqual(['CreditNote']);
    // A small business with only a tax number: it identifies the seller (BT-29) and is its tax registration (BT-32), with its one note.
    const small = await writeEInvoice(peppolSmallBusinessInvoice, 'peppol');
    expect(texts(small, 'AccountingSupplierParty', 'Party', 'PartyIdentification', 'ID')).toEqual(['06/123/45678']);
    expect(texts(small, 'AccountingSupplierParty', 'Party', 'PartyTaxScheme', 'CompanyID')).toEqual(['06/123/45678']);
    expect(values(small, "/*/*[local-name()='Note']/text()")).toHaveLength(1);
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
    expect(clientInvoiceFileName(creditNote, 'xrechnung-cii')).toBe('credit-note-2026-0043-xrechnung-cii.xml');
    expect(eInvoiceContentTypes.ubl).toBe('application/xml; charset=utf-8');
  });
});
