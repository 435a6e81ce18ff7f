import { builder } from '../../../graphql/builder.js';
import { graphqlEnum } from '../../../graphql/inputs.js';
import { moneyField, optionalMoneyField, optionalPercentField, percentField, quantityExtensions } from '../../../graphql/money.js';
import { resourceFields, step } from '../../../graphql/resource-fields.js';
import type { ClientInvoiceLine, ClientInvoicePayment } from '../../../generated/prisma/client.js';
import { taxCategory } from '../../tracking/party/party.fields.js';
import { AddressObject, ElectronicAddressObject } from '../../tracking/party/party.graphql.js';
import type { BuyerSnapshot, SellerSnapshot } from './client-invoice.document.js';
import { ClientInvoiceSendObject } from './client-invoice.send.graphql.js';
import type { StoredTaxGroup } from './client-invoice.document-of.js';
import {
  ClientInvoiceArgs,
  clientInvoiceStatus,
  clientInvoiceType,
  CreateClientInvoiceArgs,
  invoiceGroupBy,
  invoiceLineUnit,
  ListClientInvoicesArgs,
  PayClientInvoiceArgs,
  SendClientInvoiceArgs,
  UpdateClientInvoiceArgs,
} from './client-invoice.dto.js';

const TaxCategoryEnum = graphqlEnum(taxCategory);

/** A part of an invoice with the invoice's currency: its money prints at that currency's scale. */
type InCurrency<Part> = Part & { currency: string };
const inCurrency = <Part extends object>(parts: readonly Part[], currency: string): InCurrency<Part>[] => parts.map((part) => ({ ...part, currency }));
const currencyOf = (part: { currency: string }) => part.currency;
type Line = InCurrency<ClientInvoiceLine>;
type Payment = InCurrency<ClientInvoicePayment>;
type Tax = InCurrency<StoredTaxGroup>;

// Lines and payments are parts of the invoice, not resources of their own: plain objects, loaded with it (REST shows them too).
const LineObject = builder.objectRef<Line>('ClientInvoiceLine').implement({
  description: 'A line: the time of one group and hourly rate, an expense (or a category of them) at net plus markup, or a manual line.',
  fields: (t) => ({
    position: t.exposeInt('position'),
    description: t.exposeString('description'),
    quantity: t.expose('quantity', { type: 'Decimal', description: 'Up to 4 decimals (minutes for time: unit MIN)', extensions: quantityExtensions }),
    unit: t.expose('unit', { type: graphqlEnum(invoiceLineUnit) }),
    baseQuantity: t.exposeInt('baseQuantity', {
      description: 'The quantity unitPrice is for (EN 16931 BT-149): 60 for minutes at an hourly rate, else 1',
    }),
    unitPrice: t.field(moneyField<Line>("In the invoice's currency", (line) => line.unitPrice, currencyOf)),
    netAmount: t.field(
      moneyField<Line>(
        "round(quantity x unitPrice / baseQuantity) to the currency's minor units, exactly. The entries of the time lines, each rounded on its own, may differ from them: a rounding line after them carries the difference",
        (line) => line.netAmount,
        currencyOf,
      ),
    ),
    taxCategory: t.expose('taxCategory', { type: TaxCategoryEnum }),
    taxRate: t.field(percentField<Line>('Percent', (line) => line.taxRate)),
    taxExemptionReason: t.exposeString('taxExemptionReason', { nullable: true }),
    projectId: t.exposeID('projectId', { nullable: true }),
    taskId: t.exposeID('taskId', { nullable: true }),
    tenantUserId: t.exposeID('tenantUserId', { nullable: true }),
    entryCount: t.exposeInt('entryCount', { description: 'Entries billed on this line (0: a manual or an expense line)' }),
  }),
});

const PaymentObject = builder.objectRef<Payment>('ClientInvoicePayment').implement({
  description: 'A payment received.',
  fields: (t) => ({
    paidAt: t.expose('paidAt', { type: 'Date' }),
    amount: t.field(moneyField<Payment>("In the invoice's currency", (payment) => payment.amount, currencyOf)),
  }),
});

const TaxObject = builder.objectRef<Tax>('ClientInvoiceTax').implement({
  description: 'The tax of one (category, rate) group: on the sum of its line nets less its share of the discount, half-up to cents.',
  fields: (t) => ({
    category: t.field({ type: TaxCategoryEnum, resolve: (group) => group.category }),
    // Kept as strings in the JSON column; shown as every other decimal is.
    rate: t.field(percentField<Tax>('Percent', (group) => group.rate)),
    basis: t.field(moneyField<Tax>('The line nets less their share of the discount', (group) => group.basis, currencyOf)),
    amount: t.field(moneyField<Tax>('The tax', (group) => group.amount, currencyOf)),
    exemptionReason: t.exposeString('exemptionReason', { nullable: true }),
  }),
});

type Amount = { toString(): string };
interface Totals {
  currency: string;
  lineNet: Amount;
  allowances: Amount;
  taxBasis: Amount;
  taxes: StoredTaxGroup[];
  tax: Amount;
  gross: Amount;
  paid: Amount;
  due: Amount;
}

