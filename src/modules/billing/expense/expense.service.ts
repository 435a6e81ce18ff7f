import type { z } from 'zod';
import type { TenantAccess } from '../../../auth/tenant-access.js';
import type { Db, Tx } from '../../../db/client.js';
import type { Reads } from '../../../db/replicas.js';
import { shapesResult } from '../../../db/query.js';
import { recordEvent, withDays, type EventType } from '../../../events/outbox.js';
import type { Expense, Prisma } from '../../../generated/prisma/client.js';
import type { Clock } from '../../../lib/clock.js';
import { dayColumn, dayText } from '../../../lib/day.js';
import { notFound, validationFailed } from '../../../lib/errors.js';
import { startOfDay } from '../../../lib/time.js';
import { settingsFor } from '../../platform/tenant/tenant.settings.js';
import { recordBudgetCrossings } from '../../tracking/project/project.budget.js';
import { activeMember } from '../../platform/user/user.members.js';
import {
  expenseConflicts,
  expenseOrder,
  type CreateExpense,
  type ExpenseFilter,
  type ExpensePageQuery,
  type ExpenseQuery,
  type ListExpensesArgs,
  type UpdateExpense,
} from './expense.dto.js';
import { expenseStatusAfterEdit, expenseTransition, type ExpenseStep } from './expense.rules.js';
import { assertReadableInvoice, expenseColumns, expenseValues, shapeOfCreate, shapeOfUpdate } from './expense.values.js';

const stepEvents = { submit: 'expense.submitted', approve: 'expense.approved', reject: 'expense.rejected' } as const satisfies Record<ExpenseStep, EventType>;

/**
 * Expenses: members record their own, submit them, and managers (not on
 * their own) and admins approve or reject them, as entries. Approved billable
 * expenses of a client become lines of its invoices (client-invoice.expenses.ts);
 * one on an invoice is read-only (409 EXPENSE_INVOICED) until the draft is
 * deleted or the invoice voided.
 */
