/**
 * What a new draft bills and what a deleted draft or a voided invoice gives
 * back: the client's approved time and expenses of the period, claimed in
 * the draft's transaction, as lines (time, then expenses, then manual
 * lines); released together.
 */
import type { z } from 'zod';
import type { TenantAccess } from '../../../auth/tenant-access.js';
import type { Tx } from '../../../db/client.js';
import type { Client } from '../../../generated/prisma/client.js';
import type { BillingProfileView } from '../billing-profile/billing-profile.service.js';
import { claimExpenses, releaseExpenses } from '../expense/expense.claims.js';
import { clientInvoiceConflicts, type CreateClientInvoiceDto } from './client-invoice.dto.js';
import { expenseLines } from './client-invoice.expenses.js';
import { claimEntries, lineTax, manualLinesOf, namesOf, timeLines, type LineValues } from './client-invoice.lines.js';

export interface DraftScope {
  invoiceId: string;
  client: Client;
  profile: BillingProfileView;
  timeZone: string;
  digits: number;
}

/**
 * The lines of a new draft: the client's time and (unless `includeExpenses`
 * is false) expenses, claimed for it, and the manual lines. 409
 * NOTHING_TO_INVOICE when there is none of them.
 */
export async function draftLines(tx: Tx, access: TenantAccess, input: z.output<typeof CreateClientInvoiceDto>, scope: DraftScope): Promise<LineValues[]> {
  const { client, profile, timeZone, digits } = scope;
  const period = { invoiceId: scope.invoiceId, clientId: client.id, currency: client.currency, periodFrom: input.periodFrom, periodTo: input.periodTo };
  const entries = await claimEntries(tx, access, { ...period, timeZone, projectIds: input.projectIds });
  const expenses = input.includeExpenses ? await claimExpenses(tx, access, { ...period, projectIds: input.projectIds }) : [];
  if (entries.length === 0 && expenses.length === 0 && !input.lines?.length) {
    throw clientInvoiceConflicts.refuse(
      'NOTHING_TO_INVOICE',
      `No approved, billable, finished entry or approved, billable expense of ${client.name} from ${input.periodFrom} to ${input.periodTo} is left to invoice`,
    );
  }
  const fromTime =
    entries.length > 0 ? timeLines(entries, input.groupBy, await namesOf(tx, access, entries), timeZone, lineTax(profile, client, {}, 'clientId'), digits) : [];
  const fromExpenses = expenseLines(expenses, input.expenseGrouping, profile, client, fromTime.length);
  const before = fromTime.length + fromExpenses.length;
  return [...fromTime, ...fromExpenses, ...manualLinesOf(input.lines ?? [], profile, client, before, digits)];
}

/** Frees what an invoice billed (a deleted draft, a voided invoice): its entries and expenses may be invoiced again. */
export async function releaseBilled(tx: Tx, access: TenantAccess, invoiceId: string): Promise<void> {
  await tx.entry.updateMany({ where: { clientInvoiceId: invoiceId, ...access.tenantWide('Entry') }, data: { clientInvoiceId: null } });
  await releaseExpenses(tx, access, invoiceId);
}
