import { builder } from '../../../graphql/builder.js';
import { graphqlEnum } from '../../../graphql/inputs.js';
import { optionalMoneyField, optionalPercentField } from '../../../graphql/money.js';
import { rateField } from '../../../graphql/rates.js';
import { resourceFields, step } from '../../../graphql/resource-fields.js';
import type { Expense } from '../../../generated/prisma/client.js';
import {
  CreateExpenseArgs,
  ExpenseArgs,
  ExpensesConnectionArgs,
  expenseStatus,
  ListExpensesArgs,
  RejectExpenseArgs,
  UpdateExpenseArgs,
} from './expense.dto.js';

const currencyOf = (expense: Expense) => expense.currency;

builder.prismaObject('Expense', {
  description: 'What a member spent, gross in its currency; net and tax are derived. Approved billable expenses of a client are billed on its invoices.',
  fields: (t) => ({
    id: t.exposeID('id'),
    tenantId: t.exposeID('tenantId'),
    tenantUserId: t.exposeID('tenantUserId', { description: 'Whose expense it is' }),
    date: t.expose('date', { type: 'Date', nullable: true, description: 'The day it was spent (null while its receipt is read)' }),
    projectId: t.exposeID('projectId', { nullable: true }),
    clientId: t.exposeID('clientId', { nullable: true, description: "The client billed: the project's, or given" }),
    category: t.exposeString('category'),
    description: t.exposeString('description'),
    amount: t.field(optionalMoneyField<Expense>('Gross, as paid (null while its receipt is read)', (expense) => expense.amount, currencyOf)),
    netAmount: t.field(
      optionalMoneyField<Expense>("amount / (1 + taxRate / 100), half-up to the currency's minor units", (expense) => expense.netAmount, currencyOf),
    ),
    taxAmount: t.field(optionalMoneyField<Expense>('amount - netAmount', (expense) => expense.taxAmount, currencyOf)),
    currency: t.exposeString('currency', { description: 'ISO 4217' }),
    taxRate: t.field(optionalPercentField<Expense>('Percent included in the gross (null while its receipt is read)', (expense) => expense.taxRate)),
    billable: t.exposeBoolean('billable'),
    markupPercent: t.field(optionalPercentField<Expense>('Added to the net when billed', (expense) => expense.markupPercent)),
    billedAmount: t.field(
      rateField<'billedAmount', Expense>('billedAmount', 'netAmount plus markupPercent: what its invoice line bills and its project budget spends.'),
    ),
    invoiceId: t.exposeID('invoiceId', {
      nullable: true,
      description: 'The received invoice it re-bills: its receipt (uploaded to expenses/{id}/receipt, or picked); its file is invoices/{invoiceId}/file',
    }),
    clientInvoiceId: t.exposeID('clientInvoiceId', {
      nullable: true,
      description: 'The client invoice (draft or live) it is billed on; while set, the expense is read-only',
    }),
    status: t.expose('status', { type: graphqlEnum(expenseStatus) }),
    submittedAt: t.expose('submittedAt', { type: 'DateTime', nullable: true }),
    reviewedById: t.exposeID('reviewedById', { nullable: true, description: 'The tenantUserId who approved or rejected it' }),
    reviewedAt: t.expose('reviewedAt', { type: 'DateTime', nullable: true }),
    rejectionReason: t.exposeString('rejectionReason', { nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

resourceFields('Expense', {
  subject: 'Expense',
  service: (services) => services.expenses,
  queries: {
    expenses: { list: ListExpensesArgs, description: 'The expenses the caller may read (members: their own), latest first.' },
    expensesConnection: { connection: ExpensesConnectionArgs, description: 'The expenses the caller may read, as a Relay connection.' },
    expense: { get: ExpenseArgs, description: 'One expense (members: their own).' },
  },
  mutations: {
    createExpense: { create: CreateExpenseArgs, description: 'Records an expense as a draft; net and tax are derived from the gross.' },
    updateExpense: { update: UpdateExpenseArgs, description: 'Changes an expense that is on no client invoice.' },
    deleteExpense: { remove: ExpenseArgs, description: 'Deletes an expense that is on no client invoice. GraphQL returns the deleted expense.' },
    submitExpense: step(ExpenseArgs, 'submit', 'Submits a draft or rejected expense for approval.'),
    approveExpense: step(ExpenseArgs, 'approve', 'Approves a submitted expense; managers do not approve their own.', 'approve'),
    rejectExpense: step(RejectExpenseArgs, 'reject', 'Rejects a submitted expense with a reason.', 'approve'),
  },
});
