/** What the expenses API takes (CONTRACT.md section 11, "Expenses"): the inputs of REST and GraphQL alike, the list filters, why writes are refused. */
import { z } from 'zod';
import type { PrismaPageQuery, PrismaQuery } from '../../../db/query.js';
import type { Prisma } from '../../../generated/prisma/client.js';
import { ExpenseStatus } from '../../../generated/prisma/enums.js';
import { args, dto, fields, pagination } from '../../../lib/dto.js';
import { conflictReasons } from '../../../lib/errors.js';
import { defineEnum } from '../../../lib/vocabulary.js';

export const expenseStatus = defineEnum('ExpenseStatus', ExpenseStatus, 'draft, submitted, approved or rejected (as entries)');

/** Why a write to an expense is refused with 409. */
export const expenseConflicts = conflictReasons('Expense', {
  EXPENSE_INVOICED: {
    code: 'INVALID_STATE',
    description: 'The expense is billed on a client invoice (draft included) and read-only; delete the draft or void the invoice to release it',
  },
  EXPENSE_APPROVED: { code: 'INVALID_STATE', description: 'The expense is approved; only a reviewer (a manager or an admin) changes it now' },
  EXPENSE_SUBMITTED: { code: 'INVALID_STATE', description: 'The expense is submitted and waits for review; its owner cannot change it now' },
  WRONG_STATUS: {
    code: 'INVALID_STATE',
    description: 'The step needs another status (submit a draft or a rejected expense, approve or reject a submitted one)',
  },
});

const text = (max: number, description: string) => z.string().trim().min(1).max(max).describe(description);
const amount = fields.money("Gross, as paid, in the expense's currency (at most its decimals)", { min: 0, max: 1_000_000_000 });
const taxRate = fields.percent('Tax rate in percent included in the gross (0 to 100, at most 2 decimals)', { min: 0, max: 100 });
const markupPercent = fields.percent('Percent added to the net when it is billed to the client (0 to 1000)', { min: 0, max: 1000 });
const currency = z
  .string()
  .trim()
  .regex(/^[A-Z]{3}$/, 'must be an ISO 4217 code like EUR')
  .describe("ISO 4217; default: the received invoice's, else the client's, else the tenant's");

export const CreateExpenseDto = dto('CreateExpenseDto', 'An expense: what was spent, gross, and whether it is billed to a client.', {
  date: fields.date("The day it was spent; default: the received invoice's issue date, else today (with an amount) or its receipt's").optional(),
  projectId: fields.id('The project it was spent for; its client is the expense’s').optional(),
  clientId: fields.id('The client billed, when there is no project').optional(),
  tenantUserId: fields.id('Whose expense it is (managers, admins and API keys); default: the caller').optional(),
  category: text(100, 'A free category, e.g. travel, lodging, licence'),
  description: text(1000, 'What it was').optional(),
  amount: amount
    .optional()
    .describe("Gross, as paid, at most the currency's decimals; default: the received invoice's total; without either, its receipt's (POST .../receipt)"),
  currency: currency.optional(),
  taxRate: taxRate.optional().describe("Tax rate in percent included in the gross; default: the received invoice's, else 0 (with an amount) or its receipt's"),
  billable: z.boolean().default(true).describe('Billed to the client once approved; default true'),
  markupPercent: markupPercent.optional(),
  invoiceId: fields.id('A received invoice this expense re-bills (its amounts are the default)').optional(),
});

export const UpdateExpenseDto = dto('UpdateExpenseDto', 'Changes to an expense; null clears a field.', {
  date: fields.date('The day it was spent').optional(),
  projectId: fields.id('The project').nullable().optional(),
  clientId: fields.id('The client billed, when there is no project').nullable().optional(),
  category: text(100, 'The category').optional(),
  description: text(1000, 'What it was').optional(),
  amount: amount.optional(),
  currency: currency.optional(),
  taxRate: taxRate.optional(),
  billable: z.boolean().optional(),
  markupPercent: markupPercent.nullable().optional(),
  invoiceId: fields.id('A received invoice re-billed').nullable().optional(),
});

export const RejectExpenseDto = dto('RejectExpenseDto', 'Why the expense is rejected; its owner sees it.', {
  reason: z.string().trim().min(1).max(2000).describe('Why'),
});

const tenantId = fields.id('Tenant id');
const expenseId = fields.id('Expense id');
const filters = {
  from: fields.date('Expenses on or after this day').optional(),
  to: fields.date('Expenses on or before this day').optional(),
  tenantUserId: fields.id("Only this member's expenses").optional(),
  projectId: fields.id('Only expenses of this project').optional(),
  clientId: fields.id('Only expenses of this client').optional(),
  status: expenseStatus.schema('Only expenses with this status').optional(),
  category: z.string().trim().min(1).max(100).describe('Only expenses of this category').optional(),
};
export const ExpenseFilterDto = dto('ExpenseFilter', 'Which expenses.', filters);
export const ListExpensesArgs = args({ tenantId, ...filters, ...pagination });
export const ExpensesConnectionArgs = args({ tenantId, filter: ExpenseFilterDto.optional() });
export const ExpenseArgs = args({ tenantId, id: expenseId });
export const CreateExpenseArgs = args({ tenantId, input: CreateExpenseDto });
export const UpdateExpenseArgs = args({ tenantId, id: expenseId, input: UpdateExpenseDto });
export const RejectExpenseArgs = args({ tenantId, id: expenseId, input: RejectExpenseDto });

export type ExpenseQuery = PrismaQuery<Prisma.ExpenseInclude, Prisma.ExpenseSelect>;
export type ExpensePageQuery = PrismaPageQuery<Prisma.ExpenseInclude, Prisma.ExpenseWhereUniqueInput>;
export type ExpenseFilter = z.output<typeof ExpenseFilterDto>;
export type CreateExpense = z.output<typeof CreateExpenseDto>;
export type UpdateExpense = z.output<typeof UpdateExpenseDto>;

/** Expenses are listed by their day, latest first, on the (tenantId, <filter>, date, id) indexes. */
export const expenseOrder: Prisma.ExpenseOrderByWithRelationInput[] = [{ date: 'desc' }, { id: 'desc' }];
