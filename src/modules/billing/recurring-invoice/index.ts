import { crud } from '../../../rest/route.js';
import { defineModule, job, type JobContext } from '../../module.js';
import { recurringInvoiceRunQueue } from './recurring-invoice.jobs.js';
import { createRecurringInvoiceService, type RecurringInvoiceService } from './recurring-invoice.service.js';
import { createRecurringInvoiceWork, type RecurringInvoiceWork } from './recurring-invoice.work.js';
import './recurring-invoice.graphql.js';

/** Recurring invoices: plans that make a client invoice every month, quarter or year (CONTRACT.md section 11). */
export const recurringInvoiceModule = defineModule({
  name: 'recurringInvoices',
  createService: createRecurringInvoiceService,
  tag: { name: 'RecurringInvoices', description: 'Client invoices made every month, quarter or year, once per period, issued and sent if asked' },
  routes: [
    ...crud(
      'recurringInvoice',
      '/tenants/{tenantId}/recurring-invoices',
      'recurringInvoiceId',
      { one: 'recurring invoice', many: 'recurring invoices' },
      {
        list: { field: 'Query.recurringInvoices', summary: 'List recurring invoices, newest first (clientId)' },
        get: 'Query.recurringInvoice',
        create: { field: 'Mutation.createRecurringInvoice', summary: 'Create a plan that makes a client invoice every period' },
        update: { field: 'Mutation.updateRecurringInvoice', summary: 'Change a plan (the periods invoiced stay)' },
        remove: { field: 'Mutation.deleteRecurringInvoice', summary: 'Delete a plan (its invoices stay)' },
      },
    ),
  ],
  createWork: createRecurringInvoiceWork,
  jobs: [
    job(recurringInvoiceRunQueue, async (_data, { work, log }: JobContext<RecurringInvoiceWork>) => {
      await work.runDue(log);
    }),
  ],
  schedules: [{ queue: recurringInvoiceRunQueue, cron: '7 * * * *', onStart: true }],
});

declare module '../../services.js' {
  interface Services {
    recurringInvoices: RecurringInvoiceService;
  }
}
