import { builder } from '../../../graphql/builder.js';
import { graphqlEnum } from '../../../graphql/inputs.js';
import { ClientInvoiceSendStatus } from '../../../generated/prisma/enums.js';
import type { ClientInvoiceSend } from '../../../generated/prisma/client.js';
import { defineEnum } from '../../../lib/vocabulary.js';

export const clientInvoiceSendStatus = defineEnum(
  'ClientInvoiceSendStatus',
  ClientInvoiceSendStatus,
  'queued (a worker mails it), delivered (the SMTP server accepted it), failed (its retries spent, about an hour), or not_configured (no SMTP_URL: only marked sent)',
);

/** One send of an invoice: what `send` recorded and what became of it. */
export const ClientInvoiceSendObject = builder.objectRef<ClientInvoiceSend>('ClientInvoiceSend').implement({
  description: 'A send of the invoice by e-mail (or, without SMTP configured, the record that it was only marked sent).',
  fields: (t) => ({
    id: t.exposeID('id'),
    status: t.expose('status', { type: graphqlEnum(clientInvoiceSendStatus) }),
    to: t.exposeStringList('to'),
    cc: t.exposeStringList('cc'),
    attach: t.exposeStringList('attach', { description: 'The formats attached: pdf, facturx, cii, ubl, xrechnung-cii, xrechnung-ubl, peppol' }),
    messageId: t.exposeString('messageId', { description: 'The Message-ID every attempt carries' }),
    attempts: t.exposeInt('attempts', { description: 'SMTP attempts so far' }),
    lastError: t.exposeString('lastError', { nullable: true, description: 'Why the last attempt failed (it is retried)' }),
    deliveredAt: t.expose('deliveredAt', { type: 'DateTime', nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});
