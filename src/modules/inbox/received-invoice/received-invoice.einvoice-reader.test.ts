/**
 * The e-invoice reader's rules on documents written here: what each syntax
 * takes from where, exact figures, credit notes, tax in two currencies,
 * encodings, and every way a file is refused (with words naming why).
 */
import { describe, expect, it } from 'vitest';
import { readEInvoice } from './received-invoice.einvoice-reader.js';
import { maxXmlDepth, maxXmlElements, UnreadableXml } from './received-invoice.xml.js';

const cii = ({
  typeCode = '380',
  issue = '20261102',
  currency = 'EUR',
  taxTotals = '<ram:TaxTotalAmount currencyID="EUR">19.00</ram:TaxTotalAmount>',
  lineNet = '100.00',
  quantity = '2.5000',
} = {}) => `<?xml version="1.0" encoding="UTF-8"?>
<rsm:CrossIndustryInvoice xmlns:rsm="urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100"
  xmlns:ram="urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:100"
  xmlns:udt="urn:un:unece:uncefact:data:standard:UnqualifiedDataType:100">
  <rsm:ExchangedDocument><ram:ID>R-1</ram:ID><ram:TypeCode>${typeCode}</ram:TypeCode>
    <ram:IssueDateTime><udt:DateTimeString format="102">${issue}</udt:DateTimeString></ram:IssueDateTime></rsm:ExchangedDocument>
  <rsm:SupplyChainTradeTransaction>
    <ram:IncludedSupplyChainTradeLineItem>
      <ram:AssociatedDocumentLineDocument><ram:LineID>A</ram:LineID></ram:AssociatedDocumentLineDocument>
      <ram:SpecifiedTradeProduct><ram:Name><![CDATA[Consulting & design]]></ram:Name></ram:SpecifiedTradeProduct>
      <ram:SpecifiedLineTradeAgreement><ram:NetPriceProductTradePrice><ram:ChargeAmount>40.0000</ram:ChargeAmount></ram:NetPriceProductTradePrice></ram:SpecifiedLineTradeAgreement>
      <ram:SpecifiedLineTradeDelivery><ram:BilledQuantity unitCode="HUR">${quantity}</ram:BilledQuantity></ram:SpecifiedLineTradeDelivery>
      <ram:SpecifiedLineTradeSettlement>
        <ram:ApplicableTradeTax><ram:CategoryCode>S</ram:CategoryCode><ram:RateApplicablePercent>19.00</ram:RateApplicablePercent></ram:ApplicableTradeTax>
        <ram:SpecifiedTradeSettlementLineMonetarySummation><ram:LineTotalAmount>${lineNet}</ram:LineTotalAmount></ram:SpecifiedTradeSettlementLineMonetarySummation>
      </ram:SpecifiedLineTradeSettlement>
    </ram:IncludedSupplyChainTradeLineItem>
    <ram:ApplicableHeaderTradeAgreement><ram:SellerTradeParty><ram:Name>Müller &amp; Söhne GmbH</ram:Name>
      <ram:SpecifiedTaxRegistration><ram:ID schemeID="FC">123/456</ram:ID></ram:SpecifiedTaxRegistration>
      <ram:SpecifiedTaxRegistration><ram:ID schemeID="VA">DE123456789</ram:ID></ram:SpecifiedTaxRegistration>
    </ram:SellerTradeParty></ram:ApplicableHeaderTradeAgreement>
    <ram:ApplicableHeaderTradeSettlement><ram:InvoiceCurrencyCode>${currency}</ram:InvoiceCurrencyCode>
      <ram:SpecifiedTradeSettlementHeaderMonetarySummation>
        <ram:TaxBasisTotalAmount>100.00</ram:TaxBasisTotalAmount>${taxTotals}<ram:GrandTotalAmount>119.00</ram:GrandTotalAmount>
      </ram:SpecifiedTradeSettlementHeaderMonetarySummation>
    </ram:ApplicableHeaderTradeSettlement>
  </rsm:SupplyChainTradeTransaction>
</rsm:CrossIndustryInvoice>`;

