/**
 * The client-invoices list through `sql` (issue 41), two statements a page:
 * the page of invoices with, for each, its payments, its last send and the id
 * of the credit note that voided it, as json aggregates of their indexes
 * (`(clientInvoiceId, paidAt)`, `(clientInvoiceId, createdAt)`, the unique
 * `creditNoteForId`); then the lines of the page's invoices by the
 * `(clientInvoiceId, position)` index (`linesOfPage` says why apart).
 *
 * Through Prisma the same page was six statements (the invoices, then one per
 * relation) and Prisma's mapping of every value: most of what the list cost
 * beyond the GraphQL fields that print it. The rows come back in the shape
 * Prisma gives the GraphQL fields (the relations under their own names), and
 * the same fields print them; what differs is only how values arrive, each in
 * a form those fields read as they read Prisma's:
 * - decimals as their text without trailing zeros (`trim_scale`), as Prisma's
 *   Decimal prints itself: money and percent fields print text at their scale
 *   (src/lib/money.ts), and the Decimal scalar prints a quantity as it is;
 * - days as `YYYY-MM-DD` and instants as `toISOString` prints them, in the
 *   invoice's columns and in the json of its relations alike: the Date and
 *   DateTime scalars print that text unchanged. Read as Date objects, a page
 *   of 50 had some 400 timestamps parsed by pg and printed again by the
 *   scalars (docs/performance.md, "The client-invoices list").
 * REST prints these rows itself (client-invoice.plain.ts); GraphQL through its
 * fields. test/client-invoice-list.test.ts holds the list to what reading each
 * invoice answers, byte for byte.
 */
import type { z } from 'zod';
import type { TenantAccess } from '../../../auth/tenant-access.js';
import type { Sql } from '../../../db/client.js';
import type { ClientInvoice, ClientInvoiceLine, ClientInvoicePayment, ClientInvoiceSend } from '../../../generated/prisma/client.js';
import type { ClientInvoiceQuery, ListClientInvoicesArgs } from './client-invoice.dto.js';

/** What the list reads of a line: what its fields print, and its invoice. */
export type ListedLine = Omit<ClientInvoiceLine, 'id' | 'source'>;

/** An invoice with what the list's fields read of its relations. */
export type ListedClientInvoice = ClientInvoice & {
  lines: ListedLine[];
  payments: ClientInvoicePayment[];
  sends: ClientInvoiceSend[];
  creditNote: { id: string } | null;
};

/** The relations the statement loads: a selection that asks for no other (REST's, and GraphQL's without `client` or `creditNoteFor`) is served by it. */
const loaded = new Set(['lines', 'payments', 'sends', 'creditNote']);

/** Whether the list statement serves `query` (the selection Pothos computed): no `select`, and no relation beyond those it loads. */
export function servesListQuery(query: ClientInvoiceQuery): boolean {
  if (query.select !== undefined) return false;
  return query.include === undefined || Object.keys(query.include).every((relation) => loaded.has(relation));
}

/** A decimal as Prisma's Decimal prints itself. */
const decimal = (column: string) => `trim_scale(${column})::text`;
/** A day as the Date scalar prints it. */
const day = (column: string) => `to_char(${column}, 'YYYY-MM-DD')`;
/** An instant as the DateTime scalar prints it. */
const instant = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

const invoiceColumns = [
  'i.id',
  'i."tenantId"',
  'i."clientId"',
  'i."clientName"',
  'i.type',
  'i."creditNoteForId"',
  'i.status',
  'i.number',
  'i."numberYear"',
  'i."numberSequence"',
  'i.currency',
  ...['issueDate', 'dueDate', 'periodFrom', 'periodTo'].map((column) => `${day(`i."${column}"`)} AS "${column}"`),
  'i."groupBy"',
  'i."buyerReference"',
  'i.notes',
  'i.seller',
  'i.buyer',
  ...['discountPercent', 'discountAmount', 'lineNet', 'allowances', 'taxBasis', 'tax', 'gross', 'paid', 'due'].map(
    (column) => `${decimal(`i."${column}"`)} AS "${column}"`,
  ),
  'i."discountReason"',
  'i.taxes',
  ...['issuedAt', 'sentAt'].map((column) => `${instant(`i."${column}"`)} AS "${column}"`),
  'i."sentTo"',
  ...['paidAt', 'voidedAt'].map((column) => `${instant(`i."${column}"`)} AS "${column}"`),
  'i."createdById"',
  ...['createdAt', 'updatedAt'].map((column) => `${instant(`i."${column}"`)} AS "${column}"`),
].join(', ');

