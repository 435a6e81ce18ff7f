/**
 * What `tally seed` bills: a complete billing profile, then invoices of the
 * seeded clients' approved time, month by month, left in every state (draft,
 * issued, sent, partly paid, paid, and void with its credit note). Written
 * through the service, so that seeded invoices obey every rule the API's do.
 */
import type { TenantAccess } from '../../../auth/tenant-access.js';
import { AppError } from '../../../lib/errors.js';
import type { Services } from '../../services.js';
import { dayText } from '../../../lib/day.js';

const states = ['paid', 'void', 'sent', 'partly paid', 'issued', 'draft'] as const;

/** The first day and the last of the month `monthsAgo` before `now` (UTC). */
function month(now: Date, monthsAgo: number): { periodFrom: string; periodTo: string } {
  const first = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - monthsAgo, 1));
  const last = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - monthsAgo + 1, 0));
  return { periodFrom: dayText(first), periodTo: dayText(last) };
}

/** Bills `clientIds` for the months before the last one (before `now`, the clock's), one invoice in each state; returns how many were made. */
export async function seedClientInvoices(
  services: Services,
  access: TenantAccess,
  tenantName: string,
  clientIds: readonly string[],
  now: Date,
): Promise<number> {
  await services.billingProfile.update(access, {
    legalName: tenantName,
    address: { line1: 'Hauptstraße 1', postcode: '10115', city: 'Berlin', countryCode: 'DE' },
    vatId: 'DE123456789',
    email: 'billing@example.com',
    iban: 'DE89370400440532013000',
    bic: 'COBADEFFXXX',
    defaultTaxRate: '19.00',
  });
  const invoices = services.clientInvoices;
  let made = 0;
  for (const [index, state] of states.entries()) {
    const clientId = clientIds[index % clientIds.length] as string;
    let invoice: { id: string; gross: { toFixed(places: number): string } };
    try {
      invoice = await invoices.create(access, {
        clientId,
        ...month(now, 2 + index),
        groupBy: 'project',
        includeExpenses: true,
        expenseGrouping: 'expense',
        discount: undefined,
      });
    } catch (error) {
      // A client without approved time that month has nothing to bill.
      if (error instanceof AppError && error.reason === 'NOTHING_TO_INVOICE') continue;
      throw error;
    }
    made += 1;
    if (state === 'draft') continue;
    await invoices.issue(access, invoice.id);
    if (state === 'void') await invoices.void(access, invoice.id);
    if (state === 'sent' || state === 'paid' || state === 'partly paid') await invoices.send(access, invoice.id, { attach: ['pdf'] });
    const paidAt = month(now, 1).periodFrom;
    if (state === 'paid') await invoices.pay(access, invoice.id, { paidAt });
    if (state === 'partly paid') await invoices.pay(access, invoice.id, { paidAt, amount: '100.00' });
  }
  return made;
}
