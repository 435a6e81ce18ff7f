/**
 * What a received invoice is to the API: its vocabularies (status, source, OCR state, type, the e-invoice
 * format it was read from), its 409 reasons, and the schemas of its input and arguments, for REST and GraphQL
 * alike. The service (received-invoice.service.ts) applies them.
 */
import { z } from 'zod';
import type { PrismaQuery } from '../../../db/query.js';
import type { Prisma } from '../../../generated/prisma/client.js';
import { EInvoiceFormat, InvoiceSource, InvoiceStatus, InvoiceType, OcrStatus } from '../../../generated/prisma/enums.js';
import { args, dto, fields, pagination } from '../../../lib/dto.js';
import { conflictReasons } from '../../../lib/errors.js';
import { assertMoneyScale } from '../../../lib/money.js';
import { defineEnum } from '../../../lib/vocabulary.js';

export const invoiceStatus = defineEnum('InvoiceStatus', InvoiceStatus);
export const invoiceSource = defineEnum('InvoiceSource', InvoiceSource);
export const ocrStatus = defineEnum('OcrStatus', OcrStatus);
export const invoiceType = defineEnum('InvoiceType', InvoiceType);
/** What a received invoice was read from (cii, ubl, facturx): GraphQL's `EInvoiceFormat`; billing writes others (WrittenEInvoiceFormat). */
export const receivedEInvoiceFormat = defineEnum('EInvoiceFormat', EInvoiceFormat);

/** Why a write to an invoice is refused with 409. */
export const invoiceConflicts = conflictReasons('Invoice', {
  DUPLICATE_FILE: { code: 'CONFLICT', description: 'The same file was already uploaded in this tenant; Location names its invoice' },
  NO_FILE: { code: 'INVALID_STATE', description: 'The invoice was typed in by hand and has no file to read' },
  OCR_IN_PROGRESS: { code: 'INVALID_STATE', description: 'OCR of this invoice is already pending or running' },
  READ_FROM_EINVOICE: { code: 'INVALID_STATE', description: 'The invoice was read exactly from its e-invoice XML; OCR has nothing to add' },
});

const text = (what: string, max = 200) => z.string().trim().min(1).max(max).describe(what);
const currency = z
  .string()
  .trim()
  .regex(/^[A-Za-z]{3}$/, 'must be a three-letter ISO 4217 code like EUR')
  .transform((code) => code.toUpperCase())
  .describe('ISO 4217 code, e.g. EUR');
/** In the invoice's currency: at most its decimals (2 while it has none), checked where the currency is known. */
const amount = (what: string) => fields.money(what, { min: -1e12, max: 1e12 });

/** 400 naming each amount with more decimals than the invoice's currency has. */
export const assertAmountsFit = (
  currency: string | null | undefined,
  data: { netAmount?: string | null; taxAmount?: string | null; totalAmount?: string | null },
) => assertMoneyScale(currency ?? null, { netAmount: data.netAmount, taxAmount: data.taxAmount, totalAmount: data.totalAmount });

const invoiceFields = {
  number: text("The vendor's invoice number", 100),
  vendorName: text('Who issued it'),
  issueDate: fields.date('Date of issue'),
  dueDate: fields.date('Payment due'),
  currency,
  netAmount: amount('Net amount, a decimal string'),
  taxAmount: amount('Tax amount, a decimal string'),
  totalAmount: amount('Total, a decimal string'),
  projectId: fields.id('The project it is booked to'),
};

export const CreateInvoiceDto = dto('CreateInvoiceDto', 'An invoice typed in by hand (uploads go to /invoices/upload).', {
  ...Object.fromEntries(Object.entries(invoiceFields).map(([name, schema]) => [name, schema.optional()])),
  status: invoiceStatus.schema('Default `open`').default('open'),
  type: invoiceType.schema('invoice, or credit_note for a credit note (amounts as the document states them); default invoice').default('invoice'),
} as { [K in keyof typeof invoiceFields]: z.ZodOptional<(typeof invoiceFields)[K]> } & {
  status: z.ZodDefault<ReturnType<typeof invoiceStatus.schema>>;
  type: z.ZodDefault<ReturnType<typeof invoiceType.schema>>;
});

export const UpdateInvoiceDto = dto('UpdateInvoiceDto', 'Changes to an invoice; null clears a field.', {
  ...(Object.fromEntries(Object.entries(invoiceFields).map(([name, schema]) => [name, schema.nullable().optional()])) as {
    [K in keyof typeof invoiceFields]: z.ZodOptional<z.ZodNullable<(typeof invoiceFields)[K]>>;
  }),
  status: invoiceStatus.schema('open, approved, paid or rejected').optional(),
  type: invoiceType.schema('invoice or credit_note').optional(),
});

/** The text fields that may accompany an upload (multipart form fields are strings). */
export const UploadInvoiceFields = z.strictObject({
  number: invoiceFields.number.optional(),
  vendorName: invoiceFields.vendorName.optional(),
  issueDate: invoiceFields.issueDate.optional(),
  dueDate: invoiceFields.dueDate.optional(),
  currency: invoiceFields.currency.optional(),
  totalAmount: invoiceFields.totalAmount.optional(),
  projectId: invoiceFields.projectId.optional(),
});

const tenantId = fields.id('Tenant id');
const invoiceId = fields.id('Invoice id');
export const ListInvoicesArgs = args({
  tenantId,
  status: invoiceStatus.schema('Only invoices with this status').optional(),
  ocrStatus: ocrStatus.schema('Only invoices in this OCR state').optional(),
  projectId: fields.id('Only invoices booked to this project').optional(),
  from: fields.date('Issued on or after this date').optional(),
  to: fields.date('Issued on or before this date').optional(),
  ...pagination,
});
export const InvoiceArgs = args({ tenantId, id: invoiceId });
export const CreateInvoiceArgs = args({ tenantId, input: CreateInvoiceDto });
export const UpdateInvoiceArgs = args({ tenantId, id: invoiceId, input: UpdateInvoiceDto });

export type InvoiceQuery = PrismaQuery<Prisma.InvoiceInclude, Prisma.InvoiceSelect>;