const refusal = (xml: string | Buffer): string => {
  try {
    readEInvoice(typeof xml === 'string' ? Buffer.from(xml) : xml);
  } catch (error) {
    expect(error).toBeInstanceOf(UnreadableXml);
    return (error as Error).message;
  }
  throw new Error('it was read');
};

describe('reading a CII invoice', () => {
  it('takes the figures as written, the VAT id by its scheme, entities and CDATA as text', () => {
    const read = readEInvoice(Buffer.from(cii()));
    expect(read).toMatchObject({
      syntax: 'cii',
      type: 'invoice',
      number: 'R-1',
      vendorName: 'Müller & Söhne GmbH',
      vendorVatId: 'DE123456789',
      issueDate: '2026-11-02',
      dueDate: null,
      currency: 'EUR',
      netAmount: '100.00',
      taxAmount: '19.00',
      totalAmount: '119.00',
    });
    expect(read.lines).toEqual([
      {
        position: 1,
        lineId: 'A',
        name: 'Consulting & design',
        description: null,
        quantity: '2.5000',
        unitCode: 'HUR',
        unitPrice: '40.0000',
        priceBaseQuantity: null,
        netAmount: '100.00',
        taxCategory: 'S',
        taxRate: '19.00',
      },
    ]);
  });

  it('takes the tax total in the invoice currency when there is one in the accounting currency too', () => {
    const taxTotals = '<ram:TaxTotalAmount currencyID="SEK">210.50</ram:TaxTotalAmount><ram:TaxTotalAmount currencyID="EUR">19.00</ram:TaxTotalAmount>';
    expect(readEInvoice(Buffer.from(cii({ taxTotals }))).taxAmount).toBe('19.00');
  });

  it('knows a credit note by its type code', () => {
    expect(readEInvoice(Buffer.from(cii({ typeCode: '381' }))).type).toBe('credit_note');
    expect(readEInvoice(Buffer.from(cii({ typeCode: '384' }))).type).toBe('invoice');
  });

  it('reads UTF-16 and a declared ISO-8859-1 as well as UTF-8', () => {
    expect(readEInvoice(Buffer.from(`\ufeff${cii()}`, 'utf16le')).vendorName).toBe('Müller & Söhne GmbH');
    const latin1 = Buffer.from(cii().replace('encoding="UTF-8"', 'encoding="ISO-8859-1"'), 'latin1');
    expect(readEInvoice(latin1).vendorName).toBe('Müller & Söhne GmbH');
  });
});

describe('refusing', () => {
  it('figures with more decimals than their column, rather than rounding them', () => {
    expect(refusal(cii({ lineNet: '100.005' }))).toMatch(/line 1: BT-131 \(LineTotalAmount\) "100.005" is not an amount with at most 2 decimals/);
    expect(refusal(cii({ quantity: '1e3' }))).toMatch(/BT-129 \(BilledQuantity\) "1e3" is not a number/);
  });

  it('a date that does not exist, and a currency that is no code', () => {
    expect(refusal(cii({ issue: '20260230' }))).toMatch(/BT-2 \(IssueDateTime\) "20260230" is not a date/);
    expect(refusal(cii({ currency: '€' }))).toMatch(/BT-5 \(InvoiceCurrencyCode\) "€" is not an ISO 4217 code/);
  });

  it('a document nested too deep, or with too many elements, while it is parsed', () => {
    const deep = `${'<a>'.repeat(maxXmlDepth + 1)}${'</a>'.repeat(maxXmlDepth + 1)}`;
    expect(refusal(deep)).toMatch(new RegExp(`deeper than ${maxXmlDepth} levels`));
    expect(refusal(`<a>${'<b/>'.repeat(maxXmlElements)}</a>`)).toMatch(new RegExp(`more than ${maxXmlElements} elements`));
  });

  it('a DOCTYPE in any case, an undeclared entity, bytes that are not their encoding', () => {
    expect(refusal(`<!doctype a>${cii()}`)).toMatch(/declares a DOCTYPE/);
    expect(refusal(cii().replace('R-1', '&nbsp;'))).toMatch(/not well-formed XML at line 5, column \d+: undefined entity/);
    expect(refusal(Buffer.concat([Buffer.from('<a>'), Buffer.from([0xc3, 0x28]), Buffer.from('</a>')]))).toMatch(/is not valid utf-8/);
  });
});
