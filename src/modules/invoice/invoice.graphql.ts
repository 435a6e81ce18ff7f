import { builder } from '../../graphql/builder.js';
import { graphqlEnum } from '../../graphql/inputs.js';
import { tenantOperation } from '../../graphql/operations.js';
import {
  CreateInvoiceArgs,
  InvoiceArgs,
  ListInvoicesArgs,
  UpdateInvoiceArgs,
  invoiceSource,
  invoiceStatus,
  ocrStatus,
  type InvoiceQuery,
} from './invoice.service.js';

builder.prismaObject('Invoice', {
  description: 'A received invoice or receipt: typed in, uploaded, or imported from a mailbox; OCR fills the fields left empty.',
  fields: (t) => ({
    id: t.exposeID('id'),
    tenantId: t.exposeID('tenantId'),
    number: t.exposeString('number', { nullable: true, description: "The vendor's invoice number" }),
    vendorName: t.exposeString('vendorName', { nullable: true }),
    issueDate: t.expose('issueDate', { type: 'Date', nullable: true }),
    dueDate: t.expose('dueDate', { type: 'Date', nullable: true }),
    currency: t.exposeString('currency', { nullable: true, description: 'ISO 4217 code' }),
    netAmount: t.expose('netAmount', { type: 'Decimal', nullable: true }),
    taxAmount: t.expose('taxAmount', { type: 'Decimal', nullable: true }),
    totalAmount: t.expose('totalAmount', { type: 'Decimal', nullable: true }),
    projectId: t.exposeID('projectId', { nullable: true }),
    project: t.relation('project', { nullable: true }),
    status: t.expose('status', { type: graphqlEnum(invoiceStatus) }),
    source: t.expose('source', { type: graphqlEnum(invoiceSource), description: 'manual, upload or email' }),
    fileName: t.exposeString('fileName', { nullable: true, description: 'The name the file came with (download it from REST `GET .../invoices/{id}/file`)' }),
    mimeType: t.exposeString('mimeType', { nullable: true, description: 'The type its content shows' }),
    size: t.exposeInt('size', { nullable: true, description: 'Bytes' }),
    sha256: t.exposeString('sha256', { nullable: true, description: 'Hex SHA-256 of the file' }),
    ocrStatus: t.expose('ocrStatus', { type: graphqlEnum(ocrStatus), description: 'none, pending, running, done or failed' }),
    ocrText: t.exposeString('ocrText', { nullable: true, description: 'What OCR read (or the text layer of a PDF)' }),
    ocrConfidence: t.exposeFloat('ocrConfidence', { nullable: true, description: 'Mean word confidence, 0 to 100' }),
    lastError: t.exposeString('lastError', { nullable: true, description: 'Why the last OCR run failed' }),
    uploadedById: t.exposeID('uploadedById', { nullable: true, description: 'The tenantUserId of who uploaded it' }),
    syncId: t.exposeID('syncId', { nullable: true, description: 'The mailbox sync that imported it' }),
    emailMessageId: t.exposeString('emailMessageId', { nullable: true, description: 'Message-ID of the email it came in' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

const listInvoices = tenantOperation(ListInvoicesArgs, ['read', 'Invoice']);
const readInvoice = tenantOperation(InvoiceArgs, ['read', 'Invoice']);
const createInvoice = tenantOperation(CreateInvoiceArgs, ['create', 'Invoice']);
const updateInvoice = tenantOperation(UpdateInvoiceArgs, ['update', 'Invoice']);
const deleteInvoice = tenantOperation(InvoiceArgs, ['delete', 'Invoice']);
const rerunOcr = tenantOperation(InvoiceArgs, ['update', 'Invoice']);

builder.queryFields((t) => ({
  invoices: t.prismaField({
    type: ['Invoice'],
    description: "The tenant's invoices, newest first (a member: the ones they uploaded). `from`/`to` bound the issue date.",
    ...listInvoices.field(t),
    resolve: listInvoices.resolveQuery((input, access, query: InvoiceQuery, { services }) => services.invoices.list(access, input, query)),
  }),
  invoice: t.prismaField({
    type: 'Invoice',
    description: 'One invoice.',
    ...readInvoice.field(t),
    resolve: readInvoice.resolveQuery((input, access, query: InvoiceQuery, { services }) => services.invoices.get(access, input.id, query)),
  }),
}));

builder.mutationFields((t) => ({
  createInvoice: t.prismaField({
    type: 'Invoice',
    description: 'An invoice typed in by hand. Files are uploaded over REST (`POST .../invoices/upload`, multipart).',
    ...createInvoice.field(t),
    resolve: createInvoice.resolveQuery((input, access, query: InvoiceQuery, { services }) => services.invoices.create(access, input.input, query)),
  }),
  updateInvoice: t.prismaField({
    type: 'Invoice',
    description: 'Changes an invoice: its fields, status or project.',
    ...updateInvoice.field(t),
    resolve: updateInvoice.resolveQuery((input, access, query: InvoiceQuery, { services }) =>
      services.invoices.update(access, input.id, input.input, query),
    ),
  }),
  deleteInvoice: t.prismaField({
    type: 'Invoice',
    description: 'Deletes an invoice, and its file unless another invoice has the same. GraphQL returns the deleted invoice.',
    ...deleteInvoice.field(t),
    resolve: deleteInvoice.resolveQuery((input, access, query: InvoiceQuery, { services }) => services.invoices.remove(access, input.id, query)),
  }),
  runInvoiceOcr: t.prismaField({
    type: 'Invoice',
    description: 'Reads the file again (OCR runs in the background: watch `ocrStatus`); fields already filled stay.',
    ...rerunOcr.field(t),
    resolve: rerunOcr.resolveQuery((input, access, query: InvoiceQuery, { services }) => services.invoices.rerunOcr(access, input.id, query)),
  }),
}));
