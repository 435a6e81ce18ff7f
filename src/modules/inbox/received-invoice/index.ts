import { z } from 'zod';
import { contentDisposition } from '../../../lib/content-disposition.js';
import { fields } from '../../../lib/dto.js';
import { validationFailed } from '../../../lib/errors.js';
import { crud, nativeRoute } from '../../../rest/route.js';
import { defineModule, job, type JobContext } from '../../module.js';
import { abandonedOcrQueue, ocrQueue } from './received-invoice.jobs.js';
import { stopOcrEngine } from './received-invoice.ocr.js';
import { invoiceConflicts, UploadInvoiceFields } from './received-invoice.dto.js';
import { createInvoiceService, uploadTypes, type InvoiceService } from './received-invoice.service.js';
import { invoiceFileBody } from './received-invoice.upload.js';
import { createInvoiceWork, type InvoiceWork } from './received-invoice.work.js';
import './received-invoice.graphql.js';

const invoices = '/tenants/{tenantId}/invoices';
const tenantId = fields.id('Tenant id');
const invoiceId = fields.id('Invoice id');

/** Invoices: typed in, uploaded (multipart) or imported from a mailbox; OCR in the background. */
export const receivedInvoiceModule = defineModule({
  name: 'invoices',
  createService: createInvoiceService,
  tag: { name: 'Invoices', description: 'Received invoices and receipts: EN 16931 e-invoices read exactly, other files with OCR' },
  conflicts: invoiceConflicts,
  routes: [
    ...crud(
      'invoice',
      invoices,
      'invoiceId',
      { one: 'invoice', many: 'invoices' },
      {
        list: { field: 'Query.invoices', summary: 'List invoices, newest first (a member: their own uploads)' },
        get: 'Query.invoice',
        create: { field: 'Mutation.createInvoice', summary: 'Create an invoice by hand (files: POST .../invoices/upload)' },
      },
    ),
    nativeRoute({
      controller: 'invoice',
      action: 'upload',
      method: 'POST',
      path: `${invoices}/upload`,
      summary: 'Upload an invoice file: an e-invoice is read from its XML, anything else is queued for OCR',
      description:
        'A PDF, PNG, JPEG, TIFF or WebP of at most 20 MiB, or an EN 16931 e-invoice as XML (UN/CEFACT CII or UBL 2.1 Invoice or CreditNote; ' +
        '`application/xml` or `text/xml`, at most 5 MiB), as the multipart field `file`, with optional fields that win over what is read. ' +
        'The type is read from the content (415 otherwise); the same file twice in a tenant is a 409 naming the first invoice (its `Location`).\n\n' +
        'An XML e-invoice, or a PDF carrying one (Factur-X / ZUGFeRD: an embedded `factur-x.xml`, `zugferd-invoice.xml` or `xrechnung.xml`), ' +
        'is read exactly from its XML: number, vendor and VAT id, dates, currency, net, tax, total and its `lines`, with `eInvoiceFormat` ' +
        '(`cii`, `ubl` or `facturx`) set and no OCR (`ocrStatus: none`). An XML file that is malformed, declares a DOCTYPE or entities ' +
        '(never read, nothing is fetched), is too large or is not an invoice is a 400 naming `file`, and nothing is stored. ' +
        'Any other file answers with `ocrStatus: pending`; watch it become `done` or `failed`.',
      access: ['create', 'Invoice'],
      parameters: z.strictObject({ tenantId }),
      body: invoiceFileBody(UploadInvoiceFields, 'The invoice: PDF, PNG, JPEG, TIFF or WebP (at most 20 MiB), or an EN 16931 XML e-invoice (at most 5 MiB)'),
      responses: { '201': { description: 'The new invoice', graphqlType: 'Invoice' } },
      async handler({ upload, access, context, respond }) {
        if (!upload?.file) throw validationFailed([{ path: 'file', message: 'is required: send the invoice as the multipart field "file"' }]);
        const invoice = await context.services.invoices.fromFile(access, upload.file, upload.fields as z.output<typeof UploadInvoiceFields>);
        // The invoice as it was committed (ocrStatus pending): a worker may be reading it already.
        return respond('Invoice', invoice, 201);
      },
    }),
    nativeRoute({
      controller: 'invoice',
      action: 'download',
      method: 'GET',
      path: `${invoices}/{invoiceId}/file`,
      summary: 'Download the file of an invoice',
      description: 'Streams the stored file with its type and an attachment `Content-Disposition`; 404 for an invoice typed in by hand.',
      access: ['read', 'Invoice'],
      parameters: z.strictObject({ tenantId, invoiceId }),
      responses: {
        '200': {
          description: 'The file, in the type its content shows',
          contentType: Object.keys(uploadTypes),
          headers: { 'content-disposition': 'attachment, with the name it was uploaded with' },
        },
      },
      async handler({ access, context, parameters }) {
        const file = await context.services.invoices.file(access, parameters.invoiceId);
        return {
          status: 200,
          headers: {
            'content-type': file.mimeType,
            'content-disposition': contentDisposition(file.fileName),
            'x-content-type-options': 'nosniff',
            ...(file.size !== null ? { 'content-length': String(file.size) } : {}),
          },
          body: file.stream,
        };
      },
    }),
    {
      controller: 'invoice',
      action: 'ocr',
      method: 'POST',
      path: `${invoices}/{invoiceId}/ocr`,
      field: 'Mutation.runInvoiceOcr',
      status: 202,
      summary: 'Read the file again with OCR (fields already filled stay)',
    },
    ...crud(
      'invoice',
      invoices,
      'invoiceId',
      { one: 'invoice', many: 'invoices' },
      {
        update: { field: 'Mutation.updateInvoice', summary: 'Change an invoice: fields, status, project' },
        remove: { field: 'Mutation.deleteInvoice', summary: 'Delete an invoice (and its file, unless another invoice has the same)' },
      },
    ),
  ],
  createWork: createInvoiceWork,
  jobs: [
    job(ocrQueue, ({ invoiceId }, { work, log }: JobContext<InvoiceWork>) => work.read(invoiceId, log)),
    job(abandonedOcrQueue, ({ invoiceId }, { work, log }: JobContext<InvoiceWork>) => work.abandon(invoiceId, log)),
  ],
  afterWork: stopOcrEngine,
});

declare module '../../services.js' {
  interface Services {
    invoices: InvoiceService;
  }
}