/**
 * The lines of a page's invoices, in a statement of their own: as a json aggregate per invoice, they cost most of
 * the page's statement (a sort and an aggregate started per invoice, a json object built per line, its types looked
 * up per value); by the page's ids they are one scan of the `(clientInvoiceId, position)` index. Only what the list
 * prints of a line (and its invoice's id, to hand it to its invoice). A prepared statement: its text is fixed and
 * its plan (by the ids) the same for every page, so it is parsed and planned once per connection.
 */
const linesOfPage = `SELECT l."clientInvoiceId", l.position, l.description, ${decimal('l.quantity')} AS quantity, l.unit, l."baseQuantity",
         ${decimal('l."unitPrice"')} AS "unitPrice", ${decimal('l."netAmount"')} AS "netAmount", l."taxCategory", ${decimal('l."taxRate"')} AS "taxRate",
         l."taxExemptionReason", l."projectId", l."taskId", l."tenantUserId", l."entryCount"
    FROM client_invoice_lines l WHERE l."clientInvoiceId" = ANY($1::text[]) ORDER BY l."clientInvoiceId", l.position`;

const payments = `coalesce((
    SELECT json_agg(json_build_object(
      'id', p.id, 'clientInvoiceId', p."clientInvoiceId", 'paidAt', to_char(p."paidAt", 'YYYY-MM-DD'), 'amount', ${decimal('p.amount')},
      'createdAt', ${instant('p."createdAt"')}) ORDER BY p."paidAt", p."createdAt")
    FROM client_invoice_payments p WHERE p."clientInvoiceId" = i.id), '[]') AS payments`;

const lastSend = `coalesce((
    SELECT json_agg(json_build_object(
      'id', s.id, 'tenantId', s."tenantId", 'clientInvoiceId', s."clientInvoiceId", 'status', s.status, 'to', s."to", 'cc', s.cc,
      'message', s.message, 'attach', s.attach, 'messageId', s."messageId", 'attempts', s.attempts, 'lastError', s."lastError",
      'deliveredAt', ${instant('s."deliveredAt"')}, 'createdById', s."createdById", 'createdAt', ${instant('s."createdAt"')},
      'updatedAt', ${instant('s."updatedAt"')}, 'reminderId', s."reminderId"))
    FROM (SELECT * FROM client_invoice_sends s WHERE s."clientInvoiceId" = i.id ORDER BY s."createdAt" DESC LIMIT 1) s), '[]') AS sends`;

const creditNote = `(SELECT json_build_object('id', c.id) FROM client_invoices c WHERE c."creditNoteForId" = i.id) AS "creditNote"`;

/**
 * A page of the caller's client invoices, newest first (the order of `newestFirst`, on the tenant's
 * `(tenantId, createdAt, id)` index, or `(tenantId, status | clientId, createdAt, id)` with a filter), in one statement.
 */
export async function listClientInvoices(
  sql: Sql,
  access: TenantAccess,
  { limit, offset, tenantId: _tenant, status, clientId, from, to }: z.output<typeof ListClientInvoicesArgs>,
): Promise<ListedClientInvoice[]> {
  // Bound by hand into an array, as the notes' list is (docs/performance.md).
  const values: unknown[] = [limit, offset];
  const bind = (value: unknown) => `$${values.push(value)}`;
  const where = [access.sqlScope('read', 'ClientInvoice', 'i', bind)];
  if (status) where.push(`i.status = ${bind(status)}::"ClientInvoiceStatus"`);
  if (clientId) where.push(`i."clientId" = ${bind(clientId)}`);
  if (from) where.push(`i."issueDate" >= ${bind(from)}::date`);
  if (to) where.push(`i."issueDate" <= ${bind(to)}::date`);
  const rows = await sql.query(
    `SELECT ${invoiceColumns}, ${payments}, ${lastSend}, ${creditNote}
       FROM client_invoices i WHERE ${where.join(' AND ')}
      ORDER BY i."createdAt" DESC, i.id DESC LIMIT $1 OFFSET $2`,
    values,
  );
  // The decimals, days and instants arrive as their text: the form every field that prints them takes (see the
  // header), not Prisma's Decimal and Date, which the type names.
  const invoices = rows as unknown as ListedClientInvoice[];
  if (invoices.length === 0) return invoices;
  const byId = new Map<string, ListedClientInvoice>();
  for (const invoice of invoices) {
    invoice.lines = [];
    byId.set(invoice.id, invoice);
  }
  // The page's invoices are readable by the caller (the statement above); their lines are theirs.
  const lines = await sql.queryPrepared<ListedLine>('client-invoice-list-lines', linesOfPage, [[...byId.keys()]]);
  for (const line of lines) byId.get(line.clientInvoiceId)?.lines.push(line);
  return invoices;
}
