/**
 * The multipart body an invoice file comes in as: the field `file`, the
 * types it may be, staged as it streams in (bounded by the file storage) and
 * discarded when the request fails first. Received invoices and expense
 * receipts (billing) take their files this one way.
 */
import type { StrictObject } from '../../../lib/dto.js';
import type { MultipartBody } from '../../../rest/route.js';
import type { IncomingInvoiceFile } from './received-invoice.service.js';

/** The file types an invoice or receipt may be, for the OpenAPI document (the content is judged by the service). */
export const invoiceFileTypes = ['application/pdf', 'image/png', 'image/jpeg', 'image/tiff', 'image/webp', 'application/xml', 'text/xml'] as const;

/** A multipart body of an invoice file in the field `file`, with the text `fields`. */
export function invoiceFileBody<Fields extends StrictObject>(fields: Fields, fileDescription: string): MultipartBody<Fields, IncomingInvoiceFile> {
  return {
    kind: 'multipart',
    fileField: 'file',
    fileDescription,
    fileTypes: invoiceFileTypes,
    fields,
    stage: async (file, { services }): Promise<IncomingInvoiceFile> => ({ staged: await services.invoices.stage(file.stream), fileName: file.fileName }),
    discard: (file) => file.staged.discard(),
  };
}
