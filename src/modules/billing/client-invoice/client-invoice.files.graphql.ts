import { builder } from '../../../graphql/builder.js';
import { tenantOperation } from '../../../graphql/operations.js';
import { args, fields } from '../../../lib/dto.js';
import type { ClientInvoiceFile } from './client-invoice.archive.js';
import { eInvoiceFile, writtenEInvoiceFormat, writtenEInvoiceFormatOf } from './client-invoice.files.js';

const EInvoiceArgs = args({
  tenantId: fields.id('Tenant id'),
  id: fields.id('Client invoice id'),
  format: writtenEInvoiceFormat.schema('cii or ubl (EN 16931), xrechnung_cii or xrechnung_ubl (XRechnung 3.0), peppol (Peppol BIS Billing 3.0)'),
});

const EInvoiceObject = builder.objectRef<ClientInvoiceFile>('EInvoiceFile').implement({
  description: 'An EN 16931 e-invoice: the XML, and the name and media type to save or send it under.',
  fields: (t) => ({
    fileName: t.exposeString('fileName'),
    contentType: t.exposeString('contentType'),
    xml: t.string({ resolve: (file) => file.content.toString() }),
  }),
});

const readEInvoice = tenantOperation(EInvoiceArgs, ['read', 'ClientInvoice']);

builder.queryField('clientInvoiceEInvoice', (t) =>
  t.field({
    type: EInvoiceObject,
    description:
      'An issued invoice (or credit note) as an EN 16931 e-invoice, the same XML as REST’s `GET .../e-invoice`: ' +
      'INVOICE_DRAFT for a draft, EINVOICE_INCOMPLETE naming what the invoice as issued lacks for the format.',
    ...readEInvoice.field(t),
    resolve: readEInvoice.resolve((input, access, { services }) => eInvoiceFile(services, access, input.id, writtenEInvoiceFormatOf(input.format))),
  }),
);
