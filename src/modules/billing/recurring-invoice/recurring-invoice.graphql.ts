import { builder } from '../../../graphql/builder.js';
import { graphqlEnum } from '../../../graphql/inputs.js';
import { moneyField, optionalPercentField, quantityExtensions } from '../../../graphql/money.js';
import { resourceFields } from '../../../graphql/resource-fields.js';
import type { ManualLine } from '../client-invoice/client-invoice.dto.js';
import { invoiceLineUnit } from '../client-invoice/client-invoice.dto.js';
import {
  CreateRecurringInvoiceArgs,
  ListRecurringInvoicesArgs,
  RecurringInvoiceArgs,
  recurringInterval,
  UpdateRecurringInvoiceArgs,
} from './recurring-invoice.dto.js';

type Line = ManualLine & { currency: string };

const RecurringLineObject = builder.objectRef<Line>('RecurringInvoiceLine').implement({
  description: 'A fixed line of every invoice the plan makes.',
  fields: (t) => ({
    description: t.exposeString('description'),
    currency: t.exposeString('currency', { description: "ISO 4217: the client's" }),
    quantity: t.string({ description: 'Up to 4 decimals', extensions: quantityExtensions, resolve: (line) => line.quantity }),
    unit: t.field({ type: graphqlEnum(invoiceLineUnit), resolve: (line) => line.unit }),
    unitPrice: t.field(
      moneyField<Line>(
        "In the client's currency",
        (line) => line.unitPrice,
        (line) => line.currency,
      ),
    ),
    taxRate: t.field(optionalPercentField<Line>("Percent; default: the profile's", (line) => line.taxRate ?? null)),
  }),
});

builder.prismaObject('RecurringInvoice', {
  description: 'A plan that makes a client invoice every month, quarter or year: fixed lines, optionally the period’s time.',
  fields: (t) => ({
    id: t.exposeID('id'),
    tenantId: t.exposeID('tenantId'),
    clientId: t.exposeID('clientId'),
    lines: t.field({
      type: [RecurringLineObject],
      select: { client: { select: { currency: true } } },
      resolve: (plan) => (plan.lines as unknown as ManualLine[]).map((line) => ({ ...line, currency: plan.client.currency })),
    }),
    interval: t.expose('interval', { type: graphqlEnum(recurringInterval) }),
    dayOfPeriod: t.exposeInt('dayOfPeriod', { description: "The day of each period its invoice is made on (past the period's end: its last day)" }),
    startDate: t.expose('startDate', { type: 'Date' }),
    endDate: t.expose('endDate', { type: 'Date', nullable: true }),
    includeTime: t.exposeBoolean('includeTime'),
    autoIssue: t.exposeBoolean('autoIssue'),
    autoSend: t.exposeBoolean('autoSend'),
    nextPeriodStart: t.expose('nextPeriodStart', { type: 'Date', nullable: true, description: 'The first day of the next period to invoice' }),
    nextRunDate: t.expose('nextRunDate', {
      type: 'Date',
      nullable: true,
      description: 'When its next invoice is made (tenant time zone); null once the plan has ended',
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

resourceFields('RecurringInvoice', {
  subject: 'RecurringInvoice',
  service: (services) => services.recurringInvoices,
  queries: {
    recurringInvoices: { list: ListRecurringInvoicesArgs, description: "The tenant's recurring invoices, newest first." },
    recurringInvoice: { get: RecurringInvoiceArgs, description: 'One recurring invoice.' },
  },
  mutations: {
    createRecurringInvoice: { create: CreateRecurringInvoiceArgs, description: 'A plan that makes a client invoice every period.' },
    updateRecurringInvoice: { update: UpdateRecurringInvoiceArgs, description: 'Changes a plan; the periods invoiced stay.' },
    deleteRecurringInvoice: { remove: RecurringInvoiceArgs, description: 'Deletes a plan; its invoices stay.' },
  },
});
