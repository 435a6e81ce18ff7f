/**
 * A client invoice as an EN 16931 electronic invoice: UN/CEFACT CII D16B or OASIS UBL 2.1 (Invoice, or
 * CreditNote for a credit note), each plain or with the XRechnung 3.0 specification identifier. The
 * XML is written by xmlbuilder2 from an object tree that follows the syntax's element order (the CII
 * schema is a sequence; why not @e-invoice-eu/core: docs/decisions.md). Amounts are the document's
 * decimal strings as given: the breakdown and totals were computed once, by billing, and the writer
 * only places them, so what the PDF prints and what the XML says are the same numbers.
 */
import type { BuyerSnapshot, ClientInvoiceDocument, ElectronicAddress, PostalAddress, SellerSnapshot, TaxCategory } from './client-invoice.document.js';

export type EInvoiceFormat = 'cii' | 'ubl' | 'xrechnung-cii' | 'xrechnung-ubl';

export const eInvoiceFormats: readonly EInvoiceFormat[] = ['cii', 'ubl', 'xrechnung-cii', 'xrechnung-ubl'];

/** The media type each format is served as (all are XML documents in UTF-8). */
export const eInvoiceContentTypes: Record<EInvoiceFormat, string> = {
  cii: 'application/xml; charset=utf-8',
  ubl: 'application/xml; charset=utf-8',
  'xrechnung-cii': 'application/xml; charset=utf-8',
  'xrechnung-ubl': 'application/xml; charset=utf-8',
};

/** A file name for the download, e.g. `invoice-2026-0042-xrechnung-ubl.xml`. */
export function eInvoiceFileName(document: ClientInvoiceDocument, format: EInvoiceFormat): string {
  const kind = document.type === 'credit_note' ? 'credit-note' : 'invoice';
  return `${kind}-${(document.number ?? 'draft').replace(/[^\w.-]+/g, '_')}-${format}.xml`;
}

/** BT-24: the EN 16931 core, or the German CIUS XRechnung 3.0 on top of it. */
const specificationIds = {
  en16931: 'urn:cen.eu:en16931:2017',
  xrechnung: 'urn:cen.eu:en16931:2017#compliant#urn:xeinkauf.de:kosit:xrechnung_3.0',
};
/** BT-23: the Peppol billing process, which XRechnung's examples declare. */
const peppolBillingProcess = 'urn:fdc:peppol.eu:2017:poacc:billing:01:1.0';
/** UNTDID 1001: commercial invoice, credit note. */
const typeCode = (document: ClientInvoiceDocument) => (document.type === 'credit_note' ? '381' : '380');
/** UNTDID 4461: SEPA credit transfer. */
const sepaCreditTransfer = '58';

const isXRechnung = (format: EInvoiceFormat) => format === 'xrechnung-cii' || format === 'xrechnung-ubl';

/** BR-O-02: an invoice not subject to VAT (O) carries no VAT id, the seller's or the buyer's. */
const withVatIds = (document: ClientInvoiceDocument) => !document.totals.taxes.some((tax) => tax.category === 'O');

/**
 * BR-IC-12: an intra-community supply (K) names where it was delivered (BG-15): the buyer's address, in full,
 * as XRechnung asks (BR-DE-10, BR-DE-11).
 */
const deliverTo = (document: ClientInvoiceDocument): PostalAddress | undefined =>
  document.totals.taxes.some((tax) => tax.category === 'K') ? (document.buyer.address ?? undefined) : undefined;

/**
 * Lines and allowances not subject to VAT carry no rate (BR-O-05, BR-O-06); the breakdown's row keeps its
 * 0, which XRechnung requires (BR-DE-14).
 */
const withoutRate = (category: TaxCategory) => category === 'O';

/** The e-invoice formats `document` can be written in now: none for a draft, else those it has every field for. */
export function availableEInvoiceFormats(document: ClientInvoiceDocument): EInvoiceFormat[] {
  if (document.status === 'draft') return [];
  return eInvoiceFormats.filter((format) => missingEInvoiceFields(document, format).length === 0);
}

/**
 * The fields `format` needs that `document` lacks, by name (`buyerReference`, `seller.contactName`, ...):
 * empty when the XML can be written. EN 16931 needs the buyer's address, a number and an issue date, a
 * seller VAT id or legal registration (the registration alone when not subject to VAT), the buyer's VAT id
 * under reverse charge and intra-community supply, and exemption reasons; XRechnung adds the buyer reference (Leitweg-ID), the seller's
 * contact (BT-41..43), both electronic addresses (BT-34, BT-49) and payment instructions (an IBAN).
 */
