/**
 * Reading a received EN 16931 e-invoice from its XML, exactly: UN/CEFACT CII
 * (`rsm:CrossIndustryInvoice`, also what a Factur-X / ZUGFeRD PDF carries)
 * or OASIS UBL 2.1 (`Invoice`, `CreditNote`). Elements are found by their
 * namespace and local name, never by prefix. Amounts, quantities and rates
 * stay the decimal text the document has (checked against the columns they
 * go to, so that nothing is rounded on the way in); dates become ISO days.
 *
 * What is read, by EN 16931 business term: BT-1 number, BT-2 issue date, BT-3
 * type (a credit note or not), BT-5 currency, BT-9 due date, BT-27 seller
 * name, BT-31 seller VAT id, BT-109 net, BT-110 tax, BT-112 total, and per
 * line (BG-25) BT-126, BT-129/130, BT-131, BT-146, BT-149, BT-151, BT-152,
 * BT-153 and BT-154. A document that is not one of the three roots, or lacks
 * a required term, is an `UnreadableXml` naming what is missing.
 */
import { Prisma } from '../../../generated/prisma/client.js';
import { readXml, UnreadableXml, type XmlElement as Element } from './received-invoice.xml.js';
import { isCalendarDay } from '../../../lib/day.js';

export type EInvoiceSyntax = 'cii' | 'ubl';

/** A line of a received e-invoice (BG-25), its figures as decimal text. */
export interface ReceivedLine {
  position: number;
  lineId: string;
  name: string;
  description: string | null;
  quantity: string;
  unitCode: string;
  unitPrice: string | null;
  priceBaseQuantity: string | null;
  netAmount: string;
  taxCategory: string | null;
  taxRate: string | null;
}

/** What a received e-invoice says, its figures as decimal text. */
export interface ReceivedEInvoice {
  syntax: EInvoiceSyntax;
  type: 'invoice' | 'credit_note';
  number: string;
  vendorName: string;
  vendorVatId: string | null;
  issueDate: string;
  dueDate: string | null;
  currency: string;
  netAmount: string;
  taxAmount: string | null;
  totalAmount: string;
  lines: ReceivedLine[];
}

const ns = {
  rsm: 'urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100',
  ram: 'urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:100',
  udt: 'urn:un:unece:uncefact:data:standard:UnqualifiedDataType:100',
  ublInvoice: 'urn:oasis:names:specification:ubl:schema:xsd:Invoice-2',
  ublCreditNote: 'urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2',
  cac: 'urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2',
  cbc: 'urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2',
} as const;

/** UNTDID 1001 codes EN 16931 allows for a credit note (the others are invoices). */
const creditNoteCodes = new Set(['81', '83', '261', '262', '296', '308', '381', '396', '420', '458', '532']);

/** A step of a path: a namespace and a local name. */
type Step = readonly [string, string];
const ram = (name: string): Step => [ns.ram, name];
const cac = (name: string): Step => [ns.cac, name];
const cbc = (name: string): Step => [ns.cbc, name];

function* childElements(parent: Element, [namespace, name]: Step): Generator<Element> {
  for (const child of parent.children) {
    if (child.local === name && child.uri === namespace) yield child;
  }
}

/** The first element down `path` (the first match at each step), if any. */
function find(parent: Element | undefined, ...path: Step[]): Element | undefined {
  let current = parent;
  for (const step of path) {
    if (!current) return undefined;
    current = childElements(current, step).next().value ?? undefined;
  }
  return current;
}

/** Every element matching the last step, under the first match of the ones before. */
function findAll(parent: Element | undefined, ...path: Step[]): Element[] {
  const last = path.at(-1);
  const holder = find(parent, ...path.slice(0, -1));
  return holder && last ? [...childElements(holder, last)] : [];
}

/** Trimmed text, undefined when absent or blank. */
function textOf(element: Element | undefined): string | undefined {
  const text = element?.text.trim();
  return text ? text : undefined;
}

/** What each column holds: integer digits and decimals at most (the database's precision, EN 16931's 2 decimals for amounts). */
const shapes = {
  amount: { pattern: /^[+-]?\d{1,12}(\.\d{1,2})?$/, words: 'an amount with at most 2 decimals' },
  quantity: { pattern: /^[+-]?\d{1,16}(\.\d{1,8})?$/, words: 'a number with at most 8 decimals' },
  percent: { pattern: /^\d{1,3}(\.\d{1,4})?$/, words: 'a percent with at most 4 decimals' },
} as const;

/** Reads terms off one document, collecting what is missing or malformed so that the answer names all of it. */
class Terms {
  readonly problems: string[] = [];

