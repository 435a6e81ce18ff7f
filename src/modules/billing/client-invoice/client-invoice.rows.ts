/** The rows a client invoice's writes start from (the invoice itself, locked, and its client), and how its lines are written. */
import type { TenantAccess } from '../../../auth/tenant-access.js';
import type { Tx } from '../../../db/client.js';
import type { Client, ClientInvoice } from '../../../generated/prisma/client.js';
import { notFound, validationFailed } from '../../../lib/errors.js';
import type { LineValues } from './client-invoice.lines.js';

/** The invoice, row-locked for the rest of `tx`, or 404. */
export async function lockInvoice(tx: Tx, access: TenantAccess, id: string): Promise<ClientInvoice> {
  const values: unknown[] = [id];
  const changeable = access.sqlScope('update', 'ClientInvoice', 'ci', (value) => `$${values.push(value)}`);
  const locked = await tx.$queryRawUnsafe<{ id: string }[]>(`SELECT ci.id FROM client_invoices ci WHERE ci.id = $1 AND ${changeable} FOR UPDATE`, ...values);
  if (locked.length === 0) throw notFound('ClientInvoice', id);
  return tx.clientInvoice.findFirstOrThrow({ where: { id, ...access.scope('update', 'ClientInvoice') } });
}

export async function findClient(tx: Tx, access: TenantAccess, id: string): Promise<Client> {
  const client = await tx.client.findFirst({ where: { id, ...access.tenantWide('Client') } });
  if (!client) throw validationFailed([{ path: 'clientId', message: 'is not a client of this tenant' }]);
  return client;
}

/**
 * Writes `lines` to invoice `invoiceId` in one statement, a column an array (`unnest`): sixteen parameters
 * whatever the count. Prisma's `createMany` binds every value of every row on its own and built that
 * statement in the client for 0.7 to 1 s for the 1,731 lines of an invoice from 10,000 entries, most of
 * the invoice's 2 s (the INSERT itself: 19 ms). The ids are UUIDv7 as Prisma's `uuid(7)` makes them;
 * the records trigger sees the same rows.
 */
export async function insertLines(tx: Tx, invoiceId: string, lines: readonly LineValues[]): Promise<void> {
  if (lines.length === 0) return;
  const column = <Value>(value: (line: LineValues) => Value): Value[] => lines.map(value);
  await tx.$executeRawUnsafe(
    `INSERT INTO client_invoice_lines (id, "clientInvoiceId", position, description, quantity, unit, "baseQuantity", "unitPrice", "netAmount",
                                       "taxCategory", "taxRate", "taxExemptionReason", "projectId", "taskId", "tenantUserId", "entryCount", source)
     SELECT uuidv7()::text, $1, line.* FROM unnest($2::int[], $3::text[], $4::numeric[], $5::"InvoiceLineUnit"[], $6::int[], $7::numeric[],
                                                   $8::numeric[], $9::"TaxCategory"[], $10::numeric[], $11::text[], $12::text[], $13::text[],
                                                   $14::text[], $15::int[], $16::"InvoiceLineSource"[]) AS line`,
    invoiceId,
    column((line) => line.position),
    column((line) => line.description),
    // Decimal's toFixed() writes every digit it holds, never an exponent.
    column((line) => line.quantity.toFixed()),
    column((line) => line.unit),
    column((line) => line.baseQuantity),
    column((line) => line.unitPrice.toFixed()),
    column((line) => line.netAmount.toFixed()),
    column((line) => line.taxCategory),
    column((line) => line.taxRate.toFixed()),
    column((line) => line.taxExemptionReason),
    column((line) => line.projectId),
    column((line) => line.taskId),
    column((line) => line.tenantUserId),
    column((line) => line.entryCount),
    column((line) => line.source),
  );
}
