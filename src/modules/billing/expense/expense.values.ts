/**
 * What an expense's columns are made of: its project and client (the
 * project's client when it has one), its currency and its money at that
 * currency's scale, with a received invoice re-billed (its receipt) as the
 * default of what is not given. An expense recorded without an amount waits
 * for its receipt: its amount, rate and day stay null until the receipt is
 * read (from its XML at once, or by OCR later: expense.receipts.ts).
 */
import type { TenantAccess } from '../../../auth/tenant-access.js';
import type { Tx } from '../../../db/client.js';
import type { Expense, Invoice } from '../../../generated/prisma/client.js';
import { type FieldError, validationFailed } from '../../../lib/errors.js';
import { currencyOfSettings, isCurrencyCode, minorUnitsOf, moneyScaleErrors } from '../../../lib/money.js';
import { dayColumn, dayText } from '../../../lib/day.js';
import type { CreateExpense, UpdateExpense } from './expense.dto.js';
import { billedNet, netAndTax, rateOf } from './expense.rules.js';

/** The fields an expense's values are derived from, after a change is applied (null: none). */
export interface ExpenseShape {
  projectId: string | null;
  clientId: string | null;
  invoiceId: string | null;
  amount: string | null;
  currency: string | null;
  taxRate: string | null;
  date: string | null;
  description: string | null;
  billable: boolean;
  markupPercent: string | null;
}

/** The columns derived from a shape. */
export interface ExpenseValues {
  projectId: string | null;
  clientId: string | null;
  invoiceId: string | null;
  currency: string;
  amount: string | null;
  taxRate: string | null;
  netAmount: string | null;
  taxAmount: string | null;
  date: string | null;
  description: string;
  markupPercent: string | null;
  billedAmount: string | null;
}

/** A create as a shape: what is not given is null. */
export const shapeOfCreate = (input: CreateExpense): ExpenseShape => ({
  projectId: input.projectId ?? null,
  clientId: input.clientId ?? null,
  invoiceId: input.invoiceId ?? null,
  amount: input.amount ?? null,
  currency: input.currency ?? null,
  taxRate: input.taxRate ?? null,
  date: input.date ?? null,
  description: input.description ?? null,
  billable: input.billable,
  markupPercent: input.markupPercent ?? null,
});

/** An update applied to the stored expense as a shape; a project given without a client takes its own. */
export function shapeOfUpdate(existing: Expense, input: UpdateExpense, day: string | null): ExpenseShape {
  const pick = <T>(given: T | undefined, current: T): T => (given === undefined ? current : given);
  return {
    projectId: pick(input.projectId, existing.projectId),
    clientId: input.projectId !== undefined && input.clientId === undefined ? null : pick(input.clientId, existing.clientId),
    invoiceId: pick(input.invoiceId, existing.invoiceId),
    amount: input.amount ?? existing.amount?.toString() ?? null,
    currency: input.currency ?? existing.currency,
    taxRate: input.taxRate ?? existing.taxRate?.toString() ?? null,
    date: input.date ?? day,
    description: input.description ?? existing.description,
    billable: input.billable ?? existing.billable,
    markupPercent: pick(input.markupPercent, existing.markupPercent?.toString() ?? null),
  };
}

/**
 * A received invoice newly given as `invoiceId` must be one the caller may read (members: one they uploaded); once
 * linked, it stays the expense's whoever changes it later.
 */
export async function assertReadableInvoice(tx: Tx, access: TenantAccess, id: string | null | undefined): Promise<void> {
  if (!id) return;
  const found = await tx.invoice.findFirst({ where: { id, ...access.scope('read', 'Invoice') }, select: { id: true } });
  if (!found) throw validationFailed([{ path: 'invoiceId', message: 'is not a received invoice you may read' }]);
}

async function receivedInvoice(tx: Tx, access: TenantAccess, id: string): Promise<Invoice> {
  const invoice = await tx.invoice.findFirst({ where: { id, ...access.tenantWide('Invoice') } });
  if (!invoice) throw validationFailed([{ path: 'invoiceId', message: 'is not a received invoice of this tenant' }]);
  return invoice;
}

/**
 * The expense's columns: the project's client (a different clientId is
 * 400), the currency (given, the received invoice's, the client's, the
 * tenant's), a billable expense of a client in the client's currency, and
 * net and tax from the gross at the currency's scale (an amount with more
 * decimals than the currency has is 400 naming `amount`); without an amount
 * (given or the received invoice's) none of them, nor a default rate or day.
 */
export async function expenseValues(tx: Tx, access: TenantAccess, shape: ExpenseShape, today: string): Promise<ExpenseValues> {
  let clientId = shape.clientId;
  if (shape.projectId) {
    const project = await tx.project.findFirst({ where: { id: shape.projectId, ...access.tenantWide('Project') }, select: { clientId: true } });
    if (!project) throw validationFailed([{ path: 'projectId', message: 'is not a project of this tenant' }]);
    if (clientId !== null && project.clientId !== null && clientId !== project.clientId)
      throw validationFailed([{ path: 'clientId', message: "must be the project's client (or left out)" }]);
    clientId = project.clientId ?? clientId;
  }
  const client = clientId ? await tx.client.findFirst({ where: { id: clientId, ...access.tenantWide('Client') }, select: { currency: true } }) : null;
  if (clientId && !client) throw validationFailed([{ path: 'clientId', message: 'is not a client of this tenant' }]);
  const invoice = shape.invoiceId ? await receivedInvoice(tx, access, shape.invoiceId) : null;
  const currency = shape.currency ?? invoice?.currency ?? client?.currency ?? currencyOfSettings(access.tenant.settings);
  const problems: FieldError[] = [];
  if (!isCurrencyCode(currency)) problems.push({ path: 'currency', message: 'is not an ISO 4217 currency' });
  if (client && shape.billable && client.currency !== currency)
    problems.push({ path: 'currency', message: `must be the client's currency (${client.currency}) for a billable expense` });
  const amount = shape.amount ?? invoice?.totalAmount?.toString() ?? null;
  problems.push(...moneyScaleErrors(currency, { amount }));
  if (problems.length > 0) throw validationFailed(problems);
  // Without an amount, the expense waits for its receipt: the rate and the day come with it, unless given.
  const taxRate = shape.taxRate ?? rateOf(invoice?.netAmount ?? null, invoice?.taxAmount ?? null)?.toString() ?? (amount === null ? null : '0');
  const digits = minorUnitsOf(currency);
  const derived = amount !== null && taxRate !== null ? netAndTax(amount, taxRate, digits) : null;
  const day = shape.date ?? (invoice?.issueDate ? dayText(invoice.issueDate) : null) ?? (amount === null ? null : today);
  return {
    projectId: shape.projectId,
    clientId,
    invoiceId: shape.invoiceId,
    currency,
    amount,
    taxRate,
    netAmount: derived?.netAmount.toString() ?? null,
    taxAmount: derived?.taxAmount.toString() ?? null,
    markupPercent: shape.markupPercent,
    billedAmount: derived ? billedNet(derived.netAmount, shape.markupPercent, digits).toString() : null,
    date: day,
    description: shape.description ?? (invoice ? [invoice.vendorName, invoice.number].filter(Boolean).join(' ') || 'Received invoice' : ''),
  };
}

/** The columns of derived values (the day as a date column). */
export const expenseColumns = ({ date, ...values }: ExpenseValues) => ({ ...values, date: date === null ? null : dayColumn(date) });
