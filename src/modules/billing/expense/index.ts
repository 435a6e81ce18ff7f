import { z } from 'zod';
import { fields } from '../../../lib/dto.js';
import { validationFailed } from '../../../lib/errors.js';
import { crud, nativeRoute, steps } from '../../../rest/route.js';
import { invoiceFileBody } from '../../inbox/received-invoice/received-invoice.upload.js';
import { defineModule } from '../../module.js';
import { expenseConflicts } from './expense.dto.js';
import { createExpenseWork } from './expense.receipts.js';
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
    nativeRoute({
      controller: 'expense',
      action: 'receipt',
      method: 'POST',
      path: `${expenses}/{expenseId}/receipt`,
      summary: 'Upload the receipt of an expense: read from its XML, or by OCR; it fills the amount, rate and day the expense lacks',
      description:
        'The receipt is taken as a received invoice is (POST .../invoices/upload: the same types, limits and reader) and becomes the ' +
        "expense's `invoiceId`; its file is `invoices/{invoiceId}/file`. An e-invoice (XML, or a PDF carrying one) is read at once: the " +
        'amount, tax rate and day the expense was recorded without are filled in the answer. Any other file is read by OCR in the ' +
        'background, and fills them when it is done (`expense.updated`). An expense on a client invoice is 409 EXPENSE_INVOICED.',
      access: ['update', 'Expense'],
      parameters: z.strictObject({ tenantId: fields.id('Tenant id'), expenseId: fields.id('Expense id') }),
      body: invoiceFileBody(z.strictObject({}), 'The receipt: PDF, PNG, JPEG, TIFF or WebP (at most 20 MiB), or an EN 16931 XML e-invoice (at most 5 MiB)'),
      responses: { '200': { description: 'The expense with its receipt', graphqlType: 'Expense' } },
      async handler({ upload, access, context, parameters, respond }) {
        if (!upload?.file) throw validationFailed([{ path: 'file', message: 'is required: send the receipt as the multipart field "file"' }]);
        const { expenses, invoices } = context.services;
        // Refused before the file is kept: a locked expense leaves no received invoice (nor a staged file) behind.
        await expenses.assertTakesReceipt(access, parameters.expenseId).catch(async (error: unknown) => {
          await upload.file?.staged.discard();
          throw error;
        });
        const receipt = await invoices.fromFile(access, upload.file, {});
        return respond('Expense', await expenses.attachReceipt(access, parameters.expenseId, receipt.id), 200);
      },
    }),
  ],
  createWork: createExpenseWork,
  reactsToEvents: (work, tx, events) => work.fillFromReceipts(tx, events),
});

declare module '../../services.js' {
  interface Services {
    expenses: ExpenseService;
  }
}
