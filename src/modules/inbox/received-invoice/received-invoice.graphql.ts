import { builder } from '../../../graphql/builder.js';
import { graphqlEnum } from '../../../graphql/inputs.js';
import { tenantOperation } from '../../../graphql/operations.js';
import { moneyField, optionalMoneyField, optionalPercentField, priceField, quantityExtensions } from '../../../graphql/money.js';
import { resourceFields } from '../../../graphql/resource-fields.js';
import type { Invoice, InvoiceLine } from '../../../generated/prisma/client.js';

/** A line with its invoice's currency (null: unknown, its amounts print with 2 decimals). */
type Line = InvoiceLine & { currency: string | null };
const lineCurrency = (line: Line) => line.currency;
import {
  CreateInvoiceArgs,
  receivedEInvoiceFormat,
  invoiceType,
  InvoiceArgs,
  ListInvoicesArgs,
  UpdateInvoiceArgs,
  invoiceSource,
  invoiceStatus,
  ocrStatus,
  type InvoiceQuery,
} from './received-invoice.dto.js';

const InvoiceLineRef = builder.objectRef<Line>('InvoiceLine').implement({
  description: 'A line of a received e-invoice (EN 16931 BG-25), as its XML states it.',
  fields: (t) => ({
    position: t.exposeInt('position', { description: '1, 2, ... in the order of the document' }),
    lineId: t.exposeString('lineId', { description: "The line's identifier in the document (BT-126)" }),
    name: t.exposeString('name', { description: 'Item name (BT-153)' }),
    description: t.exposeString('description', { nullable: true, description: 'Item description (BT-154)' }),
    quantity: t.expose('quantity', { type: 'Decimal', description: 'Invoiced quantity (BT-129)', extensions: quantityExtensions }),
    unitCode: t.exposeString('unitCode', { description: 'Its unit, UN/ECE recommendation 20 or 21 (BT-130), e.g. HUR, C62' }),
    unitPrice: t.field(
      priceField<Line>("Item net price (BT-146): at least the currency's decimals, more when the document has more", (line) => line.unitPrice, lineCurrency),
    ),
    priceBaseQuantity: t.expose('priceBaseQuantity', {
      type: 'Decimal',
      nullable: true,
      description: 'The quantity the price is for (BT-149); 1 when null',
      extensions: quantityExtensions,
    }),
    netAmount: t.field(moneyField<Line>('Line net amount (BT-131)', (line) => line.netAmount, lineCurrency)),
    taxCategory: t.exposeString('taxCategory', { nullable: true, description: 'VAT category code (BT-151): S, Z, E, AE, K, G, O, L or M' }),
    taxRate: t.field(optionalPercentField<Line>('VAT rate in percent (BT-152)', (line) => line.taxRate)),
  }),
});

const invoiceCurrency = (invoice: Invoice) => invoice.currency;

builder.prismaObject('Invoice', {
  description:
    'A received invoice or receipt: typed in, uploaded, or imported from a mailbox. An EN 16931 e-invoice (XML, or a PDF carrying one) ' +
    'is read exactly from its XML, with its lines; OCR fills the fields left empty of any other file.',
  fields: (t) => ({
    id: t.exposeID('id'),
    tenantId: t.exposeID('tenantId'),
    number: t.exposeString('number', { nullable: true, description: "The vendor's invoice number" }),
    vendorName: t.exposeString('vendorName', { nullable: true }),
    issueDate: t.expose('issueDate', { type: 'Date', nullable: true }),
    dueDate: t.expose('dueDate', { type: 'Date', nullable: true }),
    currency: t.exposeString('currency', { nullable: true, description: 'ISO 4217 code' }),
    netAmount: t.field(
      optionalMoneyField<Invoice>('Net amount, at its currency’s scale (2 decimals without one)', (invoice) => invoice.netAmount, invoiceCurrency),
    ),
    taxAmount: t.field(optionalMoneyField<Invoice>('Tax amount', (invoice) => invoice.taxAmount, invoiceCurrency)),
    totalAmount: t.field(optionalMoneyField<Invoice>('Total', (invoice) => invoice.totalAmount, invoiceCurrency)),
    type: t.expose('type', {
      type: graphqlEnum(invoiceType),
      description: 'invoice, or credit_note when its e-invoice says so (amounts stay as the document states them)',
    }),
    vendorVatId: t.exposeString('vendorVatId', { nullable: true, description: "The vendor's VAT identifier, from an e-invoice (BT-31)" }),
    eInvoiceFormat: t.expose('eInvoiceFormat', {
      type: graphqlEnum(receivedEInvoiceFormat),
      nullable: true,
      description: 'Set when it was read from an EN 16931 e-invoice: cii, ubl, or facturx (the XML a PDF carries: Factur-X / ZUGFeRD); no OCR runs then',
    }),
    lines: t.field({
      type: [InvoiceLineRef],
      description: "The e-invoice's lines, in order; empty for any other invoice",
      // Loaded with the invoices in the same query, however many there are.
      select: { lines: { orderBy: { position: 'asc' } } },
      resolve: (invoice) => invoice.lines.map((line) => ({ ...line, currency: invoice.currency })),
    }),
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

resourceFields('Invoice', {
  subject: 'Invoice',
  service: (services) => services.invoices,
  queries: {
    invoices: {
      list: ListInvoicesArgs,
      description: "The tenant's invoices, newest first (a member: the ones they uploaded). `from`/`to` bound the issue date.",
    },
    invoice: { get: InvoiceArgs, description: 'One invoice.' },
  },
  mutations: {
    createInvoice: {
      create: CreateInvoiceArgs,
      description: 'An invoice typed in by hand. Files are uploaded over REST (`POST .../invoices/upload`, multipart).',
    },
    updateInvoice: { update: UpdateInvoiceArgs, description: 'Changes an invoice: its fields, status or project.' },
    deleteInvoice: {
      remove: InvoiceArgs,
      description: 'Deletes an invoice, and its file unless another invoice has the same. GraphQL returns the deleted invoice.',
    },
  },
});

const rerunOcr = tenantOperation(InvoiceArgs, ['update', 'Invoice']);

builder.mutationFields((t) => ({
  runInvoiceOcr: t.prismaField({
    type: 'Invoice',
    description: 'Reads the file again (OCR runs in the background: watch `ocrStatus`); fields already filled stay.',
    ...rerunOcr.field(t),
    resolve: rerunOcr.resolveQuery((input, access, query: InvoiceQuery, { services }) => services.invoices.rerunOcr(access, input.id, query)),
  }),
}));
