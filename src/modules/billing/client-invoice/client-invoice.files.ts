/**
 * The files a client invoice becomes (CONTRACT.md section 9): the PDF people read, the same PDF as a
 * Factur-X PDF/A-3 with its CII XML inside, and the EN 16931 XML formats. The rules of which invoice may
 * become which file live here, once, for REST and GraphQL: a draft has no number, so its PDF is marked
 * DRAFT and it has no e-invoice (409 INVOICE_DRAFT); an issued invoice that lacks what a format needs says so
 * (409 EINVOICE_INCOMPLETE, one field error each) and, since nothing can change it any more, which formats it has
 * and how to get the one asked for. The writers are pure functions of the document; an issued document's files
 * are written once, on their first download, and then served as kept (client-invoice.archive.ts).
 */
import { z } from 'zod';
import type { TenantAccess } from '../../../auth/tenant-access.js';
import { contentDisposition } from '../../../lib/content-disposition.js';
import { fields } from '../../../lib/dto.js';
import type { HttpResult } from '../../../lib/problem.js';
import { defineEnum } from '../../../lib/vocabulary.js';
import { nativeRoute } from '../../../rest/route.js';
import type { Services } from '../../services.js';
import type { ClientInvoiceFile, KeptFormat } from './client-invoice.archive.js';
import type { ClientInvoiceDocument } from './client-invoice.document.js';
import { clientInvoiceConflicts } from './client-invoice.dto.js';
import {
  availableEInvoiceFormats,
  eInvoiceContentTypes,
  writtenEInvoiceFormats,
  type WrittenEInvoiceFormat,
  missingFor,
  writeEInvoice,
} from './einvoice/writer.js';
import { clientInvoiceFileName } from './client-invoice.file-name.js';
import { clientInvoicePdfContentType, type ClientInvoicePdfFormat, renderClientInvoicePdf } from './client-invoice.pdf.js';

/**
 * The written formats as GraphQL names them (its enum `ClientEInvoiceFormat`): an enum value cannot hold a hyphen, so
 * `xrechnung_cii` is REST's `xrechnung-cii`.
 */
export const writtenEInvoiceFormat = defineEnum(
  'ClientEInvoiceFormat',
  ['cii', 'ubl', 'xrechnung_cii', 'xrechnung_ubl', 'peppol'],
  'cii, ubl (EN 16931), xrechnung_cii or xrechnung_ubl (XRechnung 3.0), peppol (Peppol BIS Billing 3.0)',
);
export const writtenEInvoiceFormatOf = (name: (typeof writtenEInvoiceFormat.values)[number]): WrittenEInvoiceFormat =>
  name.replace('_', '-') as WrittenEInvoiceFormat;

/**
 * 409 unless an issued `document` can be written as `format`. Its seller and buyer were frozen at issue (and
 * issuing checked the format its client was set to receive), so filling the profile or the client now cannot
 * help it: the answer names what the invoice as issued lacks, the formats it has, and that voiding it and issuing
 * a new one (after setting the client's einvoiceFormat) is the way to this format.
 */
function assertEInvoiceable(document: ClientInvoiceDocument, format: WrittenEInvoiceFormat | 'facturx'): void {
  if (document.status === 'draft') {
    throw clientInvoiceConflicts.refuse('INVOICE_DRAFT', 'A draft has no number yet: issue it, then ask for its e-invoice');
  }
  const missing = missingFor(document, format);
  if (missing.length === 0) return;
  const kind = document.type === 'credit_note' ? 'credit note' : 'invoice';
  const available = availableEInvoiceFormats(document);
  const sources = [...new Set(missing.flatMap((field) => (field.source ? [field.source] : [])))];
  const remedy =
    document.type === 'credit_note'
      ? 'a credit note keeps the parties of the invoice it cancels: ask for it in a format it has'
      : `void it (a credit note cancels it), then set ${sources.join(', ')} and the client's einvoiceFormat to ${format}, ` +
        `and invoice the time again: issuing checks what ${format} needs`;
  throw clientInvoiceConflicts.refuse(
    'EINVOICE_INCOMPLETE',
    `The ${kind} ${document.number} was issued without what ${format} needs (${missing.map((field) => field.field).join(', ')}), and an issued ${kind} ` +
      `never changes. It can be fetched as ${available.length > 0 ? available.join(', ') : 'a PDF only'}. For ${format}: ${remedy}.`,
    { errors: missing.map((field) => ({ path: field.field, message: `${field.message}; the ${kind} as issued has none` })) },
  );
}