  required(term: string, value: string | undefined): string {
    if (value === undefined) this.problems.push(`${term} is missing`);
    return value ?? '';
  }

  decimal(term: string, value: string | undefined, shape: keyof typeof shapes): string | null {
    if (value === undefined) return null;
    const { pattern, words } = shapes[shape];
    if (!pattern.test(value)) {
      this.problems.push(`${term} "${value.slice(0, 40)}" is not ${words}`);
      return null;
    }
    // One spelling of each number: no leading +, no leading zeros ("007.50" is 7.50).
    return value.replace(/^\+/, '').replace(/^(-?)0+(?=\d)/, '$1');
  }

  requiredDecimal(term: string, value: string | undefined, shape: keyof typeof shapes): string {
    return this.decimal(term, this.required(term, value) || undefined, shape) ?? '';
  }

  /** A day: `YYYY-MM-DD` (UBL) or CII's format 102 `YYYYMMDD`, checked to exist. */
  date(term: string, value: string | undefined, format?: string): string | null {
    if (value === undefined) return null;
    const match = (format ?? '102') === '102' ? /^(\d{4})-?(\d{2})-?(\d{2})$/.exec(value) : null;
    const day = match ? `${match[1]}-${match[2]}-${match[3]}` : undefined;
    if (!day || !isCalendarDay(day)) {
      this.problems.push(
        `${term} "${value.slice(0, 40)}" is not a date${format && format !== '102' ? ` (format ${format.slice(0, 10)}; EN 16931 uses 102)` : ''}`,
      );
      return null;
    }
    return day;
  }

  currency(term: string, value: string | undefined): string {
    const code = this.required(term, value);
    if (code && !/^[A-Z]{3}$/.test(code)) this.problems.push(`${term} "${code.slice(0, 40)}" is not an ISO 4217 code`);
    return code;
  }

  /** The document read, or an `UnreadableXml` naming every problem. */
  done<T>(value: T): T {
    if (this.problems.length > 0) throw new UnreadableXml(`is not a complete EN 16931 invoice: ${this.problems.slice(0, 10).join('; ')}`);
    return value;
  }
}

/**
 * BT-110, the tax total in the invoice currency; a document without one (all
 * lines exempt or out of scope) has the sum of its VAT breakdown (BT-117), in
 * decimals. Null when it has neither.
 */
function taxTotal(terms: Terms, term: string, totals: Element[], breakdown: Element[], currency: string): string | null {
  const stated = inCurrency(totals, currency);
  if (stated) return terms.decimal(term, textOf(stated), 'amount');
  const amounts = breakdown.map((amount, index) => terms.decimal(`BT-117 (VAT breakdown ${index + 1})`, textOf(amount), 'amount'));
  if (amounts.length === 0 || amounts.some((amount) => amount === null)) return null;
  return amounts.reduce((sum, amount) => sum.plus(amount as string), new Prisma.Decimal(0)).toFixed(2);
}

/** CII's date: `udt:DateTimeString` with its `format`. */
function ciiDate(terms: Terms, term: string, holder: Element | undefined): string | null {
  const stamp = find(holder, [ns.udt, 'DateTimeString']);
  return terms.date(term, textOf(stamp), stamp?.attributes.format);
}

/** Of several amounts (a tax total in the invoice currency and one in the accounting currency), the one in `currency`. */
function inCurrency(elements: Element[], currency: string): Element | undefined {
  return elements.find((element) => (element.attributes.currencyID ?? currency) === currency) ?? elements[0];
}

