/**
 * The client-invoice contract, declared once (CONTRACT.md section 9): its
 * inputs, its vocabularies and why its writes are refused with 409.
 */
import { z } from 'zod';
import type { PrismaQuery } from '../../../db/query.js';
import type { Prisma } from '../../../generated/prisma/client.js';
import { ClientInvoiceStatus, ClientInvoiceType, InvoiceGroupBy, InvoiceLineUnit } from '../../../generated/prisma/enums.js';
import { args, dto, fields, namedInputs, pagination } from '../../../lib/dto.js';
import { conflictReasons } from '../../../lib/errors.js';
import { defineEnum } from '../../../lib/vocabulary.js';
import { exemptionReason, taxCategory, taxRate } from '../../tracking/party/party.fields.js';

export const clientInvoiceStatus = defineEnum('ClientInvoiceStatus', ClientInvoiceStatus, 'draft, issued, sent, paid or void');
export const clientInvoiceType = defineEnum('ClientInvoiceType', ClientInvoiceType, 'invoice, or credit_note (what voiding an invoice issues)');
export const invoiceGroupBy = defineEnum('InvoiceGroupBy', InvoiceGroupBy, 'One line per entry, project, task, user or day, and hourly rate');
export const expenseGroupings = ['expense', 'category'] as const;
export type ExpenseGrouping = (typeof expenseGroupings)[number];
export const expenseGrouping = defineEnum('InvoiceExpenseGrouping', expenseGroupings, 'One line per expense, or per category and tax rate');
export const invoiceLineUnit = defineEnum(
  'InvoiceLineUnit',
  InvoiceLineUnit,
  'UN/ECE rec. 20: HUR hours, DAY days, C62 one (a piece), MIN minutes (priced per hour: base quantity 60)',
);

/** Why a write to a client invoice is refused with 409. */
export const clientInvoiceConflicts = conflictReasons('ClientInvoice', {
  NOTHING_TO_INVOICE: {
    code: 'INVALID_STATE',
    description:
      'No approved, billable, finished entry and no approved, billable expense of the client in the period is on no live invoice, and no line was given',
  },
  INVOICE_ISSUED: { code: 'INVALID_STATE', description: 'The invoice is issued: it is never changed or deleted (void it: a credit note cancels it)' },
  INVOICE_NOT_ISSUED: { code: 'INVALID_STATE', description: 'The invoice is a draft: issue it first (a draft is deleted, not voided)' },
  INVOICE_VOID: { code: 'INVALID_STATE', description: 'The invoice is void' },
  INVOICE_PAID: { code: 'INVALID_STATE', description: 'The invoice is paid in full' },
  CREDIT_NOTE: { code: 'INVALID_STATE', description: 'A credit note is neither paid nor voided' },
  BILLING_PROFILE_INCOMPLETE: {
    code: 'INVALID_STATE',
    description: 'The billing profile lacks what the invoice (and the e-invoice its client receives) needs; `errors` names each field',
  },
  CLIENT_INCOMPLETE: {
    code: 'INVALID_STATE',
    description: 'The client lacks what the invoice (and the e-invoice it receives, its einvoiceFormat) needs; `errors` names each field',
  },
  INVOICE_DRAFT: { code: 'INVALID_STATE', description: 'A draft has no number: it has no e-invoice or Factur-X PDF until it is issued' },
  EINVOICE_INCOMPLETE: {
    code: 'INVALID_STATE',
    description:
      'The issued invoice, as it was frozen at issue, lacks what this e-invoice format needs; `errors` names each field, the detail the formats it has and what to do',
  },
});

/** In the invoice's currency (its client's): at most its decimals, checked where the currency is known. */
const money = (description: string) => fields.money(`${description}, in the invoice's currency (at most its decimals)`, { min: 0, max: 1_000_000_000 });
const text = (max: number, description: string) => z.string().trim().min(1).max(max).describe(description);

const quantity = fields
  .decimal('How many units, up to 4 decimals; not negative (a credit note takes back, not a negative line)', { min: 0, max: 100_000_000 })
  .describe('How many units, up to 4 decimals; not negative (a credit note takes back, not a negative line)');

export const ManualLineDto = dto('ClientInvoiceLineInput', 'A line written by hand, such as a fixed fee.', {
  description: text(1000, 'What is billed'),
  quantity,
  unit: invoiceLineUnit.schema('Unit of the quantity; default C62 (one)').default('C62'),
  unitPrice: money('Net price of one unit'),
  taxCategory: taxCategory.schema("Default: the client's category, else the billing profile's").optional(),
  taxRate: taxRate("Percent; default: the profile's rate for S, 0 otherwise").optional(),
  taxExemptionReason: exemptionReason.optional(),
});

const discountShape = {
  percent: fields.percent('Percent of the line nets, at most 2 decimals', { min: 0, max: 100 }).optional(),
  amount: money('An amount off the line nets').optional(),
  reason: text(300, 'Why (shown on the invoice)'),
};
export const DiscountDto = z.strictObject(discountShape).superRefine((value, context) => {
  if ((value.percent === undefined) === (value.amount === undefined)) {
    context.addIssue({ code: 'custom', path: ['percent'], message: 'give either percent or amount' });
  }
});
namedInputs.add(DiscountDto, { id: 'ClientInvoiceDiscountInput', description: 'A document discount: a percent or an amount, with its reason.' });