export function missingEInvoiceFields(document: ClientInvoiceDocument, format: EInvoiceFormat): string[] {
  const missing: string[] = [];
  const blank = (value: string | null | undefined) => value === null || value === undefined || value.trim() === '';
  if (blank(document.number)) missing.push('number');
  if (blank(document.issueDate)) missing.push('issueDate');
  if (!document.buyer.address) missing.push('buyer.address');
  const categories = new Set(document.totals.taxes.map((tax) => tax.category));
  if (categories.has('O')) {
    // BR-O-02: no VAT id at all, so the legal registration is what identifies the seller (BR-CO-26);
    // BR-O-11: nothing else may be in the breakdown.
    if (blank(document.seller.registrationId)) missing.push('seller.registrationId');
    if (categories.size > 1) missing.push('totals.taxes');
  } else if (blank(document.seller.vatId) && blank(document.seller.registrationId)) {
    // BR-CO-26: a VAT id or a legal registration identifies the seller; a tax number does not.
    missing.push('seller.vatId');
  }
  // BR-AE-02, BR-IC-02: reverse charge and intra-community supply name the buyer's VAT id too, and the
  // seller's (BR-AE-02 and BR-IC-02 accept no registration in its place).
  if ((categories.has('AE') || categories.has('K')) && blank(document.seller.vatId) && !missing.includes('seller.vatId')) missing.push('seller.vatId');
  if ((categories.has('AE') || categories.has('K')) && blank(document.buyer.vatId)) missing.push('buyer.vatId');
  for (const tax of document.totals.taxes) {
    if (tax.category !== 'S' && tax.category !== 'Z' && blank(tax.exemptionReason)) missing.push(`totals.taxes.${tax.category}.exemptionReason`);
  }
  if (isXRechnung(format)) {
    if (blank(document.buyerReference)) missing.push('buyerReference');
    if (blank(document.seller.contactName)) missing.push('seller.contactName');
    if (blank(document.seller.phone)) missing.push('seller.phone');
    if (blank(document.seller.email)) missing.push('seller.email');
    if (!document.seller.electronicAddress) missing.push('seller.electronicAddress');
    if (!document.buyer.electronicAddress) missing.push('buyer.electronicAddress');
    if (blank(document.seller.iban)) missing.push('seller.iban');
  }
  return missing;
}

/**
 * The XML of `document` in `format`. Throws when `missingEInvoiceFields` names something: the caller
 * answers that as a conflict before it gets here.
 */
export async function writeEInvoice(document: ClientInvoiceDocument, format: EInvoiceFormat): Promise<string> {
  const missing = missingEInvoiceFields(document, format);
  if (missing.length > 0) throw new Error(`The ${format} e-invoice lacks: ${missing.join(', ')}`);
  const tree = format === 'cii' || format === 'xrechnung-cii' ? ciiOf(document, isXRechnung(format)) : ublOf(document, isXRechnung(format));
  // Loaded on the first e-invoice: a process that writes none does not hold it (figures: docs/performance.md).
  const { create } = await import('xmlbuilder2');
  return create({ version: '1.0', encoding: 'UTF-8' }, tree).end({ prettyPrint: true });
}

/** An xmlbuilder2 object tree: undefined and null members are left out. */
type Tree = { [name: string]: Node };
type Node = string | Tree | readonly Tree[] | null | undefined;

// ---------------------------------------------------------------- CII (UN/CEFACT D16B)

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