const TotalsObject = builder.objectRef<Totals>('ClientInvoiceTotals').implement({
  description: 'What the invoice comes to: gross = taxBasis + tax, due = gross - paid.',
  fields: (t) => ({
    lineNet: t.field(moneyField<Totals>('Sum of the line nets', (totals) => totals.lineNet, currencyOf)),
    allowances: t.field(moneyField<Totals>('The discount', (totals) => totals.allowances, currencyOf)),
    taxBasis: t.field(moneyField<Totals>('Line nets less the discount', (totals) => totals.taxBasis, currencyOf)),
    taxes: t.field({ type: [TaxObject], resolve: (totals) => inCurrency(totals.taxes, totals.currency) }),
    tax: t.field(moneyField<Totals>('Sum of the taxes', (totals) => totals.tax, currencyOf)),
    gross: t.field(moneyField<Totals>('taxBasis + tax', (totals) => totals.gross, currencyOf)),
    paid: t.field(moneyField<Totals>('Sum of the payments', (totals) => totals.paid, currencyOf)),
    due: t.field(moneyField<Totals>('gross - paid', (totals) => totals.due, currencyOf)),
  }),
});

interface DiscountView {
  currency: string;
  percent: Amount | null;
  amount: Amount | null;
  reason: string | null;
}
const DiscountObject = builder.objectRef<DiscountView>('ClientInvoiceDiscount').implement({
  description: 'A document discount: a percent of the line nets, or an amount, with its reason.',
  fields: (t) => ({
    percent: t.field(optionalPercentField<DiscountView>('Percent of the line nets', (discount) => discount.percent)),
    amount: t.field(optionalMoneyField<DiscountView>("An amount, in the invoice's currency", (discount) => discount.amount, currencyOf)),
    reason: t.exposeString('reason', { nullable: true }),
  }),
});

const SellerObject = builder.objectRef<SellerSnapshot>('ClientInvoiceSeller').implement({
  description: 'The seller as it was when the invoice was issued.',
  fields: (t) => ({
    legalName: t.exposeString('legalName'),
    address: t.field({ type: AddressObject, resolve: (seller) => seller.address }),
    vatId: t.string({ nullable: true, resolve: (seller) => seller.vatId ?? null }),
    taxNumber: t.string({ nullable: true, resolve: (seller) => seller.taxNumber ?? null }),
    email: t.exposeString('email'),
    phone: t.string({ nullable: true, resolve: (seller) => seller.phone ?? null }),
    contactName: t.string({ nullable: true, resolve: (seller) => seller.contactName ?? null }),
    electronicAddress: t.field({ type: ElectronicAddressObject, nullable: true, resolve: (seller) => seller.electronicAddress ?? null }),
    iban: t.string({ nullable: true, resolve: (seller) => seller.iban ?? null }),
    bic: t.string({ nullable: true, resolve: (seller) => seller.bic ?? null }),
    bankName: t.string({ nullable: true, resolve: (seller) => seller.bankName ?? null }),
    smallBusiness: t.exposeBoolean('smallBusiness'),
  }),
});

const BuyerObject = builder.objectRef<BuyerSnapshot>('ClientInvoiceBuyer').implement({
  description: 'The client as it was when the invoice was issued.',
  fields: (t) => ({
    name: t.exposeString('name'),
    address: t.field({ type: AddressObject, nullable: true, resolve: (buyer) => buyer.address ?? null }),
    vatId: t.string({ nullable: true, resolve: (buyer) => buyer.vatId ?? null }),
    email: t.string({ nullable: true, resolve: (buyer) => buyer.email ?? null }),
    electronicAddress: t.field({ type: ElectronicAddressObject, nullable: true, resolve: (buyer) => buyer.electronicAddress ?? null }),
  }),
});

