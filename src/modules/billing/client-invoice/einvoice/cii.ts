/**
 * A client invoice as UN/CEFACT CII D16B (EN 16931, or XRechnung 3.0 on top of it). The object tree follows
 * the schema's element order (it is a sequence). Amounts are the document's decimal strings as given.
 */
import type { BuyerSnapshot, ClientInvoiceDocument, ElectronicAddress, PostalAddress, SellerSnapshot, TaxCategory } from '../client-invoice.document.js';
import { sellerIdentifier, withVatIds } from './requirements.js';
import {
  baseQuantityOf,
  deliverTo,
  isZero,
  notesOf,
  paymentTermsText,
  peppolBillingProcess,
  sepaCreditTransfer,
  specificationIds,
  type Tree,
  typeCode,
  withoutRate,
} from './shared.js';

/** `YYYY-MM-DD` as CII's format 102, `YYYYMMDD`. */
const ciiDate = (date: string): Tree => ({ 'udt:DateTimeString': { '@format': '102', '#': date.replaceAll('-', '') } });

function ciiAddress(address: PostalAddress): Tree {
  return {
    'ram:PostcodeCode': address.postcode,
    'ram:LineOne': address.line1,
    'ram:LineTwo': address.line2 || undefined,
    'ram:CityName': address.city,
    'ram:CountryID': address.countryCode,
  };
}

const ciiElectronicAddress = (address: ElectronicAddress | null | undefined): Tree | undefined =>
  address ? { 'ram:URIID': { '@schemeID': address.scheme, '#': address.id } } : undefined;

function ciiTaxRegistrations(vatId: string | null | undefined, taxNumber: string | null | undefined): Tree[] {
  const registrations: Tree[] = [];
  if (vatId) registrations.push({ 'ram:ID': { '@schemeID': 'VA', '#': vatId } });
  if (taxNumber) registrations.push({ 'ram:ID': { '@schemeID': 'FC', '#': taxNumber } });
  return registrations;
}

function ciiSeller(seller: SellerSnapshot, withVatIds: boolean, identifier: string | undefined): Tree {
  const contact = seller.contactName || seller.phone ? seller : undefined;
  return {
    'ram:ID': identifier,
    'ram:Name': seller.legalName,
    'ram:SpecifiedLegalOrganization': seller.registrationId
      ? { 'ram:ID': seller.registrationScheme ? { '@schemeID': seller.registrationScheme, '#': seller.registrationId } : seller.registrationId }
      : undefined,
    'ram:DefinedTradeContact': contact && {
      'ram:PersonName': seller.contactName || undefined,
      'ram:TelephoneUniversalCommunication': seller.phone ? { 'ram:CompleteNumber': seller.phone } : undefined,
      'ram:EmailURIUniversalCommunication': { 'ram:URIID': seller.email },
    },
    'ram:PostalTradeAddress': ciiAddress(seller.address),
    'ram:URIUniversalCommunication': ciiElectronicAddress(seller.electronicAddress),
    'ram:SpecifiedTaxRegistration': ciiTaxRegistrations(withVatIds ? seller.vatId : null, seller.taxNumber),
  };
}

function ciiBuyer(buyer: BuyerSnapshot, withVatIds: boolean): Tree {
  return {
    'ram:Name': buyer.name,
    'ram:PostalTradeAddress': buyer.address ? ciiAddress(buyer.address) : undefined,
    'ram:URIUniversalCommunication': ciiElectronicAddress(buyer.electronicAddress),
    'ram:SpecifiedTaxRegistration': ciiTaxRegistrations(withVatIds ? buyer.vatId : null, null),
  };
}

const ciiTaxCategory = (category: TaxCategory, rate: string): Tree => ({
  'ram:TypeCode': 'VAT',
  'ram:CategoryCode': category,
  'ram:RateApplicablePercent': withoutRate(category) ? undefined : rate,
});

