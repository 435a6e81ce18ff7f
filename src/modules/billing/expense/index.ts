import { crud, steps } from '../../../rest/route.js';
import { defineModule } from '../../module.js';
import { expenseConflicts } from './expense.dto.js';
import { createExpenseService, type ExpenseService } from './expense.service.js';
import './expense.graphql.js';

const expenses = '/tenants/{tenantId}/expenses';

/** The irregular rows: a POST to `expenses/{expenseId}/<verb>`. */
const step = steps('expense', expenses, 'expenseId');

/** Expenses: what members spent, approved like entries and billed to clients (CONTRACT.md section 11). */
export const expenseModule = defineModule({
  name: 'expenses',
  createService: createExpenseService,
  tag: { name: 'Expenses', description: 'What members spent: approved like entries, billed on client invoices with a markup' },
  conflicts: expenseConflicts,
  routes: [
    ...crud(
      'expense',
      expenses,
      'expenseId',
      { one: 'expense', many: 'expenses' },
      {
        list: { field: 'Query.expenses', summary: 'List expenses, latest first (members: their own)' },
        create: { field: 'Mutation.createExpense', summary: 'Record an expense (a draft); net and tax are derived from the gross' },
        get: 'Query.expense',
        update: { field: 'Mutation.updateExpense', summary: 'Change an expense that is on no client invoice' },
        remove: { field: 'Mutation.deleteExpense', summary: 'Delete an expense that is on no client invoice' },
      },
    ),
    step('submit', 'Mutation.submitExpense', 'Submit a draft or rejected expense for approval'),
    step('approve', 'Mutation.approveExpense', 'Approve a submitted expense'),
    step('reject', 'Mutation.rejectExpense', 'Reject a submitted expense, with a reason'),
  ],
});

declare module '../../services.js' {
  interface Services {
    expenses: ExpenseService;
  }
}