/** What the files are read and kept through: the client-invoice service's own methods. */
export type InvoiceFiles = Pick<Services['clientInvoices'], 'keptFile' | 'keepFile' | 'document'>;

/**
 * The file of invoice `id` in `format`: as kept, when it is an issued document whose file was served before;
 * else written by `write` from the document, and kept when the document is issued (a draft's never is).
 */
async function fileOf(
  files: InvoiceFiles,
  access: TenantAccess,
  id: string,
  format: KeptFormat,
  write: (document: ClientInvoiceDocument) => Promise<ClientInvoiceFile>,
): Promise<ClientInvoiceFile> {
  const kept = await files.keptFile(access, id, format);
  if (kept) return kept;
  const document = await files.document(access, id);
  const file = await write(document);
  return document.status === 'draft' ? file : files.keepFile(access, id, format, file);
}

/** The invoice's EN 16931 XML in `format`: 409 for a draft, or naming the fields the format still needs. */
export async function eInvoiceFile(
  services: { clientInvoices: InvoiceFiles },
  access: TenantAccess,
  id: string,
  format: WrittenEInvoiceFormat,
): Promise<ClientInvoiceFile> {
  return fileOf(services.clientInvoices, access, id, format, async (document) => {
    assertEInvoiceable(document, format);
    return { fileName: clientInvoiceFileName(document, format), contentType: eInvoiceContentTypes[format], content: await writeEInvoice(document, format) };
  });
}

/** The invoice's PDF; as Factur-X it is an e-invoice too, with the same 409s as the CII XML. */
export async function clientInvoicePdfFile(
  services: { clientInvoices: InvoiceFiles },
  access: TenantAccess,
  id: string,
  format: ClientInvoicePdfFormat,
): Promise<ClientInvoiceFile> {
  return fileOf(services.clientInvoices, access, id, format, async (document) => {
    if (format === 'facturx') assertEInvoiceable(document, 'facturx');
    return {
      fileName: clientInvoiceFileName(document, format),
      contentType: clientInvoicePdfContentType,
      content: await renderClientInvoicePdf(document, { format }),
    };
  });
}

/** What a mailed invoice may carry: the PDF, Factur-X, or an e-invoice format (CONTRACT.md section 11, "Sending"). */
export const attachableFormats = ['pdf', 'facturx', ...writtenEInvoiceFormats] as const;
export type AttachableFormat = (typeof attachableFormats)[number];

/** The file a mail attaches as `format`: the same bytes the download routes serve (kept on first use). */
export function attachmentFile(files: InvoiceFiles, access: TenantAccess, id: string, format: AttachableFormat): Promise<ClientInvoiceFile> {
  const clientInvoices = { clientInvoices: files };
  return format === 'pdf' || format === 'facturx' ? clientInvoicePdfFile(clientInvoices, access, id, format) : eInvoiceFile(clientInvoices, access, id, format);
}

const download = (file: ClientInvoiceFile): HttpResult => ({
  status: 200,
  headers: { 'content-type': file.contentType, 'content-disposition': contentDisposition(file.fileName), 'x-content-type-options': 'nosniff' },
  body: file.content,
});