/** The CII tree of `document`: EN 16931, or with `xrechnung` the XRechnung 3.0 specification identifier. */
export function ciiOf(document: ClientInvoiceDocument, xrechnung: boolean): Tree {
  const currency = document.currency;
  const notes = notesOf(document).map((note) => ({ 'ram:Content': note }));
  return {
    'rsm:CrossIndustryInvoice': {
      '@xmlns:rsm': 'urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100',
      '@xmlns:qdt': 'urn:un:unece:uncefact:data:standard:QualifiedDataType:100',
      '@xmlns:ram': 'urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:100',
      '@xmlns:udt': 'urn:un:unece:uncefact:data:standard:UnqualifiedDataType:100',
      'rsm:ExchangedDocumentContext': {
        'ram:BusinessProcessSpecifiedDocumentContextParameter': xrechnung ? { 'ram:ID': peppolBillingProcess } : undefined,
        'ram:GuidelineSpecifiedDocumentContextParameter': { 'ram:ID': xrechnung ? specificationIds.xrechnung : specificationIds.en16931 },
      },
      'rsm:ExchangedDocument': {
        'ram:ID': document.number,
        'ram:TypeCode': typeCode(document),
        'ram:IssueDateTime': ciiDate(document.issueDate as string),
        'ram:IncludedNote': notes,
      },
      'rsm:SupplyChainTradeTransaction': {
        'ram:IncludedSupplyChainTradeLineItem': document.lines.map((line) => ({
          'ram:AssociatedDocumentLineDocument': { 'ram:LineID': String(line.position) },
          'ram:SpecifiedTradeProduct': { 'ram:Name': line.description },
          'ram:SpecifiedLineTradeAgreement': {
            'ram:NetPriceProductTradePrice': {
              'ram:ChargeAmount': line.unitPrice,
              'ram:BasisQuantity': baseQuantityOf(line.baseQuantity) && { '@unitCode': line.unit, '#': line.baseQuantity },
            },
          },
          'ram:SpecifiedLineTradeDelivery': { 'ram:BilledQuantity': { '@unitCode': line.unit, '#': line.quantity } },
          'ram:SpecifiedLineTradeSettlement': {
            'ram:ApplicableTradeTax': ciiTaxCategory(line.taxCategory, line.taxRate),
            'ram:SpecifiedTradeSettlementLineMonetarySummation': { 'ram:LineTotalAmount': line.netAmount },
          },
        })),
        'ram:ApplicableHeaderTradeAgreement': {
          'ram:BuyerReference': document.buyerReference || undefined,
          'ram:SellerTradeParty': ciiSeller(document.seller, withVatIds(document), sellerIdentifier(document)),
          'ram:BuyerTradeParty': ciiBuyer(document.buyer, withVatIds(document)),
        },
        'ram:ApplicableHeaderTradeDelivery': {
          'ram:ShipToTradeParty': deliverTo(document) ? { 'ram:PostalTradeAddress': ciiAddress(deliverTo(document) as PostalAddress) } : undefined,
        },
        'ram:ApplicableHeaderTradeSettlement': {
          'ram:PaymentReference': document.number,
          'ram:InvoiceCurrencyCode': currency,
          'ram:SpecifiedTradeSettlementPaymentMeans': document.seller.iban
            ? {
                'ram:TypeCode': sepaCreditTransfer,
                'ram:PayeePartyCreditorFinancialAccount': {
                  'ram:IBANID': document.seller.iban,
                  'ram:AccountName': document.seller.legalName,
                },
                'ram:PayeeSpecifiedCreditorFinancialInstitution': document.seller.bic ? { 'ram:BICID': document.seller.bic } : undefined,
              }
            : undefined,
          'ram:ApplicableTradeTax': document.totals.taxes.map((tax) => ({
            'ram:CalculatedAmount': tax.amount,
            'ram:TypeCode': 'VAT',
            'ram:ExemptionReason': tax.exemptionReason || undefined,
            'ram:BasisAmount': tax.basis,
            'ram:CategoryCode': tax.category,
            'ram:RateApplicablePercent': tax.rate,
          })),
          'ram:BillingSpecifiedPeriod': {
            'ram:StartDateTime': ciiDate(document.periodFrom),
            'ram:EndDateTime': ciiDate(document.periodTo),
          },
          'ram:SpecifiedTradeAllowanceCharge': document.allowances.map((allowance) => ({
            'ram:ChargeIndicator': { 'udt:Indicator': 'false' },
            'ram:ActualAmount': allowance.amount,
            'ram:Reason': allowance.reason,
            'ram:CategoryTradeTax': ciiTaxCategory(allowance.taxCategory, allowance.taxRate),
          })),
          'ram:SpecifiedTradePaymentTerms': {
            'ram:Description': paymentTermsText(document),
            'ram:DueDateDateTime': document.dueDate ? ciiDate(document.dueDate) : undefined,
          },
          'ram:SpecifiedTradeSettlementHeaderMonetarySummation': {
            'ram:LineTotalAmount': document.totals.lineNet,
            'ram:AllowanceTotalAmount': document.allowances.length > 0 ? document.totals.allowances : undefined,
            'ram:TaxBasisTotalAmount': document.totals.taxBasis,
            'ram:TaxTotalAmount': { '@currencyID': currency, '#': document.totals.tax },
            'ram:GrandTotalAmount': document.totals.gross,
            'ram:TotalPrepaidAmount': isZero(document.totals.paid) ? undefined : document.totals.paid,
            'ram:DuePayableAmount': document.totals.due,
          },
          'ram:InvoiceReferencedDocument': document.creditNoteFor
            ? {
                'ram:IssuerAssignedID': document.creditNoteFor.number,
                'ram:FormattedIssueDateTime': {
                  'qdt:DateTimeString': { '@format': '102', '#': document.creditNoteFor.issueDate.replaceAll('-', '') },
                },
              }
            : undefined,
        },
      },
    },
  };
}