export function createExpenseService({ db, reads, clock }: { db: Db; reads: Reads; clock: Clock }) {
  function whereOf(access: TenantAccess, filter: ExpenseFilter | undefined): Prisma.ExpenseWhereInput {
    const visible = access.scope('read', 'Expense');
    if (!filter) return visible;
    return {
      AND: [
        ...(filter.tenantUserId ? [{ tenantUserId: filter.tenantUserId }] : []),
        ...(filter.status ? [{ status: filter.status }] : []),
        ...(filter.projectId ? [{ projectId: filter.projectId }] : []),
        ...(filter.clientId ? [{ clientId: filter.clientId }] : []),
        ...(filter.category ? [{ category: filter.category }] : []),
        ...(filter.from ? [{ date: { gte: dayColumn(filter.from) } }] : []),
        ...(filter.to ? [{ date: { lte: dayColumn(filter.to) } }] : []),
      ],
      ...visible,
    };
  }

  /**
   * An expense about to change, row-locked for the rest of `tx`: one on a
   * client invoice is read-only (409 EXPENSE_INVOICED). The lock orders the
   * change with an invoice claiming it at the same time.
   */
  async function findChangeable(tx: Tx, access: TenantAccess, id: string): Promise<Expense> {
    const expense = await tx.expense.findFirst({ where: { id, ...access.scope('read', 'Expense') } });
    if (!expense) throw notFound('Expense', id);
    const [locked] = await tx.$queryRaw<{ clientInvoiceId: string | null }[]>`SELECT "clientInvoiceId" FROM expenses WHERE id = ${id} FOR UPDATE`;
    if (locked?.clientInvoiceId) {
      throw expenseConflicts.refuse(
        'EXPENSE_INVOICED',
        `The expense is billed on client invoice ${locked.clientInvoiceId}; delete the draft or void the invoice to change it`,
      );
    }
    return { ...expense, clientInvoiceId: locked?.clientInvoiceId ?? null };
  }

  /** A submitted expense has its amount, rate and day (one recorded without them waits for its receipt, or for them). */
  function assertComplete(expense: Expense): void {
    const missing = (['amount', 'taxRate', 'date'] as const).filter((field) => expense[field] === null);
    if (missing.length > 0)
      throw validationFailed(missing.map((path) => ({ path, message: 'is required before the expense is submitted (its receipt may not be read yet)' })));
  }

  /** Its events, with the day as the API shows it. */
  const record = (tx: Tx, access: TenantAccess, type: EventType, expense: Expense) =>
    recordEvent(tx, access, { type, subjectId: expense.id, data: withDays(expense, ['date']) });

  const reread = (tx: Tx, id: string, query: ExpenseQuery, row: Expense) =>
    shapesResult(query) ? tx.expense.findUniqueOrThrow({ ...query, where: { id } }) : row;

  const today = async (tx: Tx, access: TenantAccess) => clock.today((await settingsFor(tx, access)).timezone);

  /** After a write: the budget thresholds the expenses' projects have reached (`project.budget_reached`), as after an entry's. */
  async function budgets(tx: Tx, access: TenantAccess, ...expenses: Expense[]): Promise<void> {
    const { timezone } = await settingsFor(tx, access);
    const touched = expenses.flatMap((expense) =>
      expense.projectId && expense.date ? [{ projectId: expense.projectId, startedAt: startOfDay(dayText(expense.date), timezone) }] : [],
    );
    if (touched.length > 0) await recordBudgetCrossings(tx, access, timezone, touched);
  }

  /** One review step with its checks and event: submitting is an update of one's own expense; approving and rejecting are approvals. */
  async function review(access: TenantAccess, id: string, step: ExpenseStep, query: ExpenseQuery, reason?: string): Promise<Expense> {
    return db.$transaction(async (tx) => {
      const expense = await findChangeable(tx, access, id);
      access.assertMayChange(step === 'submit' ? 'update' : 'approve', 'Expense', expense, step);
      const status = expenseTransition(expense.status, step);
      if (step === 'submit') assertComplete(expense);
      const now = clock.now();
      const reviewed =
        step === 'submit'
          ? { submittedAt: now, reviewedById: null, reviewedAt: null, rejectionReason: null }
          : { reviewedById: access.tenantUserId, reviewedAt: now, rejectionReason: step === 'reject' ? (reason ?? null) : null };
      const updated = await tx.expense.update({ where: { id }, data: { status, ...reviewed } });
      await record(tx, access, stepEvents[step], updated);
      return reread(tx, id, query, updated);
    });
  }

  return {
    /** The expenses the caller may read (members: their own), latest first. */
    async list(
      access: TenantAccess,
      { limit, offset, tenantId: _tenant, ...filter }: z.output<typeof ListExpensesArgs>,
      query: ExpenseQuery = {},
    ): Promise<Expense[]> {
      return reads.run(access, ({ db }) => db.expense.findMany({ ...query, where: whereOf(access, filter), orderBy: expenseOrder, take: limit, skip: offset }));
    },

    /** A page of expenses for a Relay connection. */
    async page(access: TenantAccess, filter: ExpenseFilter | undefined, query: ExpensePageQuery): Promise<Expense[]> {
      return reads.run(access, ({ db }) => db.expense.findMany({ ...query, where: whereOf(access, filter), orderBy: expenseOrder }));
    },

    /** One expense the caller may read (another member's is a 404 to members). */
    async get(access: TenantAccess, id: string, query: ExpenseQuery = {}): Promise<Expense> {
      const expense = await db.expense.findFirst({ ...query, where: { id, ...access.scope('read', 'Expense') } });
      if (!expense) throw notFound('Expense', id);
      return expense;
    },

    /** Records an expense as a draft (for the caller; managers, admins and API keys for anyone); records `expense.created`. */
    async create(access: TenantAccess, input: CreateExpense, query: ExpenseQuery = {}): Promise<Expense> {
      access.assert('create', 'Expense');
      const owner = input.tenantUserId ?? access.tenantUserId;
      if (owner === null) throw validationFailed([{ path: 'tenantUserId', message: 'is required: an API key has no expenses of its own' }]);
      access.assertMayChange('create', 'Expense', { tenantUserId: owner });
      return db.$transaction(async (tx) => {
        await activeMember(tx, access, owner, 'tenantUserId');
        await assertReadableInvoice(tx, access, input.invoiceId);
        const values = await expenseValues(tx, access, shapeOfCreate(input), await today(tx, access));
        const expense = await tx.expense.create({
          data: access.stamp({
            tenantUserId: owner,
            category: input.category,
            billable: input.billable,
            ...expenseColumns(values),
          }),
        });
        await record(tx, access, 'expense.created', expense);
        await budgets(tx, access, expense);
        return reread(tx, expense.id, query, expense);
      });
    },

    /**
     * Changes an expense that is on no client invoice: members their own
     * drafts and rejected ones (a rejected one becomes a draft), reviewers
     * any; records `expense.updated`.
     */
    async update(access: TenantAccess, id: string, input: UpdateExpense, query: ExpenseQuery = {}): Promise<Expense> {
      return db.$transaction(async (tx) => {
        const existing = await findChangeable(tx, access, id);
        access.assertMayChange('update', 'Expense', existing);
        const status = expenseStatusAfterEdit(existing.status, access.canAny('update', 'Expense'));
        if (input.invoiceId !== existing.invoiceId) await assertReadableInvoice(tx, access, input.invoiceId);
        const values = await expenseValues(tx, access, shapeOfUpdate(existing, input, existing.date && dayText(existing.date)), await today(tx, access));
        const updated = await tx.expense.update({
          where: { id },
          data: {
            status,
            ...(input.category === undefined ? {} : { category: input.category }),
            ...(input.billable === undefined ? {} : { billable: input.billable }),
            ...expenseColumns(values),
          },
        });
        await record(tx, access, 'expense.updated', updated);
        await budgets(tx, access, updated);
        return reread(tx, id, query, updated);
      });
    },

    /** Deletes an expense that is on no client invoice (members: their own drafts and rejected ones); records `expense.deleted`. */
    async remove(access: TenantAccess, id: string, query: ExpenseQuery = {}): Promise<Expense> {
      return db.$transaction(async (tx) => {
        const existing = await findChangeable(tx, access, id);
        access.assertMayChange('delete', 'Expense', existing);
        expenseStatusAfterEdit(existing.status, access.canAny('update', 'Expense'));
        const deleted = await tx.expense.delete({ ...query, where: { id } });
        await record(tx, access, 'expense.deleted', existing);
        return deleted;
      });
    },

    /** Refuses a receipt the expense would not take (another's, invoiced, approved for its owner) before its file is stored. */
    async assertTakesReceipt(access: TenantAccess, id: string): Promise<void> {
      await db.$transaction(async (tx) => {
        const existing = await findChangeable(tx, access, id);
        access.assertMayChange('update', 'Expense', existing);
        expenseStatusAfterEdit(existing.status, access.canAny('update', 'Expense'));
      });
    },

    /**
     * Links an uploaded receipt (a received invoice) to the expense and fills
     * what the expense lacks from it (amount, rate, day); what OCR reads later
     * fills them then (expense.receipts.ts). Records `expense.updated`.
     */
    async attachReceipt(access: TenantAccess, id: string, invoiceId: string, query: ExpenseQuery = {}): Promise<Expense> {
      return db.$transaction(async (tx) => {
        const existing = await findChangeable(tx, access, id);
        access.assertMayChange('update', 'Expense', existing);
        const status = expenseStatusAfterEdit(existing.status, access.canAny('update', 'Expense'));
        // OCR finishing now waits for the link, so that its event finds this expense; or it finished, and its fields are read here.
        await tx.$queryRaw`SELECT id FROM invoices WHERE id = ${invoiceId} FOR UPDATE`;
        const shape = shapeOfUpdate(existing, { invoiceId }, existing.date && dayText(existing.date));
        const values = await expenseValues(tx, access, shape, await today(tx, access));
        const updated = await tx.expense.update({ where: { id }, data: { status, ...expenseColumns(values) } });
        await record(tx, access, 'expense.updated', updated);
        await budgets(tx, access, updated);
        return reread(tx, id, query, updated);
      });
    },

    /** draft or rejected -> submitted; records `expense.submitted`. */
    submit: (access: TenantAccess, id: string, query: ExpenseQuery = {}) => review(access, id, 'submit', query),
    /** submitted -> approved, by a reviewer (a manager not on their own expense); records `expense.approved`. */
    approve: (access: TenantAccess, id: string, query: ExpenseQuery = {}) => review(access, id, 'approve', query),
    /** submitted -> rejected with a reason; records `expense.rejected`. */
    reject: (access: TenantAccess, id: string, input: { reason: string }, query: ExpenseQuery = {}) => review(access, id, 'reject', query, input.reason),
  };
}

export type ExpenseService = ReturnType<typeof createExpenseService>;
