import { crud, plainRead, steps } from '../../../rest/route.js';
import { defineModule, job, type JobContext } from '../../module.js';
import { createClientInvoiceMailWork, type ClientInvoiceMailWork } from './client-invoice.mail.js';
import { abandonedMailQueue, clientInvoiceMailQueue } from './client-invoice.send.js';
import { clientInvoiceConflicts, ListClientInvoicesArgs } from './client-invoice.dto.js';
import { plainClientInvoiceList } from './client-invoice.plain.js';
import { clientInvoiceFileRoutes } from './client-invoice.files.js';
import { createClientInvoiceService, type ClientInvoiceService } from './client-invoice.service.js';
import './client-invoice.graphql.js';
import './client-invoice.files.graphql.js';

const clientInvoices = '/tenants/{tenantId}/client-invoices';

/** The irregular rows: a POST to `client-invoices/{clientInvoiceId}/<verb>`. */
const step = steps('clientInvoice', clientInvoices, 'clientInvoiceId');

/** Client invoices: what a tenant bills its clients, from tracked time (CONTRACT.md section 9). */
export const clientInvoiceModule = defineModule({
  name: 'clientInvoices',
  createService: createClientInvoiceService,
  tag: { name: 'ClientInvoices', description: 'Invoices to clients from approved time: gapless numbers, EN 16931 taxes, credit notes' },
  conflicts: clientInvoiceConflicts,
  routes: [
    ...crud(
      'clientInvoice',
      clientInvoices,
      'clientInvoiceId',
      { one: 'client invoice', many: 'client invoices' },
      {
        list: {
          field: 'Query.clientInvoices',
          summary: 'List client invoices, newest first (status, clientId, from, to)',
          // The page printed once from the list statement's rows, not through the GraphQL fields (client-invoice.plain.ts).
          plain: plainRead(ListClientInvoicesArgs, async ({ access, input, context }) =>
            plainClientInvoiceList(await context.services.clientInvoices.listed(access, input)),
          ),
        },
        get: 'Query.clientInvoice',
        create: { field: 'Mutation.createClientInvoice', summary: "Create a draft from a client's approved time in a period" },
        update: { field: 'Mutation.updateClientInvoice', summary: 'Change a draft' },
        remove: { field: 'Mutation.deleteClientInvoice', summary: 'Delete a draft (its entries are released)' },
      },
    ),
    step('issue', 'Mutation.issueClientInvoice', 'Issue a draft: number, dates, seller and buyer snapshots'),
    step(
      'send',
      'Mutation.sendClientInvoice',
      'Send the invoice by e-mail from a worker (SMTP_URL set), or only mark it sent (lastSend.status says which)',
      'markSent',
    ),
    step('pay', 'Mutation.payClientInvoice', 'Record a payment (full unless amount is less)'),
    step('void', 'Mutation.voidClientInvoice', 'Void an issued invoice: a credit note takes the next number, its entries are released'),
    ...clientInvoiceFileRoutes,
  ],
  createWork: createClientInvoiceMailWork,
  jobs: [
    job(clientInvoiceMailQueue, ({ sendId }, { work, log }: JobContext<ClientInvoiceMailWork>) => work.deliver(sendId, log)),
    job(abandonedMailQueue, ({ sendId }, { work, log }: JobContext<ClientInvoiceMailWork>) => work.abandon(sendId, log)),
  ],
});

declare module '../../services.js' {
  interface Services {
    clientInvoices: ClientInvoiceService;
  }
}