function ciiSeller(seller: SellerSnapshot, withVatIds: boolean): Tree {
  const contact = seller.contactName || seller.phone ? seller : undefined;
  return {
    'ram:Name': seller.legalName,
    'ram:SpecifiedLegalOrganization': seller.registrationId ? { 'ram:ID': seller.registrationId } : undefined,
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

function ciiOf(document: ClientInvoiceDocument, xrechnung: boolean): Tree {
  const currency = document.currency;
  const notes = document.notes ? [{ 'ram:Content': document.notes }] : [];
  if (document.seller.smallBusiness) notes.push({ 'ram:Content': 'Small business: no VAT is charged.' });
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
          'ram:SpecifiedLineTradeAgreement': { 'ram:NetPriceProductTradePrice': { 'ram:ChargeAmount': line.unitPrice } },
          'ram:SpecifiedLineTradeDelivery': { 'ram:BilledQuantity': { '@unitCode': line.unit, '#': line.quantity } },
          'ram:SpecifiedLineTradeSettlement': {
            'ram:ApplicableTradeTax': ciiTaxCategory(line.taxCategory, line.taxRate),
            'ram:SpecifiedTradeSettlementLineMonetarySummation': { 'ram:LineTotalAmount': line.netAmount },
          },
        })),
        'ram:ApplicableHeaderTradeAgreement': {
          'ram:BuyerReference': document.buyerReference || undefined,
          'ram:SellerTradeParty': ciiSeller(document.seller, withVatIds(document)),
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

const isZero = (amount: string) => /^-?0*(\.0*)?$/.test(amount);

/** BT-20, in words: when and how to pay (or, for a credit note, that the amount is refunded). */
function paymentTermsText(document: ClientInvoiceDocument): string {
  if (document.type === 'credit_note') return 'The amount of this credit note will be refunded to your account.';
  const days = document.paymentTermsDays;
  return days === 0 ? 'Payable immediately without deduction.' : `Payable within ${days} days without deduction.`;
}

// ---------------------------------------------------------------- UBL 2.1

function ublAddress(address: PostalAddress): Tree {
  return {
    'cbc:StreetName': address.line1,
    'cbc:AdditionalStreetName': address.line2 || undefined,
    'cbc:CityName': address.city,
    'cbc:PostalZone': address.postcode,
    'cac:Country': { 'cbc:IdentificationCode': address.countryCode },
  };
}

const ublEndpoint = (address: ElectronicAddress | null | undefined): Tree | undefined =>
  address ? { '@schemeID': address.scheme, '#': address.id } : undefined;

function ublTaxSchemes(vatId: string | null | undefined, taxNumber: string | null | undefined): Tree[] {
  const schemes: Tree[] = [];
  if (vatId) schemes.push({ 'cbc:CompanyID': vatId, 'cac:TaxScheme': { 'cbc:ID': 'VAT' } });
  // BT-32, the seller's tax registration: a scheme other than VAT.
  if (taxNumber) schemes.push({ 'cbc:CompanyID': taxNumber, 'cac:TaxScheme': { 'cbc:ID': 'FC' } });
  return schemes;
}

function ublSeller(seller: SellerSnapshot, withVatIds: boolean): Tree {
  return {
    'cac:Party': {
      'cbc:EndpointID': ublEndpoint(seller.electronicAddress),
      'cac:PartyName': { 'cbc:Name': seller.legalName },
      'cac:PostalAddress': ublAddress(seller.address),
      'cac:PartyTaxScheme': ublTaxSchemes(withVatIds ? seller.vatId : null, seller.taxNumber),
      'cac:PartyLegalEntity': { 'cbc:RegistrationName': seller.legalName, 'cbc:CompanyID': seller.registrationId || undefined },
      'cac:Contact': {
        'cbc:Name': seller.contactName || undefined,
        'cbc:Telephone': seller.phone || undefined,
        'cbc:ElectronicMail': seller.email,
      },
    },
  };
}

function ublBuyer(buyer: BuyerSnapshot, withVatIds: boolean): Tree {
  return {
    'cac:Party': {
      'cbc:EndpointID': ublEndpoint(buyer.electronicAddress),
      'cac:PartyName': { 'cbc:Name': buyer.name },
      'cac:PostalAddress': buyer.address ? ublAddress(buyer.address) : undefined,
      'cac:PartyTaxScheme': ublTaxSchemes(withVatIds ? buyer.vatId : null, null),
      'cac:PartyLegalEntity': { 'cbc:RegistrationName': buyer.name },
    },
  };
}

const ublTaxCategory = (category: TaxCategory, rate: string, exemptionReason?: string | null, breakdown = false): Tree => ({
  'cbc:ID': category,
  'cbc:Percent': withoutRate(category) && !breakdown ? undefined : rate,
  'cbc:TaxExemptionReason': exemptionReason || undefined,
  'cac:TaxScheme': { 'cbc:ID': 'VAT' },
});

function ublOf(document: ClientInvoiceDocument, xrechnung: boolean): Tree {
  const creditNote = document.type === 'credit_note';
  const root = creditNote ? 'CreditNote' : 'Invoice';
  const amount = (value: string): Tree => ({ '@currencyID': document.currency, '#': value });
  const notes: string[] = [];
  if (document.notes) notes.push(document.notes);
  if (document.seller.smallBusiness) notes.push('Small business: no VAT is charged.');
  return {
    [root]: {
      '@xmlns': `urn:oasis:names:specification:ubl:schema:xsd:${root}-2`,
      '@xmlns:cac': 'urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2',
      '@xmlns:cbc': 'urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2',
      'cbc:CustomizationID': xrechnung ? specificationIds.xrechnung : specificationIds.en16931,
      'cbc:ProfileID': xrechnung ? peppolBillingProcess : undefined,
      'cbc:ID': document.number,
      'cbc:IssueDate': document.issueDate,
      // A CreditNote has no DueDate of its own: its BT-9 is the payment means' PaymentDueDate.
      'cbc:DueDate': creditNote ? undefined : document.dueDate || undefined,
      [creditNote ? 'cbc:CreditNoteTypeCode' : 'cbc:InvoiceTypeCode']: typeCode(document),
      'cbc:Note': notes.map((note) => ({ '#': note })),
      'cbc:DocumentCurrencyCode': document.currency,
      'cbc:BuyerReference': document.buyerReference || undefined,
      'cac:InvoicePeriod': { 'cbc:StartDate': document.periodFrom, 'cbc:EndDate': document.periodTo },
      'cac:BillingReference': document.creditNoteFor
        ? { 'cac:InvoiceDocumentReference': { 'cbc:ID': document.creditNoteFor.number, 'cbc:IssueDate': document.creditNoteFor.issueDate } }
        : undefined,
      'cac:AccountingSupplierParty': ublSeller(document.seller, withVatIds(document)),
      'cac:AccountingCustomerParty': ublBuyer(document.buyer, withVatIds(document)),
      'cac:Delivery': deliverTo(document) ? { 'cac:DeliveryLocation': { 'cac:Address': ublAddress(deliverTo(document) as PostalAddress) } } : undefined,
      'cac:PaymentMeans': document.seller.iban
        ? {
            'cbc:PaymentMeansCode': sepaCreditTransfer,
            'cbc:PaymentDueDate': creditNote ? document.dueDate || undefined : undefined,
            'cbc:PaymentID': document.number,
            'cac:PayeeFinancialAccount': {
              'cbc:ID': document.seller.iban,
              'cbc:Name': document.seller.legalName,
              'cac:FinancialInstitutionBranch': document.seller.bic ? { 'cbc:ID': document.seller.bic } : undefined,
            },
          }
        : undefined,
      'cac:PaymentTerms': { 'cbc:Note': paymentTermsText(document) },
      'cac:AllowanceCharge': document.allowances.map((allowance) => ({
        'cbc:ChargeIndicator': 'false',
        'cbc:AllowanceChargeReason': allowance.reason,
        'cbc:Amount': amount(allowance.amount),
        'cac:TaxCategory': ublTaxCategory(allowance.taxCategory, allowance.taxRate),
      })),
      'cac:TaxTotal': {
        'cbc:TaxAmount': amount(document.totals.tax),
        'cac:TaxSubtotal': document.totals.taxes.map((tax) => ({
          'cbc:TaxableAmount': amount(tax.basis),
          'cbc:TaxAmount': amount(tax.amount),
          'cac:TaxCategory': ublTaxCategory(tax.category, tax.rate, tax.exemptionReason, true),
        })),
      },
      'cac:LegalMonetaryTotal': {
        'cbc:LineExtensionAmount': amount(document.totals.lineNet),
        'cbc:TaxExclusiveAmount': amount(document.totals.taxBasis),
        'cbc:TaxInclusiveAmount': amount(document.totals.gross),
        'cbc:AllowanceTotalAmount': document.allowances.length > 0 ? amount(document.totals.allowances) : undefined,
        'cbc:PrepaidAmount': isZero(document.totals.paid) ? undefined : amount(document.totals.paid),
        'cbc:PayableAmount': amount(document.totals.due),
      },
      [creditNote ? 'cac:CreditNoteLine' : 'cac:InvoiceLine']: document.lines.map((line) => ({
        'cbc:ID': String(line.position),
        [creditNote ? 'cbc:CreditedQuantity' : 'cbc:InvoicedQuantity']: { '@unitCode': line.unit, '#': line.quantity },
        'cbc:LineExtensionAmount': amount(line.netAmount),
        'cac:Item': {
          'cbc:Name': line.description,
          'cac:ClassifiedTaxCategory': ublTaxCategory(line.taxCategory, line.taxRate),
        },
        'cac:Price': { 'cbc:PriceAmount': amount(line.unitPrice) },
      })),
    },
  };
}
