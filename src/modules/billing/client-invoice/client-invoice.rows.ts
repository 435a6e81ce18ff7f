/** The rows a client invoice's writes start from: the invoice itself, locked, and its client. */
import type { TenantAccess } from '../../../auth/tenant-access.js';
import type { Tx } from '../../../db/client.js';
import type { Client, ClientInvoice } from '../../../generated/prisma/client.js';
import { notFound, validationFailed } from '../../../lib/errors.js';

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
