/** The recurring-invoice contract (CONTRACT.md section 11, "Recurring invoices"): its inputs and vocabularies. */
import { z } from 'zod';
import type { PrismaQuery } from '../../../db/query.js';
import type { Prisma } from '../../../generated/prisma/client.js';
import { RecurringInterval } from '../../../generated/prisma/enums.js';
import { args, dto, fields, pagination } from '../../../lib/dto.js';
import { defineEnum } from '../../../lib/vocabulary.js';
import { ManualLineDto } from '../client-invoice/client-invoice.dto.js';

export const recurringInterval = defineEnum('RecurringInterval', RecurringInterval, 'month, quarter or year');

const schedule = {
  interval: recurringInterval.schema('How often an invoice is made'),
  dayOfPeriod: z
    .number()
    .int()
    .min(1)
    .max(366)
    .describe("The day of each period its invoice is made on: 1 its first day (default); past the period's last day, its last day"),
  startDate: fields.date('The first day of the first period (a date in the past: the periods since are made at once)'),
  endDate: fields.date('No period begins after this day').nullable(),
  includeTime: z.boolean().describe("Also bill the client's approved, uninvoiced time of the period (as a client invoice's create does)"),
  autoIssue: z.boolean().describe('Issue each invoice when it is made (else it stays a draft)'),
  autoSend: z.boolean().describe('Send each issued invoice (as POST client-invoices/{id}/send with the PDF); needs autoIssue'),
};

const lines = z.array(ManualLineDto).max(200).describe('The fixed lines of every invoice (e.g. a monthly fee)');

export const CreateRecurringInvoiceDto = dto('CreateRecurringInvoiceDto', 'An invoice made every month, quarter or year.', {
  clientId: fields.id('The client invoiced'),
  lines: lines.default([]),
  ...schedule,
  dayOfPeriod: schedule.dayOfPeriod.default(1),
  endDate: schedule.endDate.optional(),
  includeTime: schedule.includeTime.default(false),
  autoIssue: schedule.autoIssue.default(false),
  autoSend: schedule.autoSend.default(false),
});

export const UpdateRecurringInvoiceDto = dto('UpdateRecurringInvoiceDto', 'Changes a recurring invoice: the periods already invoiced stay.', {
  lines: lines.optional(),
  interval: schedule.interval.optional(),
  dayOfPeriod: schedule.dayOfPeriod.optional(),
  startDate: schedule.startDate.optional(),
  endDate: schedule.endDate.optional(),
  includeTime: schedule.includeTime.optional(),
  autoIssue: schedule.autoIssue.optional(),
  autoSend: schedule.autoSend.optional(),
});

const tenantId = fields.id('Tenant id');
const id = fields.id('Recurring invoice id');
export const ListRecurringInvoicesArgs = args({ tenantId, clientId: fields.id('Only those of this client').optional(), ...pagination });
export const RecurringInvoiceArgs = args({ tenantId, id });
export const CreateRecurringInvoiceArgs = args({ tenantId, input: CreateRecurringInvoiceDto });
export const UpdateRecurringInvoiceArgs = args({ tenantId, id, input: UpdateRecurringInvoiceDto });

export type RecurringInvoiceQuery = PrismaQuery<Prisma.RecurringInvoiceInclude, Prisma.RecurringInvoiceSelect>;
