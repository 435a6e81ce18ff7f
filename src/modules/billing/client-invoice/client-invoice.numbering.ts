/**
 * An invoice's number: the tenant's gapless counter, one row per tenant and year
 * (`invoice_number_counters`), taken inside the issuing transaction and row-locked
 * until it ends, so that issuers in any process wait in line and a failed issue gives
 * its number back; and in this process, a queue per tenant in front of it.
 */
import type { TenantAccess } from '../../../auth/tenant-access.js';
import type { Tx } from '../../../db/client.js';
import { counterYear, formatNumber } from '../billing-profile/billing-profile.numbers.js';

/** Issuing waits for the tenant's number counter behind other issuers: give it room under load. */
export const issueTransaction = { maxWait: 10_000, timeout: 20_000 };

/** An invoice's number columns: the number as printed, and the counter's year and sequence it came from. */
export interface InvoiceNumber {
  number: string;
  numberYear: number;
  numberSequence: number;
}

/**
 * A queue per key (a tenant): `inLine(key, run)` runs `run` after every earlier run of the same `key` in this
 * process has settled. Issuers of one tenant wait for its counter's row lock in turn anyway; making them wait
 * here, before they check out a connection, keeps fifty issues at once from holding the whole pool while they
 * queue for the lock (other processes still queue on the lock itself).
 */
export function createNumberQueue() {
  const queues = new Map<string, Promise<unknown>>();
  return function inLine<Result>(key: string, run: () => Promise<Result>): Promise<Result> {
    const result = (queues.get(key) ?? Promise.resolve()).then(run, run);
    const settled = result.then(
      () => undefined,
      () => undefined,
    );
    queues.set(key, settled);
    void settled.then(() => {
      if (queues.get(key) === settled) queues.delete(key);
    });
    return result;
  };
}

/** The next number of the tenant's counter for `issueDate`'s year (0: a pattern without one), row-locked until `tx` ends. */
export async function nextNumber(tx: Tx, access: TenantAccess, pattern: string, issueDate: string): Promise<InvoiceNumber> {
  const year = counterYear(pattern, issueDate);
  const [counter] = await tx.$queryRaw<{ last: number }[]>`
    INSERT INTO invoice_number_counters ("tenantId", year, last) VALUES (${access.tenantId}, ${year}, 1)
    ON CONFLICT ("tenantId", year) DO UPDATE SET last = invoice_number_counters.last + 1
    RETURNING last`;
  const sequence = (counter as { last: number }).last;
  return { number: formatNumber(pattern, issueDate, sequence), numberYear: year, numberSequence: sequence };
}