const period = {
  periodFrom: fields.date('First day of the service period (tenant time zone)'),
  periodTo: fields.date('Last day of the service period'),
};

export const CreateClientInvoiceDto = dto(
  'CreateClientInvoiceDto',
  "An invoice of a client's approved, billable time in a period, with extra lines and a discount.",
  {
    clientId: fields.id('The client invoiced'),
    ...period,
    groupBy: invoiceGroupBy.schema('How time becomes lines; default project').default('project'),
    projectIds: z.array(fields.id()).min(1).max(500).optional().describe("Only these of the client's projects"),
    issueDate: fields.date('Date of issue; default: the day it is issued').optional(),
    dueDate: fields.date('Payment due; default: issue date + payment terms').optional(),
    buyerReference: text(200, "Default: the client's").optional(),
    notes: text(5000, 'Free text on the invoice').optional(),
    includeExpenses: z.boolean().default(true).describe("Bill the client's approved, billable expenses of the period too; default true"),
    expenseGrouping: expenseGrouping.schema('How expenses become lines; default expense (one line each)').default('expense'),
    lines: z.array(ManualLineDto).max(200).optional().describe('Manual lines, after the lines from time and expenses'),
    discount: DiscountDto.optional(),
  },
);

export const UpdateClientInvoiceDto = dto('UpdateClientInvoiceDto', 'Changes to a draft; null clears a field. `lines` replaces its manual lines.', {
  issueDate: fields.date('Date of issue').nullable().optional(),
  dueDate: fields.date('Payment due').nullable().optional(),
  buyerReference: text(200, 'The buyer reference (BT-10)').nullable().optional(),
  notes: text(5000, 'Free text on the invoice').nullable().optional(),
  lines: z.array(ManualLineDto).max(200).optional().describe('The manual lines, replaced whole (lines from time stay)'),
  discount: DiscountDto.nullable().optional(),
});

/** What a mailed invoice may carry (the names of the download routes' formats). */
export const attachableFormatNames = ['pdf', 'facturx', 'xrechnung-cii', 'xrechnung-ubl', 'peppol', 'ubl', 'cii'] as const;
const attachable = new Set<string>(attachableFormatNames);
const mailbox = z.email('must be an e-mail address').max(320);

export const SendClientInvoiceDto = dto('SendClientInvoiceDto', 'Send the issued invoice by e-mail (with SMTP_URL set; else it is only marked sent).', {
  to: z.array(mailbox).min(1).max(10).optional().describe("Recipients; default: the client's e-mail as issued"),
  cc: z.array(mailbox).max(10).optional().describe('Copies'),
  message: z.string().trim().min(1).max(5000).optional().describe('The text of the mail; default: a short note naming the invoice'),
  attach: z
    .array(z.string().refine((format) => attachable.has(format), { message: `must be one of: ${attachableFormatNames.join(', ')}` }))
    .min(1)
    .max(attachableFormatNames.length)
    .default(['pdf'])
    .describe(`The files attached, each once: ${attachableFormatNames.join(', ')} (default: pdf); each as GET .../pdf and .../e-invoice serve it`),
});

export const SendReminderDto = dto('SendReminderDto', 'Send a payment reminder by e-mail, its PDF attached (with SMTP_URL set; else it is only marked sent).', {
  to: z.array(mailbox).min(1).max(10).optional().describe("Recipients; default: the client's e-mail as issued"),
  cc: z.array(mailbox).max(10).optional().describe('Copies'),
  message: z.string().trim().min(1).max(5000).optional().describe('The text of the mail; default: a short note naming the reminder and the invoice'),
});

export const PayClientInvoiceDto = dto('PayClientInvoiceDto', 'A payment received.', {
  paidAt: fields.date('The day it was received'),
  amount: money('Default: all that is due; less is a partial payment').optional(),
});

const tenantId = fields.id('Tenant id');
const clientInvoiceId = fields.id('Client invoice id');
export const ListClientInvoicesArgs = args({
  tenantId,
  status: clientInvoiceStatus.schema('Only invoices with this status').optional(),
  clientId: fields.id('Only invoices of this client').optional(),
  from: fields.date('Issued on or after this date').optional(),
  to: fields.date('Issued on or before this date').optional(),
  ...pagination,
});
export const ClientInvoiceArgs = args({ tenantId, id: clientInvoiceId });
export const CreateClientInvoiceArgs = args({ tenantId, input: CreateClientInvoiceDto });
export const UpdateClientInvoiceArgs = args({ tenantId, id: clientInvoiceId, input: UpdateClientInvoiceDto });
export const SendClientInvoiceArgs = args({ tenantId, id: clientInvoiceId, input: SendClientInvoiceDto.optional() });
export const PayClientInvoiceArgs = args({ tenantId, id: clientInvoiceId, input: PayClientInvoiceDto });

export type ClientInvoiceQuery = PrismaQuery<Prisma.ClientInvoiceInclude, Prisma.ClientInvoiceSelect>;
export type ManualLine = z.output<typeof ManualLineDto>;
export type DiscountInput = z.output<typeof DiscountDto>;