function readCii(root: Element): ReceivedEInvoice {
  const terms = new Terms();
  const document = find(root, [ns.rsm, 'ExchangedDocument']);
  const transaction = find(root, [ns.rsm, 'SupplyChainTradeTransaction']);
  const seller = find(transaction, ram('ApplicableHeaderTradeAgreement'), ram('SellerTradeParty'));
  const settlement = find(transaction, ram('ApplicableHeaderTradeSettlement'));
  const totals = find(settlement, ram('SpecifiedTradeSettlementHeaderMonetarySummation'));
  const currency = terms.currency('BT-5 (InvoiceCurrencyCode)', textOf(find(settlement, ram('InvoiceCurrencyCode'))));
  const vat = findAll(seller, ram('SpecifiedTaxRegistration')).find((registration) => find(registration, ram('ID'))?.attributes.schemeID === 'VA');
  const lines = findAll(transaction, ram('IncludedSupplyChainTradeLineItem')).map((item, index): ReceivedLine => {
    const at = `line ${index + 1}`;
    const product = find(item, ram('SpecifiedTradeProduct'));
    const price = find(item, ram('SpecifiedLineTradeAgreement'), ram('NetPriceProductTradePrice'));
    const quantity = find(item, ram('SpecifiedLineTradeDelivery'), ram('BilledQuantity'));
    const lineSettlement = find(item, ram('SpecifiedLineTradeSettlement'));
    const tax = find(lineSettlement, ram('ApplicableTradeTax'));
    return {
      position: index + 1,
      lineId: terms.required(`${at}: BT-126 (LineID)`, textOf(find(item, ram('AssociatedDocumentLineDocument'), ram('LineID')))),
      name: terms.required(`${at}: BT-153 (item Name)`, textOf(find(product, ram('Name')))),
      description: textOf(find(product, ram('Description'))) ?? null,
      quantity: terms.requiredDecimal(`${at}: BT-129 (BilledQuantity)`, textOf(quantity), 'quantity'),
      unitCode: terms.required(`${at}: BT-130 (unitCode)`, quantity?.attributes.unitCode || undefined),
      unitPrice: terms.decimal(`${at}: BT-146 (net ChargeAmount)`, textOf(find(price, ram('ChargeAmount'))), 'quantity'),
      priceBaseQuantity: terms.decimal(`${at}: BT-149 (BasisQuantity)`, textOf(find(price, ram('BasisQuantity'))), 'quantity'),
      netAmount: terms.requiredDecimal(
        `${at}: BT-131 (LineTotalAmount)`,
        textOf(find(lineSettlement, ram('SpecifiedTradeSettlementLineMonetarySummation'), ram('LineTotalAmount'))),
        'amount',
      ),
      taxCategory: textOf(find(tax, ram('CategoryCode'))) ?? null,
      taxRate: terms.decimal(`${at}: BT-152 (RateApplicablePercent)`, textOf(find(tax, ram('RateApplicablePercent'))), 'percent'),
    };
  });
  if (lines.length === 0) terms.problems.push('it has no line (BG-25)');
  const typeCode = textOf(find(document, ram('TypeCode')));
  return terms.done({
    syntax: 'cii',
    type: typeCode && creditNoteCodes.has(typeCode) ? 'credit_note' : 'invoice',
    number: terms.required('BT-1 (ExchangedDocument ID)', textOf(find(document, ram('ID')))),
    vendorName: terms.required('BT-27 (SellerTradeParty Name)', textOf(find(seller, ram('Name')))),
    vendorVatId: textOf(find(vat, ram('ID'))) ?? null,
    issueDate: terms.required('BT-2 (IssueDateTime)', ciiDate(terms, 'BT-2 (IssueDateTime)', find(document, ram('IssueDateTime'))) ?? undefined),
    dueDate: ciiDate(terms, 'BT-9 (DueDateDateTime)', find(settlement, ram('SpecifiedTradePaymentTerms'), ram('DueDateDateTime'))),
    currency,
    netAmount: terms.requiredDecimal('BT-109 (TaxBasisTotalAmount)', textOf(find(totals, ram('TaxBasisTotalAmount'))), 'amount'),
    taxAmount: taxTotal(
      terms,
      'BT-110 (TaxTotalAmount)',
      findAll(totals, ram('TaxTotalAmount')),
      findAll(settlement, ram('ApplicableTradeTax')).flatMap((tax) => [...childElements(tax, ram('CalculatedAmount'))]),
      currency,
    ),
    totalAmount: terms.requiredDecimal('BT-112 (GrandTotalAmount)', textOf(find(totals, ram('GrandTotalAmount'))), 'amount'),
    lines,
  });
}

