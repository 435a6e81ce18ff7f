/**
 * How claimed expenses become invoice lines: at their billed amount (net
 * plus markup, expense.rules.ts, stored with the expense), at their own tax rate, one line per expense or per
 * category and rate. Each line is one unit at its amount, so that net =
 * round(quantity x price / base quantity) holds exactly in every format.
 */
import { Prisma } from '../../../generated/prisma/client.js';
import { dayText } from '../../../lib/day.js';
import type { BillingProfileView } from '../billing-profile/billing-profile.service.js';
import type { ClaimedExpense } from '../expense/expense.claims.js';
import type { ExpenseGrouping } from './client-invoice.dto.js';
import { type ClientTax, type LineTax, type LineValues, lineTax } from './client-invoice.lines.js';

const Decimal = Prisma.Decimal;

/**
 * An expense line's tax: its own rate as category S where the client is
 * billed standard-rated, Z (zero-rated) for an expense without tax; where
 * the client or the seller bills no VAT (reverse charge, exports, a small
 * business), the invoice's category at 0, as its other lines.
 */
function expenseTax(profile: BillingProfileView, client: ClientTax, rate: Prisma.Decimal): LineTax {
  const category = client.taxCategory ?? profile.defaultTaxCategory;
  if (profile.smallBusiness || category !== 'S') return lineTax(profile, client, {}, 'clientId');
  return lineTax(profile, client, rate.isZero() ? { taxCategory: 'Z', taxRate: '0' } : { taxCategory: 'S', taxRate: rate.toString() }, 'clientId');
}

interface Group {
  description: string;
  net: Prisma.Decimal;
  count: number;
  tax: LineTax;
  first: ClaimedExpense;
  sameProject: boolean;
  sameMember: boolean;
}

/** The lines of `expenses`, numbered after `after`, in the order of their days. */
export function expenseLines(
  expenses: readonly ClaimedExpense[],
  grouping: ExpenseGrouping,
  profile: BillingProfileView,
  client: ClientTax,
  after: number,
): LineValues[] {
  const sorted = [...expenses].sort((a, b) => a.date.getTime() - b.date.getTime() || a.id.localeCompare(b.id));
  const groups = new Map<string, Group>();
  for (const expense of sorted) {
    const tax = expenseTax(profile, client, new Decimal(expense.taxRate));
    const net = new Decimal(expense.billedAmount);
    const key = grouping === 'category' ? `${expense.category}|${tax.taxCategory}|${tax.taxRate.toFixed(2)}` : expense.id;
    const group = groups.get(key);
    if (group) {
      group.net = group.net.add(net);
      group.count += 1;
      group.sameProject &&= group.first.projectId === expense.projectId;
      group.sameMember &&= group.first.tenantUserId === expense.tenantUserId;
      continue;
    }
    const description =
      grouping === 'category' ? expense.category : `${dayText(expense.date)} ${expense.category}${expense.description ? `: ${expense.description}` : ''}`;
    groups.set(key, { description, net, count: 1, tax, first: expense, sameProject: true, sameMember: true });
  }
  return [...groups.values()].map((group, index) => ({
    position: after + index + 1,
    description: grouping === 'category' && group.count > 1 ? `${group.description} (${group.count} expenses)` : group.description,
    quantity: new Decimal(1),
    unit: 'C62',
    baseQuantity: 1,
    unitPrice: group.net,
    netAmount: group.net,
    ...group.tax,
    projectId: group.sameProject ? group.first.projectId : null,
    taskId: null,
    tenantUserId: group.sameMember ? group.first.tenantUserId : null,
    entryCount: 0,
    source: 'expense',
  }));
}
