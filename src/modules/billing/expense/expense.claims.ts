/**
 * How client invoices take expenses and give them back: the link lives on
 * the expense (`clientInvoiceId`), so an issued invoice's row never changes
 * for it, and an expense with a link is read-only (EXPENSE_INVOICED).
 */
import type { TenantAccess } from '../../../auth/tenant-access.js';
import type { Tx } from '../../../db/client.js';
import type { Prisma } from '../../../generated/prisma/client.js';
import { dayColumn } from '../../../lib/day.js';

/** An expense as the claim returns it. */
export interface ClaimedExpense {
  id: string;
  date: Date;
  category: string;
  description: string;
  projectId: string | null;
  tenantUserId: string;
  /** Net plus markup: what its line bills. */
  billedAmount: Prisma.Decimal;
  taxRate: Prisma.Decimal;
}

export interface ExpenseClaimScope {
  invoiceId: string;
  clientId: string;
  currency: string;
  periodFrom: string;
  periodTo: string;
  projectIds?: readonly string[] | undefined;
}

/**
 * Takes the client's expenses for the invoice in one statement: approved,
 * billable, of a day in the period, in the invoice's currency, and on no
 * invoice. Rows are locked in id order, as entries are: two drafts made at
 * once never share an expense (the second finds the link set and skips it),
 * and an edit waits for the claim or the claim for the edit.
 */
export async function claimExpenses(tx: Tx, access: TenantAccess, scope: ExpenseClaimScope): Promise<ClaimedExpense[]> {
  const values: unknown[] = [scope.invoiceId, scope.clientId, dayColumn(scope.periodFrom), dayColumn(scope.periodTo), scope.currency];
  const bind = (value: unknown) => `$${values.push(value)}`;
  const tenant = access.sqlTenantWide('Expense', 'c', bind);
  const projects = scope.projectIds ? `AND c."projectId" = ANY(${bind(scope.projectIds)}::text[])` : '';
  return tx.$queryRawUnsafe<ClaimedExpense[]>(
    `UPDATE expenses e SET "clientInvoiceId" = $1
      WHERE e.id IN (
        SELECT c.id FROM expenses c
         WHERE ${tenant} AND c."clientId" = $2 ${projects}
           AND c.status = 'approved' AND c.billable
           AND c.date >= $3 AND c.date <= $4 AND c.currency = $5
           AND c."clientInvoiceId" IS NULL
         ORDER BY c.id
         FOR UPDATE)
      RETURNING e.id, e.date, e.category, e.description, e."projectId", e."tenantUserId", e."billedAmount", e."taxRate"`,
    ...values,
  );
}

/** Frees the expenses of an invoice (a deleted draft, a voided invoice): they may be billed again. */
export async function releaseExpenses(tx: Tx, access: TenantAccess, invoiceId: string): Promise<void> {
  await tx.expense.updateMany({ where: { clientInvoiceId: invoiceId, ...access.tenantWide('Expense') }, data: { clientInvoiceId: null } });
}
