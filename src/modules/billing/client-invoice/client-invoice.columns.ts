/**
 * What a client invoice keeps in its own columns besides its lines: the discount, the totals and tax
 * breakdown at the currency's scale, the seller and buyer as they were at issue (the snapshots its files
 * are written from for ever: client-invoice.document-of.ts), and the columns a credit note copies from the
 * invoice it voids; and a list's filter on those columns.
 */
import { Prisma, type Client, type ClientInvoice } from '../../../generated/prisma/client.js';
import { validationFailed } from '../../../lib/errors.js';
import { assertMoneyScale } from '../../../lib/money.js';
import type { BillingProfileView } from '../billing-profile/billing-profile.service.js';
import type { z } from 'zod';
import type { DiscountInput, ListClientInvoicesArgs, ManualLine } from './client-invoice.dto.js';
import { buyerOf, sellerOf } from './client-invoice.issuable.js';
import type { LineValues } from './client-invoice.lines.js';
import { discountProblem, invoiceTotals, type Discount, type InvoiceTotals } from './client-invoice.money.js';
import type { InvoiceNumber } from './client-invoice.numbering.js';
import { dayColumn } from '../../../lib/day.js';

const Decimal = Prisma.Decimal;

/** The discount of an invoice, as its columns keep it. */
export const discountOf = (invoice: Pick<ClientInvoice, 'discountPercent' | 'discountAmount' | 'discountReason'>): Discount | null =>
  invoice.discountPercent || invoice.discountAmount
    ? { percent: invoice.discountPercent, amount: invoice.discountAmount, reason: invoice.discountReason }
    : null;

/** A discount as the invoice's columns keep it (null: none). */
export const discountColumns = (discount: DiscountInput | null) => ({
  discountPercent: discount?.percent === undefined || discount === null ? null : new Decimal(discount.percent),
  discountAmount: discount?.amount === undefined || discount === null ? null : new Decimal(discount.amount),
  discountReason: discount?.reason ?? null,
});

/** 400 naming each manual line's price and the discount amount that have more decimals than the invoice's currency. */
export function assertInvoiceMoney(currency: string, input: { lines?: readonly ManualLine[] | undefined; discount?: DiscountInput | null | undefined }): void {
  assertMoneyScale(currency, {
    ...Object.fromEntries((input.lines ?? []).map((line, index) => [`lines.${index}.unitPrice`, line.unitPrice])),
    'discount.amount': input.discount?.amount,
  });
}

/** The total columns and the tax breakdown, as stored: amounts at the currency's `digits`, rates at 2. */
export function totalColumns(totals: InvoiceTotals, digits: number) {
  return {
    lineNet: totals.lineNet,
    allowances: totals.allowances,
    taxBasis: totals.taxBasis,
    tax: totals.tax,
    gross: totals.gross,
    paid: totals.paid,
    due: totals.due,
    taxes: totals.taxes.map((group) => ({
      category: group.category,
      rate: group.rate.toFixed(2),
      lineNet: group.lineNet.toFixed(digits),
      allowance: group.allowance.toFixed(digits),
      basis: group.basis.toFixed(digits),
      amount: group.amount.toFixed(digits),
      exemptionReason: group.exemptionReason,
    })),
  };
}

/** The totals of `lines` with `discount` in a currency of `digits` minor units, or 400 naming the discount when it exceeds them. */
export function checkedTotals(lines: readonly LineValues[], discount: Discount | null, digits: number): InvoiceTotals {
  const totals = invoiceTotals(lines, discount, undefined, digits);
  const problem = discountProblem(totals.lineNet, discount, digits);
  if (problem) throw validationFailed([problem]);
  return totals;
}

/** The seller (from the billing profile) and the buyer (from the client) as an issued invoice keeps them. */
export function partySnapshots(profile: BillingProfileView, client: Client) {
  return {
    seller: sellerOf(profile) as unknown as Prisma.InputJsonValue,
    buyer: buyerOf(client, profile) as unknown as Prisma.InputJsonValue,
  };
}

/**
 * A draft credit note for `invoice`: its parties, currency, totals and breakdown as the invoice has them, all
 * of it due; its own number and issue date. Made a draft, then issued once its lines are in: the database
 * takes no line into an issued document.
 */
export function creditNoteColumns(
  invoice: ClientInvoice,
  { number, issueDate, now, createdById }: { number: InvoiceNumber; issueDate: string; now: Date; createdById: string | null },
): Prisma.ClientInvoiceUncheckedCreateInput {
  const { id, createdAt: _created, updatedAt: _updated, number: _number, numberYear: _year, numberSequence: _sequence, ...kept } = invoice;
  return {
    ...kept,
    type: 'credit_note',
    creditNoteForId: id,
    status: 'draft',
    ...number,
    issueDate: dayColumn(issueDate),
    dueDate: null,
    seller: (invoice.seller ?? Prisma.DbNull) as Prisma.InputJsonValue,
    buyer: (invoice.buyer ?? Prisma.DbNull) as Prisma.InputJsonValue,
    taxes: invoice.taxes as Prisma.InputJsonValue,
    paid: new Decimal(0),
    due: invoice.gross,
    issuedAt: now,
    sentAt: null,
    paidAt: null,
    voidedAt: null,
    createdById,
  };
}

/** The `where` of a list's filter: by status, client, and issue date from and to (both days included). */
export function listFilter(filter: Omit<z.output<typeof ListClientInvoicesArgs>, 'tenantId' | 'limit' | 'offset'>) {
  const issueDate = { ...(filter.from ? { gte: dayColumn(filter.from) } : {}), ...(filter.to ? { lte: dayColumn(filter.to) } : {}) };
  return {
    ...(filter.status ? { status: filter.status } : {}),
    ...(filter.clientId ? { clientId: filter.clientId } : {}),
    ...(filter.from || filter.to ? { issueDate } : {}),
  };
}