function readUbl(root: Element, creditNote: boolean): ReceivedEInvoice {
  const terms = new Terms();
  const currency = terms.currency('BT-5 (DocumentCurrencyCode)', textOf(find(root, cbc('DocumentCurrencyCode'))));
  const party = find(root, cac('AccountingSupplierParty'), cac('Party'));
  const vat = findAll(party, cac('PartyTaxScheme')).find((scheme) => textOf(find(scheme, cac('TaxScheme'), cbc('ID'))) === 'VAT');
  const totals = find(root, cac('LegalMonetaryTotal'));
  const taxTotals = findAll(root, cac('TaxTotal'));
  const lineName = creditNote ? 'CreditNoteLine' : 'InvoiceLine';
  const quantityName = creditNote ? 'CreditedQuantity' : 'InvoicedQuantity';
  const lines = findAll(root, cac(lineName)).map((line, index): ReceivedLine => {
    const at = `line ${index + 1}`;
    const item = find(line, cac('Item'));
    const tax = find(item, cac('ClassifiedTaxCategory'));
    const price = find(line, cac('Price'));
    const quantity = find(line, cbc(quantityName));
    return {
      position: index + 1,
      lineId: terms.required(`${at}: BT-126 (ID)`, textOf(find(line, cbc('ID')))),
      name: terms.required(`${at}: BT-153 (Item Name)`, textOf(find(item, cbc('Name')))),
      description: textOf(find(item, cbc('Description'))) ?? null,
      quantity: terms.requiredDecimal(`${at}: BT-129 (${quantityName})`, textOf(quantity), 'quantity'),
      unitCode: terms.required(`${at}: BT-130 (unitCode)`, quantity?.attributes.unitCode || undefined),
      unitPrice: terms.decimal(`${at}: BT-146 (PriceAmount)`, textOf(find(price, cbc('PriceAmount'))), 'quantity'),
      priceBaseQuantity: terms.decimal(`${at}: BT-149 (BaseQuantity)`, textOf(find(price, cbc('BaseQuantity'))), 'quantity'),
      netAmount: terms.requiredDecimal(`${at}: BT-131 (LineExtensionAmount)`, textOf(find(line, cbc('LineExtensionAmount'))), 'amount'),
      taxCategory: textOf(find(tax, cbc('ID'))) ?? null,
      taxRate: terms.decimal(`${at}: BT-152 (Percent)`, textOf(find(tax, cbc('Percent'))), 'percent'),
    };
  });
  if (lines.length === 0) terms.problems.push(`it has no line (cac:${lineName})`);
  const typeCode = textOf(find(root, cbc(creditNote ? 'CreditNoteTypeCode' : 'InvoiceTypeCode')));
  // A credit note carries BT-9 in its payment means (UBL's CreditNote has no DueDate).
  const due = textOf(find(root, cbc('DueDate'))) ?? textOf(find(root, cac('PaymentMeans'), cbc('PaymentDueDate')));
  return terms.done({
    syntax: 'ubl',
    type: creditNote || (typeCode !== undefined && creditNoteCodes.has(typeCode)) ? 'credit_note' : 'invoice',
    number: terms.required('BT-1 (ID)', textOf(find(root, cbc('ID')))),
    vendorName: terms.required(
      'BT-27 (PartyLegalEntity RegistrationName)',
      textOf(find(party, cac('PartyLegalEntity'), cbc('RegistrationName'))) ?? textOf(find(party, cac('PartyName'), cbc('Name'))),
    ),
    vendorVatId: textOf(find(vat, cbc('CompanyID'))) ?? null,
    issueDate: terms.required('BT-2 (IssueDate)', terms.date('BT-2 (IssueDate)', textOf(find(root, cbc('IssueDate')))) ?? undefined),
    dueDate: terms.date('BT-9 (DueDate)', due),
    currency,
    netAmount: terms.requiredDecimal('BT-109 (TaxExclusiveAmount)', textOf(find(totals, cbc('TaxExclusiveAmount'))), 'amount'),
    taxAmount: taxTotal(
      terms,
      'BT-110 (TaxTotal TaxAmount)',
      taxTotals.flatMap((total) => [...childElements(total, cbc('TaxAmount'))]),
      taxTotals.flatMap((total) => [...childElements(total, cac('TaxSubtotal'))]).flatMap((sub) => [...childElements(sub, cbc('TaxAmount'))]),
      currency,
    ),
    totalAmount: terms.requiredDecimal('BT-112 (TaxInclusiveAmount)', textOf(find(totals, cbc('TaxInclusiveAmount'))), 'amount'),
    lines,
  });
}

/** The e-invoice a parsed document is (by its root element), or an `UnreadableXml` saying why it is none. */
export function eInvoiceOf(root: Element): ReceivedEInvoice {
  const { uri: namespaceURI, local: localName } = root;
  if (namespaceURI === ns.rsm && localName === 'CrossIndustryInvoice') return readCii(root);
  if (namespaceURI === ns.ublInvoice && localName === 'Invoice') return readUbl(root, false);
  if (namespaceURI === ns.ublCreditNote && localName === 'CreditNote') return readUbl(root, true);
  const name = `${namespaceURI ? `{${namespaceURI.slice(0, 100)}}` : ''}${(localName ?? '').slice(0, 100)}`;
  throw new UnreadableXml(`is not an EN 16931 invoice: its root element is ${name}, not a CII CrossIndustryInvoice or a UBL Invoice or CreditNote`);
}

/** Reads an XML file as an e-invoice; an `UnreadableXml` says why it is not one. */
export function readEInvoice(bytes: Buffer): ReceivedEInvoice {
  return eInvoiceOf(readXml(bytes));
}
