/**
 * The rules of expenses that need no database: the approval state machine
 * (the entries' vocabulary, without reopen) and the money an expense derives
 * from its gross and tax rate.
 *
 *   draft --submit--> submitted --approve--> approved
 *     ^                         \--reject--> rejected
 *     \----------- edit -------------------/    (a rejected expense is submitted again)
 *
 * An expense on a client invoice is read-only (EXPENSE_INVOICED) until the
 * draft is deleted or the invoice voided.
 */
import type { ExpenseStatus } from '../../../generated/prisma/enums.js';
import { Prisma } from '../../../generated/prisma/client.js';
import { expenseConflicts } from './expense.dto.js';

const Decimal = Prisma.Decimal;
type Decimal = Prisma.Decimal;
type DecimalValue = Decimal | string | number;

export type ExpenseStep = 'submit' | 'approve' | 'reject';

const steps: Record<ExpenseStep, { from: readonly ExpenseStatus[]; to: ExpenseStatus; verb: string }> = {
  submit: { from: ['draft', 'rejected'], to: 'submitted', verb: 'submitted' },
  approve: { from: ['submitted'], to: 'approved', verb: 'approved' },
  reject: { from: ['submitted'], to: 'rejected', verb: 'rejected' },
};

/** The status a step moves an expense to, or 409 WRONG_STATUS naming what is possible. */
export function expenseTransition(status: ExpenseStatus, step: ExpenseStep): ExpenseStatus {
  const { from, to, verb } = steps[step];
  if (!from.includes(status)) throw expenseConflicts.refuse('WRONG_STATUS', `The expense is ${status}; only ${from.join(' or ')} expenses can be ${verb}`);
  return to;
}

/**
 * Whether a change is allowed, and the status it leaves: submitted and
 * approved expenses are their reviewers' to change (the status stays); the
 * owner changes a draft, or a rejected one, which becomes a draft again.
 */
export function expenseStatusAfterEdit(status: ExpenseStatus, editorReviews: boolean): ExpenseStatus {
  if (editorReviews) return status;
  if (status === 'approved') throw expenseConflicts.refuse('EXPENSE_APPROVED', 'The expense is approved; a manager or an admin may change it');
  if (status === 'submitted') throw expenseConflicts.refuse('EXPENSE_SUBMITTED', 'The expense is submitted and waits for review; it cannot be changed now');
  return 'draft';
}

/** Half-up to `digits` decimals. */
const scaled = (value: Decimal, digits: number): Decimal => value.toDecimalPlaces(digits, Decimal.ROUND_HALF_UP);

/**
 * Net and tax of a gross that includes tax at `rate` percent, at the
 * currency's `digits`: the net is rounded, the tax is what is left, so that
 * net + tax is the gross to the cent (119.00 at 19%: 100.00 and 19.00).
 */
export function netAndTax(gross: DecimalValue, rate: DecimalValue, digits: number): { netAmount: Decimal; taxAmount: Decimal } {
  const amount = new Decimal(gross);
  const netAmount = scaled(amount.mul(100).div(new Decimal(rate).add(100)), digits);
  return { netAmount, taxAmount: amount.sub(netAmount) };
}

/** What the client is billed for an expense: its net plus the markup, half-up to the currency's `digits` (100.00 at 10%: 110.00). */
export function billedNet(netAmount: DecimalValue, markupPercent: DecimalValue | null, digits: number): Decimal {
  const net = new Decimal(netAmount);
  return markupPercent === null ? scaled(net, digits) : scaled(net.mul(new Decimal(markupPercent).add(100)).div(100), digits);
}

/** The tax rate of a received invoice's amounts, in percent at 2 decimals (null without both). */
export function rateOf(netAmount: Decimal | null, taxAmount: Decimal | null): Decimal | null {
  if (netAmount === null || taxAmount === null || netAmount.isZero()) return null;
  return scaled(taxAmount.mul(100).div(netAmount), 2);
}