builder.prismaObject('ClientInvoice', {
  description: 'An invoice (or a credit note) to a client: a draft from approved time and manual lines until issued with its number.',
  fields: (t) => ({
    id: t.exposeID('id'),
    tenantId: t.exposeID('tenantId'),
    clientId: t.exposeID('clientId'),
    client: t.relation('client'),
    type: t.expose('type', { type: graphqlEnum(clientInvoiceType) }),
    creditNoteForId: t.exposeID('creditNoteForId', { nullable: true, description: 'A credit note: the invoice it cancels' }),
    creditNoteFor: t.relation('creditNoteFor', { nullable: true }),
    creditNoteId: t.field({
      type: 'ID',
      nullable: true,
      description: 'A void invoice: the credit note that cancelled it',
      select: { creditNote: { select: { id: true } } },
      resolve: (invoice) => invoice.creditNote?.id ?? null,
    }),
    status: t.expose('status', { type: graphqlEnum(clientInvoiceStatus) }),
    number: t.exposeString('number', { nullable: true, description: 'From the billing profile’s pattern at issue; null while draft' }),
    currency: t.exposeString('currency', { description: "ISO 4217: the client's" }),
    issueDate: t.expose('issueDate', { type: 'Date', nullable: true }),
    dueDate: t.expose('dueDate', { type: 'Date', nullable: true }),
    periodFrom: t.expose('periodFrom', { type: 'Date', description: 'Service period (tenant time zone)' }),
    periodTo: t.expose('periodTo', { type: 'Date' }),
    groupBy: t.expose('groupBy', { type: graphqlEnum(invoiceGroupBy) }),
    buyerReference: t.exposeString('buyerReference', { nullable: true, description: 'BT-10, e.g. a Leitweg-ID' }),
    notes: t.exposeString('notes', { nullable: true }),
    seller: t.field({
      type: SellerObject,
      nullable: true,
      description: 'Taken at issue; null while draft',
      resolve: (invoice) => invoice.seller as SellerSnapshot | null,
    }),
    buyer: t.field({
      type: BuyerObject,
      nullable: true,
      description: 'Taken at issue; null while draft',
      resolve: (invoice) => invoice.buyer as BuyerSnapshot | null,
    }),
    lines: t.field({
      type: [LineObject],
      select: { lines: { orderBy: { position: 'asc' } } },
      resolve: (invoice) => inCurrency(invoice.lines, invoice.currency),
    }),
    discount: t.field({
      type: DiscountObject,
      nullable: true,
      resolve: (invoice) =>
        invoice.discountPercent || invoice.discountAmount
          ? { currency: invoice.currency, percent: invoice.discountPercent, amount: invoice.discountAmount, reason: invoice.discountReason }
          : null,
    }),
    totals: t.field({
      type: TotalsObject,
      resolve: (invoice) => ({
        currency: invoice.currency,
        lineNet: invoice.lineNet,
        allowances: invoice.allowances,
        taxBasis: invoice.taxBasis,
        taxes: invoice.taxes as unknown as StoredTaxGroup[],
        tax: invoice.tax,
        gross: invoice.gross,
        paid: invoice.paid,
        due: invoice.due,
      }),
    }),
    payments: t.field({
      type: [PaymentObject],
      select: { payments: { orderBy: [{ paidAt: 'asc' }, { createdAt: 'asc' }] } },
      resolve: (invoice) => inCurrency(invoice.payments, invoice.currency),
    }),
    issuedAt: t.expose('issuedAt', { type: 'DateTime', nullable: true }),
    sentAt: t.expose('sentAt', {
      type: 'DateTime',
      nullable: true,
      description: 'When it was last sent: the SMTP server accepted it (or, without SMTP, it was marked sent)',
    }),
    sentTo: t.exposeStringList('sentTo', { description: 'Whom the last mail reached (to and cc); empty when it was never mailed' }),
    lastSend: t.field({
      type: ClientInvoiceSendObject,
      nullable: true,
      description: 'The last send: queued, delivered, or not_configured (no SMTP_URL: the invoice was only marked sent); null when never sent',
      select: { sends: { orderBy: { createdAt: 'desc' }, take: 1 } },
      resolve: (invoice) => invoice.sends[0] ?? null,
    }),
    paidAt: t.expose('paidAt', { type: 'DateTime', nullable: true, description: 'The day the last payment settled it' }),
    voidedAt: t.expose('voidedAt', { type: 'DateTime', nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

resourceFields('ClientInvoice', {
  subject: 'ClientInvoice',
  service: (services) => services.clientInvoices,
  queries: {
    clientInvoices: { list: ListClientInvoicesArgs, description: "The tenant's client invoices, newest first; `from`/`to` bound the issue date." },
    clientInvoice: { get: ClientInvoiceArgs, description: 'One client invoice.' },
  },
  mutations: {
    createClientInvoice: {
      create: CreateClientInvoiceArgs,
      description: "A draft from the client's approved, billable time in the period, with manual lines and a discount.",
    },
    updateClientInvoice: { update: UpdateClientInvoiceArgs, description: 'Changes a draft (an issued invoice is never changed: 409 INVOICE_ISSUED).' },
    deleteClientInvoice: { remove: ClientInvoiceArgs, description: 'Deletes a draft and releases its entries. GraphQL returns the deleted draft.' },
    // The steps of an invoice's life, as REST's steps() rows in index.ts.
    issueClientInvoice: step(
      ClientInvoiceArgs,
      'issue',
      'Issues a draft: its number (gapless, per tenant and year), dates, and the seller and buyer snapshots.',
    ),
    sendClientInvoice: step(
      SendClientInvoiceArgs,
      'send',
      'Sends an issued invoice by e-mail from a worker (with SMTP configured; lastSend.status queued, then delivered), or only marks it sent (not_configured).',
    ),
    payClientInvoice: step(PayClientInvoiceArgs, 'pay', 'Records a payment: all that is due, or less (a partial payment).'),
    voidClientInvoice: step(
      ClientInvoiceArgs,
      'void',
      'Voids an issued invoice: a credit note takes the next number and its entries are released. Returns the void invoice.',
    ),
  },
});
