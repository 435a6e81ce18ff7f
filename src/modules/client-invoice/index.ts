import type { GraphQLRouteSpec } from '../../rest/route.js';
import { crud } from '../../rest/route.js';
import { defineModule } from '../module.js';
import { clientInvoiceConflicts } from './client-invoice.dto.js';
import { clientInvoiceFileRoutes } from './client-invoice.files.js';
import { createClientInvoiceService, type ClientInvoiceService } from './client-invoice.service.js';
import './client-invoice.graphql.js';
import './client-invoice.files.graphql.js';

const clientInvoices = '/tenants/{tenantId}/client-invoices';

/** One irregular row: a POST to `client-invoices/{clientInvoiceId}/<verb>`. */
const step = (verb: string, action: string, field: GraphQLRouteSpec['field'], summary: string): GraphQLRouteSpec => ({
  controller: 'clientInvoice',
  action,
  method: 'POST',
  path: `${clientInvoices}/{clientInvoiceId}/${verb}`,
  field,
  status: 200,
  summary,
});

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
        list: { field: 'Query.clientInvoices', summary: 'List client invoices, newest first (status, clientId, from, to)' },
        get: 'Query.clientInvoice',
        create: { field: 'Mutation.createClientInvoice', summary: "Create a draft from a client's approved time in a period" },
        update: { field: 'Mutation.updateClientInvoice', summary: 'Change a draft' },
        remove: { field: 'Mutation.deleteClientInvoice', summary: 'Delete a draft (its entries are released)' },
      },
    ),
    step('issue', 'issue', 'Mutation.issueClientInvoice', 'Issue a draft: number, dates, seller and buyer snapshots'),
    step('send', 'markSent', 'Mutation.sendClientInvoice', 'Record that the invoice was sent'),
    step('pay', 'pay', 'Mutation.payClientInvoice', 'Record a payment (full unless amount is less)'),
    step('void', 'void', 'Mutation.voidClientInvoice', 'Void an issued invoice: a credit note takes the next number, its entries are released'),
    ...clientInvoiceFileRoutes,
  ],
});

declare module '../services.js' {
  interface Services {
    clientInvoices: ClientInvoiceService;
  }
}
