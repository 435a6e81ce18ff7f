/**
 * A stored client invoice as the files that leave Tally see it
 * (`ClientInvoiceDocument`, client-invoice.document.ts): decimal strings as
 * the columns hold them, the tax breakdown and one allowance per (category,
 * rate) group the discount was spread over. Pure: the service loads, this maps.
 * An issued document is mapped from what the database keeps unchanged alone
 * (`issuedClientInvoiceDocument`), so its files never change.
 */
import { Prisma, type ClientInvoice, type ClientInvoiceLine } from '../../../generated/prisma/client.js';
import type {
  BuyerSnapshot,
  ClientInvoiceDocument,
  ClientInvoiceDocumentAllowance,
  ClientInvoiceDocumentTax,
  SellerSnapshot,
  TaxCategory,
} from './client-invoice.document.js';
import { daysBetweenColumns, dayText } from '../../../lib/day.js';

/** A tax group as the invoice's `taxes` column keeps it. */
export interface StoredTaxGroup {
  category: TaxCategory;
  rate: string;
  lineNet: string;
  allowance: string;
  basis: string;
  amount: string;
  exemptionReason: string | null;
}

export interface StoredClientInvoice {
  invoice: ClientInvoice;
  lines: readonly ClientInvoiceLine[];
  /** The invoice a credit note corrects. */
  creditNoteFor?: { number: string | null; issueDate: Date | null } | null;
  /** The billing profile's payment terms. */
  paymentTermsDays: number;
  /** The snapshots taken at issue (a draft: the seller and buyer as they are now). */
  seller: SellerSnapshot;
  buyer: BuyerSnapshot;
}

const day = (value: Date | null): string | null => (value ? dayText(value) : null);

/** The stored invoice as a `ClientInvoiceDocument`. */
export function toClientInvoiceDocument({ invoice, lines, creditNoteFor, paymentTermsDays, seller, buyer }: StoredClientInvoice): ClientInvoiceDocument {
  const groups = (invoice.taxes ?? []) as unknown as StoredTaxGroup[];
  const taxes: ClientInvoiceDocumentTax[] = groups.map((group) => ({
    category: group.category,
    rate: group.rate,
    basis: group.basis,
    amount: group.amount,
    exemptionReason: group.exemptionReason,
  }));
  const allowances: ClientInvoiceDocumentAllowance[] = groups
    .filter((group) => !new Prisma.Decimal(group.allowance).isZero())
    .map((group) => ({ amount: group.allowance, reason: invoice.discountReason ?? 'Discount', taxCategory: group.category, taxRate: group.rate }));
  return {
    id: invoice.id,
    type: invoice.type,
    status: invoice.status,
    number: invoice.number,
    creditNoteFor: creditNoteFor?.number ? { number: creditNoteFor.number, issueDate: day(creditNoteFor.issueDate) ?? '' } : null,
    currency: invoice.currency,
    issueDate: day(invoice.issueDate),
    dueDate: day(invoice.dueDate),
    periodFrom: day(invoice.periodFrom) ?? '',
    periodTo: day(invoice.periodTo) ?? '',
    buyerReference: invoice.buyerReference,
    notes: invoice.notes,
    paymentTermsDays,
    seller,
    buyer,
    lines: lines.map((line) => ({
      position: line.position,
      description: line.description,
      quantity: line.quantity.toFixed(4),
      unit: line.unit,
      baseQuantity: String(line.baseQuantity),
      unitPrice: line.unitPrice.toFixed(2),
      netAmount: line.netAmount.toFixed(2),
      taxCategory: line.taxCategory,
      taxRate: line.taxRate.toFixed(2),
    })),
    allowances,
    totals: {
      lineNet: invoice.lineNet.toFixed(2),
      allowances: invoice.allowances.toFixed(2),
      taxBasis: invoice.taxBasis.toFixed(2),
      taxes,
      tax: invoice.tax.toFixed(2),
      gross: invoice.gross.toFixed(2),
      paid: invoice.paid.toFixed(2),
      due: invoice.due.toFixed(2),
    },
  };
}

/**
 * An issued invoice or credit note as its files show it: the document as it was issued, from the columns and
 * snapshots the database keeps unchanged (migration 20261128171345_issued_documents_are_records) and nothing
 * else. Payments received since are not part of it (nothing paid, the gross due): the invoice's record shows
 * them, its files do not. The payment terms are the days from its issue date to its due date, not the billing
 * profile's terms of today.
 */
export function issuedClientInvoiceDocument({
  invoice,
  lines,
  creditNoteFor,
}: Omit<StoredClientInvoice, 'paymentTermsDays' | 'seller' | 'buyer'>): ClientInvoiceDocument {
  const { issueDate, dueDate } = invoice;
  return toClientInvoiceDocument({
    invoice: { ...invoice, paid: new Prisma.Decimal(0), due: invoice.gross },
    lines,
    creditNoteFor,
    paymentTermsDays: issueDate && dueDate ? daysBetweenColumns(issueDate, dueDate) : 0,
    seller: invoice.seller as unknown as SellerSnapshot,
    buyer: invoice.buyer as unknown as BuyerSnapshot,
  });
}
