/**
 * A client invoice as OASIS UBL 2.1 (Invoice, or CreditNote for a credit note): EN 16931, XRechnung 3.0, or
 * Peppol BIS Billing 3.0 (peppol.ts says what it adds). The object tree follows the schema's element order.
 */
import type { BuyerSnapshot, ClientInvoiceDocument, ElectronicAddress, PostalAddress, SellerSnapshot, TaxCategory } from '../client-invoice.document.js';
import { sellerIdentifier, withVatIds } from './requirements.js';
import { baseQuantityOf, deliverTo, isZero, notesOf, paymentTermsText, sepaCreditTransfer, type Tree, typeCode, withoutRate } from './shared.js';

/** What a UBL invoice declares itself as (BT-24, BT-23), and how it carries its notes. */
export interface UblProfile {
  customizationId: string;
  profileId?: string;
  /** Peppol allows one note (PEPPOL-EN16931-R002): the notes are joined into it. */
  oneNote?: boolean;
}

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

function ublSeller(seller: SellerSnapshot, withVatIds: boolean, identifier: string | undefined): Tree {
  const registration = seller.registrationId || undefined;
  return {
    'cac:Party': {
      'cbc:EndpointID': ublEndpoint(seller.electronicAddress),
      'cac:PartyIdentification': identifier ? { 'cbc:ID': identifier } : undefined,
      'cac:PartyName': { 'cbc:Name': seller.legalName },
      'cac:PostalAddress': ublAddress(seller.address),
      'cac:PartyTaxScheme': ublTaxSchemes(withVatIds ? seller.vatId : null, seller.taxNumber),
      'cac:PartyLegalEntity': {
        'cbc:RegistrationName': seller.legalName,
        'cbc:CompanyID': registration && seller.registrationScheme ? { '@schemeID': seller.registrationScheme, '#': registration } : registration,
      },
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

/** The UBL tree of `document`, declared as `profile` says. */
export function ublOf(document: ClientInvoiceDocument, profile: UblProfile): Tree {
  const creditNote = document.type === 'credit_note';
  const root = creditNote ? 'CreditNote' : 'Invoice';
  const amount = (value: string): Tree => ({ '@currencyID': document.currency, '#': value });
  const notes = profile.oneNote && notesOf(document).length > 1 ? [notesOf(document).join('\n\n')] : notesOf(document);
  return {
    [root]: {
      '@xmlns': `urn:oasis:names:specification:ubl:schema:xsd:${root}-2`,
      '@xmlns:cac': 'urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2',
      '@xmlns:cbc': 'urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2',
      'cbc:CustomizationID': profile.customizationId,
      'cbc:ProfileID': profile.profileId,
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
      'cac:AccountingSupplierParty': ublSeller(document.seller, withVatIds(document), sellerIdentifier(document)),
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
        'cac:Price': {
          'cbc:PriceAmount': amount(line.unitPrice),
          'cbc:BaseQuantity': baseQuantityOf(line.baseQuantity) && { '@unitCode': line.unit, '#': line.baseQuantity },
        },
      })),
    },
  };
}