const clientInvoice = '/tenants/{tenantId}/client-invoices/{clientInvoiceId}';
const invoiceParameters = { tenantId: fields.id('Tenant id'), clientInvoiceId: fields.id('Client invoice id') };
const PdfParameters = z.strictObject({
  ...invoiceParameters,
  format: z.enum(['pdf', 'facturx']).default('pdf').describe('pdf (the default), or facturx: PDF/A-3 with the CII XML embedded as factur-x.xml (EN 16931)'),
});
const EInvoiceParameters = z.strictObject({
  ...invoiceParameters,
  format: z
    .enum(writtenEInvoiceFormats as [WrittenEInvoiceFormat, ...WrittenEInvoiceFormat[]], { error: `must be one of: ${writtenEInvoiceFormats.join(', ')}` })
    .describe('cii or ubl (EN 16931), xrechnung-cii or xrechnung-ubl (XRechnung 3.0), peppol (Peppol BIS Billing 3.0, UBL)'),
});

/** The REST rows of the files: `GET .../pdf` and `GET .../e-invoice`. */
export const clientInvoiceFileRoutes = [
  nativeRoute({
    controller: 'clientInvoice',
    action: 'pdf',
    method: 'GET',
    path: `${clientInvoice}/pdf`,
    summary: 'The invoice as a PDF, or as a Factur-X PDF/A-3',
    description:
      'A readable invoice: seller, buyer, number, dates, service period, lines, tax breakdown, totals, payment terms and bank details, page numbers. ' +
      'A draft is marked DRAFT. With `format=facturx` the same pages as PDF/A-3 carrying the CII XML (`factur-x.xml`, profile EN 16931): ' +
      'like the e-invoice, 409 `INVOICE_DRAFT` for a draft and `EINVOICE_INCOMPLETE` naming what is missing.',
    access: ['read', 'ClientInvoice'],
    readConflicts: true,
    parameters: PdfParameters,
    responses: {
      '200': { description: 'The PDF', contentType: clientInvoicePdfContentType, headers: { 'content-disposition': 'attachment, e.g. invoice-2026-0042.pdf' } },
    },
    async handler({ access, parameters, context }) {
      return download(await clientInvoicePdfFile(context.services, access, parameters.clientInvoiceId, parameters.format));
    },
  }),
  nativeRoute({
    controller: 'clientInvoice',
    action: 'eInvoice',
    method: 'GET',
    path: `${clientInvoice}/e-invoice`,
    summary: 'The invoice as an EN 16931 e-invoice (CII, UBL, XRechnung, Peppol)',
    description:
      'UN/CEFACT CII D16B (`cii`) or OASIS UBL 2.1 (`ubl`), EN 16931; `xrechnung-cii` and `xrechnung-ubl` add the XRechnung 3.0 specification ' +
      'identifier and need the buyer reference (Leitweg-ID), the seller contact and both electronic addresses; `peppol` is Peppol BIS Billing 3.0 ' +
      '(UBL) and needs a buyer reference and both parties’ Peppol participant ids (an EAS scheme of the Peppol list, not EM). Time lines are in ' +
      'minutes (MIN) at a rate per hour (base quantity 60); every line net is quantity x price / base quantity to the cent. A credit note is ' +
      'type 381 and names the invoice it corrects. 409 `INVOICE_DRAFT` for a draft; `EINVOICE_INCOMPLETE` when the invoice as issued lacks what ' +
      'the format needs (each field named, with the formats it has): issuing checks the format the client is set to receive (einvoiceFormat).',
    access: ['read', 'ClientInvoice'],
    readConflicts: true,
    parameters: EInvoiceParameters,
    responses: {
      '200': {
        description: 'The XML',
        contentType: 'application/xml',
        headers: { 'content-disposition': 'attachment, e.g. invoice-2026-0042-xrechnung-ubl.xml' },
      },
    },
    async handler({ access, parameters, context }) {
      return download(await eInvoiceFile(context.services, access, parameters.clientInvoiceId, parameters.format));
    },
  }),
];
