/**
 * The REST list of client invoices, printed without running GraphQL (issue 41): the rows of the list statement
 * (client-invoice.list.ts), each invoice as the REST schema's `ClientInvoice` prints it, serialised once.
 *
 * Through the GraphQL fields, printing a page of 50 invoices of three lines (some sixty values an invoice and
 * fifteen a line) cost about as much as reading it, and more than the whole notes list (docs/performance.md). The
 * shape stays the GraphQL type's: each object below has the type's fields in the REST schema's order (by name),
 * and each value is printed by what prints it there: the scalars' own `serialize`, money and percents by
 * `moneyText` and `percentText` at the invoice's currency, the same null for a missing value.
 * test/client-invoice-list.test.ts holds the answer to what reading each invoice answers (through GraphQL), byte
 * for byte, and the keys to the REST schema's fields, nested ones too: a field added to the type and not here
 * fails it.
 */
import { DateScalar, DateTimeScalar, DecimalScalar } from '../../../graphql/scalars.js';
import { moneyText, percentText, type DecimalLike } from '../../../lib/money.js';
import type { ClientInvoicePayment, ClientInvoiceSend } from '../../../generated/prisma/client.js';
import type { BuyerSnapshot, ElectronicAddress, PostalAddress, SellerSnapshot } from './client-invoice.document.js';
import type { StoredTaxGroup } from './client-invoice.document-of.js';
import type { ListedClientInvoice, ListedLine } from './client-invoice.list.js';

/** What the scalars print (a Date, or the ISO text the list's json carries). */
const date = (value: unknown): string => DateScalar.serialize(value);
const dateTime = (value: unknown): string => DateTimeScalar.serialize(value);
const optionalDate = (value: unknown): string | null => (value === null || value === undefined ? null : date(value));
const optionalDateTime = (value: unknown): string | null => (value === null || value === undefined ? null : dateTime(value));
const optionalMoney = (value: DecimalLike | null, currency: string): string | null => (value === null ? null : moneyText(value, currency));
const optionalPercent = (value: DecimalLike | null): string | null => (value === null ? null : percentText(value));

const address = (value: PostalAddress) => ({
  city: value.city,
  countryCode: value.countryCode,
  line1: value.line1,
  line2: value.line2 ?? null,
  postcode: value.postcode,
});

const electronicAddress = (value: ElectronicAddress | null | undefined) => (value ? { id: value.id, scheme: value.scheme } : null);

const seller = (value: SellerSnapshot | null) =>
  value && {
    address: address(value.address),
    bankName: value.bankName ?? null,
    bic: value.bic ?? null,
    contactName: value.contactName ?? null,
    electronicAddress: electronicAddress(value.electronicAddress),
    email: value.email,
    iban: value.iban ?? null,
    legalName: value.legalName,
    phone: value.phone ?? null,
    smallBusiness: value.smallBusiness,
    taxNumber: value.taxNumber ?? null,
    vatId: value.vatId ?? null,
  };

const buyer = (value: BuyerSnapshot | null) =>
  value && {
    address: value.address ? address(value.address) : null,
    electronicAddress: electronicAddress(value.electronicAddress),
    email: value.email ?? null,
    name: value.name,
    vatId: value.vatId ?? null,
  };

const line = (value: ListedLine, currency: string) => ({
  baseQuantity: value.baseQuantity,
  description: value.description,
  entryCount: value.entryCount,
  netAmount: moneyText(value.netAmount, currency),
  position: value.position,
  projectId: value.projectId,
  quantity: DecimalScalar.serialize(value.quantity),
  taskId: value.taskId,
  taxCategory: value.taxCategory,
  taxExemptionReason: value.taxExemptionReason,
  taxRate: percentText(value.taxRate),
  tenantUserId: value.tenantUserId,
  unit: value.unit,
  unitPrice: moneyText(value.unitPrice, currency),
});

const payment = (value: ClientInvoicePayment, currency: string) => ({ amount: moneyText(value.amount, currency), paidAt: date(value.paidAt) });

const send = (value: ClientInvoiceSend | undefined) =>
  value
    ? {
        attach: value.attach,
        attempts: value.attempts,
        cc: value.cc,
        createdAt: dateTime(value.createdAt),
        deliveredAt: optionalDateTime(value.deliveredAt),
        id: value.id,
        lastError: value.lastError,
        messageId: value.messageId,
        status: value.status,
        to: value.to,
      }
    : null;

const tax = (value: StoredTaxGroup, currency: string) => ({
  amount: moneyText(value.amount, currency),
  basis: moneyText(value.basis, currency),
  category: value.category,
  exemptionReason: value.exemptionReason ?? null,
  rate: percentText(value.rate),
});

/** One invoice of the list as REST prints `ClientInvoice`. */
function plainClientInvoice(invoice: ListedClientInvoice) {
  const { currency } = invoice;
  return {
    buyer: buyer(invoice.buyer as BuyerSnapshot | null),
    buyerReference: invoice.buyerReference,
    clientId: invoice.clientId,
    createdAt: dateTime(invoice.createdAt),
    creditNoteForId: invoice.creditNoteForId,
    creditNoteId: invoice.creditNote?.id ?? null,
    currency,
    // As the GraphQL field decides it: a discount when either is set.
    discount:
      invoice.discountPercent || invoice.discountAmount
        ? {
            amount: optionalMoney(invoice.discountAmount, currency),
            percent: optionalPercent(invoice.discountPercent),
            reason: invoice.discountReason,
          }
        : null,
    dueDate: optionalDate(invoice.dueDate),
    groupBy: invoice.groupBy,
    id: invoice.id,
    issueDate: optionalDate(invoice.issueDate),
    issuedAt: optionalDateTime(invoice.issuedAt),
    lastSend: send(invoice.sends[0]),
    lines: invoice.lines.map((each) => line(each, currency)),
    notes: invoice.notes,
    number: invoice.number,
    paidAt: optionalDateTime(invoice.paidAt),
    payments: invoice.payments.map((each) => payment(each, currency)),
    periodFrom: date(invoice.periodFrom),
    periodTo: date(invoice.periodTo),
    seller: seller(invoice.seller as SellerSnapshot | null),
    sentAt: optionalDateTime(invoice.sentAt),
    sentTo: invoice.sentTo,
    status: invoice.status,
    tenantId: invoice.tenantId,
    totals: {
      allowances: moneyText(invoice.allowances, currency),
      due: moneyText(invoice.due, currency),
      gross: moneyText(invoice.gross, currency),
      lineNet: moneyText(invoice.lineNet, currency),
      paid: moneyText(invoice.paid, currency),
      tax: moneyText(invoice.tax, currency),
      taxBasis: moneyText(invoice.taxBasis, currency),
      taxes: (invoice.taxes as unknown as StoredTaxGroup[]).map((each) => tax(each, currency)),
    },
    type: invoice.type,
    updatedAt: dateTime(invoice.updatedAt),
    voidedAt: optionalDateTime(invoice.voidedAt),
  };
}

/** The list's JSON as REST answers it. */
export const plainClientInvoiceList = (invoices: readonly ListedClientInvoice[]): string => JSON.stringify(invoices.map(plainClientInvoice));
