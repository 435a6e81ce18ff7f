/**
 * Issued documents are records (issue 37 section 6, CONTRACT.md section 11; GoBD, UStG § 14b): the database
 * itself refuses changing an issued invoice's or credit note's content and deleting it until 8 years after
 * the end of its issue year, to plain SQL as the application's own role, also through its tenant, while
 * status moves and payments go on; its files come out byte for byte the same after the profile and the client
 * change and after a restart; and every change to billing records is in the change feed with who and when.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemAccess } from '../src/auth/tenant-access.js';
import { systemActor } from '../src/auth/actor.js';
import { exposedErrorOf } from '../src/graphql/errors.js';
import { createLogger } from '../src/lib/logger.js';
import { writeEInvoice, type WrittenEInvoiceFormat } from '../src/modules/billing/client-invoice/einvoice/writer.js';
import { renderClientInvoicePdf } from '../src/modules/billing/client-invoice/client-invoice.pdf.js';
import type { ClientInvoice, Problem } from './generated/openapi/types.gen.js';
import { approvedEntry, billingTenant, publicClient, xrechnungSeller, type Billing } from './helpers/billing.js';
import { eventually } from './helpers/eventually.js';
import { download } from './helpers/files.js';
import type { Json } from './helpers/http.js';
import { startIdentityProvider, type IdentityProvider } from './helpers/oidc.js';
import { startTallyProcess } from './helpers/processes.js';
import { startTestServer, type TestServer } from './helpers/server.js';

let provider: IdentityProvider;
let server: TestServer;
let pool: pg.Pool;

beforeAll(async () => {
  provider = await startIdentityProvider();
  server = await startTestServer({ env: provider.env });
  // Plain SQL as the application's own role, as psql would send it.
  pool = new pg.Pool({ connectionString: server.databaseUrl, max: 2 });
});
afterAll(async () => {
  await pool?.end();
  await server?.stop();
  await provider?.close();
});

/** The SQLSTATE PostgreSQL refuses `sql` with (undefined: it was not refused). */
async function refusalOf(sql: string, values: unknown[] = []): Promise<string | undefined> {
  try {
    await pool.query(sql, values);
    return undefined;
  } catch (error) {
    return (error as { code?: string }).code;
  }
}

/** A draft from the member's time in March 2026 (or only `lines` when given), issued unless `issue` is false. */
async function invoiceOf(b: Billing, options: { issue?: boolean; issueDate?: string; lines?: Json[]; period?: [string, string] } = {}) {
  const [periodFrom, periodTo] = options.period ?? ['2026-03-01', '2026-03-31'];
  const created = await b.api.post<ClientInvoice>(b.path, {
    clientId: b.clientId,
    periodFrom,
    periodTo,
    ...(options.issueDate ? { issueDate: options.issueDate } : {}),
    ...(options.lines ? { lines: options.lines } : {}),
  });
  expect(created.status, created.text).toBe(201);
  if (options.issue === false) return created.body;
  const issued = await b.api.post<ClientInvoice>(`${b.path}/${created.body.id}/issue`);
  expect(issued.status, issued.text).toBe(200);
  return issued.body;
}

const row = async (table: string, id: string) => (await pool.query(`SELECT to_jsonb(t) AS row FROM ${table} t WHERE id = $1`, [id])).rows[0]?.row;
const manualLine = { description: 'Fixed fee', quantity: '1', unitPrice: '500.00' };

describe('an issued invoice in the database', () => {
  it(
    'refuses every change of its content, its lines and its deletion to plain SQL, also through its tenant or client; status moves and payments go on',
    { timeout: 120_000 },
    async () => {
      const b = await billingTenant(server, provider);
      await approvedEntry(b, (b.projects[0] as { id: string }).id, '2026-03-02T08:00:00Z', 95);
      const invoice = await invoiceOf(b);
      const other = await b.api.post<{ id: string }>(`/tenants/${b.tenant.id}/clients`, {
        name: 'Other AG',
        currency: 'EUR',
        billingAddress: { line1: 'Ring 2', postcode: '1010', city: 'Wien', countryCode: 'AT' },
      });
      const before = await row('client_invoices', invoice.id);
      const linesBefore = (await pool.query('SELECT * FROM client_invoice_lines WHERE "clientInvoiceId" = $1 ORDER BY position', [invoice.id])).rows;

      const content = [
        `notes = 'changed'`,
        'gross = gross + 1',
        '"lineNet" = "lineNet" + 1, "taxBasis" = "taxBasis" + 1',
        `taxes = '[]'`,
        `seller = jsonb_set(seller, '{legalName}', '"Someone Else GmbH"')`,
        `buyer = jsonb_set(buyer, '{address,city}', '"Graz"')`,
        `number = 'X-1'`,
        '"issueDate" = "issueDate" + 1',
        '"dueDate" = "dueDate" + 30',
        `currency = 'USD'`,
        `type = 'credit_note'`,
        `"clientId" = '${other.body.id}'`,
        `"discountPercent" = 10`,
        `"buyerReference" = 'another'`,
        `status = 'draft'`,
      ];
      for (const change of content) expect(await refusalOf(`UPDATE client_invoices SET ${change} WHERE id = $1`, [invoice.id]), change).toBe('TR409');
      for (const statement of [
        'DELETE FROM client_invoices WHERE id = $1',
        'UPDATE client_invoice_lines SET "netAmount" = "netAmount" + 1 WHERE "clientInvoiceId" = $1',
        `UPDATE client_invoice_lines SET description = 'changed' WHERE "clientInvoiceId" = $1`,
        'DELETE FROM client_invoice_lines WHERE "clientInvoiceId" = $1',
        `INSERT INTO client_invoice_lines (id, "clientInvoiceId", position, description, quantity, unit, "unitPrice", "netAmount", "taxCategory", "taxRate", source)
           VALUES (gen_random_uuid()::text, $1, 99, 'Extra', 1, 'C62', 10, 10, 'S', 19, 'manual')`,
      ]) {
        expect(await refusalOf(statement, [invoice.id]), statement).toBe('TR409');
      }
      // Through a cascade (its tenant), or all at once: refused by the same triggers.
      expect(await refusalOf('DELETE FROM tenants WHERE id = $1', [b.tenant.id])).toBe('TR409');
      expect(await refusalOf('TRUNCATE client_invoice_lines')).toBe('TR409');
      expect(await refusalOf('TRUNCATE tenants CASCADE')).toBe('TR409');
      // Its client is held by the foreign key (ON DELETE RESTRICT): the invoice names who it billed.
      expect(await refusalOf('DELETE FROM clients WHERE id = $1', [b.clientId])).toBe('23001');
      expect(await row('client_invoices', invoice.id)).toEqual(before);
      expect((await pool.query('SELECT * FROM client_invoice_lines WHERE "clientInvoiceId" = $1 ORDER BY position', [invoice.id])).rows).toEqual(linesBefore);

      // What the API meets should a path ever reach a trigger: a 409 naming it, not a 500.
      const refused = await server.app.db.clientInvoice.update({ where: { id: invoice.id }, data: { notes: 'changed' } }).catch((error: unknown) => error);
      expect(exposedErrorOf(refused, createLogger('silent'))).toMatchObject({ status: 409, code: 'INVALID_STATE', reason: 'RECORD_RETAINED' });

      // Status moves and payments go on, through the API and in SQL alike.
      expect((await b.api.post<ClientInvoice>(`${b.path}/${invoice.id}/send`, {})).body.status).toBe('sent');
      const partly = await b.api.post<ClientInvoice>(`${b.path}/${invoice.id}/pay`, { paidAt: '2026-04-10', amount: '10.00' });
      expect(partly.status, partly.text).toBe(200);
      // A payment is added, never changed or taken away.
      for (const statement of [
        'UPDATE client_invoice_payments SET amount = amount + 1 WHERE "clientInvoiceId" = $1',
        `UPDATE client_invoice_payments SET "paidAt" = '2026-04-11' WHERE "clientInvoiceId" = $1`,
        'DELETE FROM client_invoice_payments WHERE "clientInvoiceId" = $1',
      ]) {
        expect(await refusalOf(statement, [invoice.id]), statement).toBe('TR409');
      }
      expect((await b.api.post<ClientInvoice>(`${b.path}/${invoice.id}/pay`, { paidAt: '2026-04-20' })).body.status).toBe('paid');
      expect(await refusalOf(`UPDATE client_invoices SET "sentAt" = now(), "updatedAt" = now() WHERE id = $1`, [invoice.id])).toBeUndefined();

      // Void: the credit note is a record from its issue on, and void is final.
      const voided = await b.api.post<ClientInvoice & { creditNoteId: string }>(`${b.path}/${invoice.id}/void`);
      expect(voided.status, voided.text).toBe(200);
      const creditNote = await b.api.get<ClientInvoice>(`${b.path}/${voided.body.creditNoteId}`);
      expect(creditNote.body).toMatchObject({ type: 'credit_note', status: 'issued', totals: { gross: invoice.totals.gross } });
      expect(creditNote.body.lines.map((line) => line.netAmount)).toEqual(invoice.lines.map((line) => line.netAmount));
      expect(await refusalOf(`UPDATE client_invoices SET notes = 'changed' WHERE id = $1`, [creditNote.body.id])).toBe('TR409');
      expect(await refusalOf('DELETE FROM client_invoice_lines WHERE "clientInvoiceId" = $1', [creditNote.body.id])).toBe('TR409');
      expect(await refusalOf(`UPDATE client_invoices SET status = 'paid' WHERE id = $1`, [invoice.id])).toBe('TR409');

      // Over the API, a client without projects but with an issued invoice stays, with a 409.
      const billed = await invoiceOf({ ...b, clientId: other.body.id }, { lines: [manualLine], period: ['2026-05-01', '2026-05-31'] });
      const clientDeleted = await b.api.delete<Problem>(`/tenants/${b.tenant.id}/clients/${other.body.id}`);
      expect(clientDeleted.status, clientDeleted.text).toBe(409);
      expect(clientDeleted.body.reason).toBe('STILL_REFERENCED');
      expect(await row('client_invoices', billed.id)).toMatchObject({ status: 'issued' });

      // A draft is no record yet: it changes and goes.
      const draft = await invoiceOf(b, { issue: false, lines: [manualLine], period: ['2026-05-01', '2026-05-31'] });
      expect(await refusalOf(`UPDATE client_invoices SET notes = 'changed' WHERE id = $1`, [draft.id])).toBeUndefined();
      expect(await refusalOf('UPDATE client_invoice_lines SET description = $2 WHERE "clientInvoiceId" = $1', [draft.id, 'changed'])).toBeUndefined();
      expect(await refusalOf('DELETE FROM client_invoices WHERE id = $1', [draft.id])).toBeUndefined();
    },
  );

  it('lets a document go 8 years after the end of its issue year, with its lines, payments and files', { timeout: 120_000 }, async () => {
    const b = await billingTenant(server, provider);
    // Relative to the database's own day, so that this holds on every day of every year.
    const year = Number((await pool.query<{ year: string }>('SELECT extract(year FROM current_date)::text AS year')).rows[0]?.year);
    const expired = await invoiceOf(b, { issueDate: `${year - 9}-12-31`, lines: [manualLine], period: [`${year - 9}-12-01`, `${year - 9}-12-31`] });
    const kept = await invoiceOf(b, { issueDate: `${year - 8}-01-01`, lines: [manualLine], period: [`${year - 8}-01-01`, `${year - 8}-01-31`] });
    for (const invoice of [expired, kept]) {
      expect((await b.api.post(`${b.path}/${invoice.id}/pay`, { paidAt: invoice.issueDate, amount: '100.00' })).status).toBe(200);
      expect((await b.api.get(`${b.path}/${invoice.id}/pdf`)).status).toBe(200);
    }
    const parts = async (id: string) =>
      (
        await pool.query<{ parts: string }>(
          `SELECT (SELECT count(*) FROM client_invoice_lines WHERE "clientInvoiceId" = $1)
                + (SELECT count(*) FROM client_invoice_payments WHERE "clientInvoiceId" = $1)
                + (SELECT count(*) FROM client_invoice_files WHERE "clientInvoiceId" = $1) AS parts`,
          [id],
        )
      ).rows[0]?.parts;
    expect(await parts(expired.id)).toBe('3');
    // Its content never changes while it exists; it may go once its retention is over.
    expect(await refusalOf(`UPDATE client_invoices SET notes = 'changed' WHERE id = $1`, [expired.id])).toBe('TR409');
    expect(await refusalOf('DELETE FROM client_invoices WHERE id = $1', [kept.id])).toBe('TR409');
    expect(await refusalOf('DELETE FROM client_invoices WHERE id = $1', [expired.id])).toBeUndefined();
    expect(await parts(expired.id)).toBe('0');
    expect(await parts(kept.id)).toBe('3');
  });
});

describe('the files of an issued document', () => {
  it(
    'come out byte for byte the same after the billing profile and the client change, after payments, and from a restarted server',
    { timeout: 300_000 },
    async () => {
      const b = await billingTenant(server, provider, xrechnungSeller, publicClient);
      // Two rates in March, one in April: two invoices.
      for (const [project, startedAt, minutes] of [
        [0, '2026-03-02T08:00:00Z', 95],
        [1, '2026-03-04T08:00:00Z', 50],
        [0, '2026-04-02T08:00:00Z', 125],
      ] as const) {
        await approvedEntry(b, (b.projects[project] as { id: string }).id, startedAt, minutes);
      }
      const headers = { authorization: `Bearer ${b.tenant.key}` };
      const served = await invoiceOf(b);
      const unserved = await invoiceOf(b, { period: ['2026-04-01', '2026-04-30'] });
      // Every format the invoice has, as its `client_invoice.issued` event names them.
      const issued = await server.app.db.event.findFirstOrThrow({ where: { type: 'client_invoice.issued', subjectId: served.id } });
      const eInvoiceFormats = (issued.data as { eInvoiceFormats: WrittenEInvoiceFormat[] }).eInvoiceFormats;
      expect(eInvoiceFormats).toEqual(expect.arrayContaining(['cii', 'ubl', 'xrechnung-cii', 'xrechnung-ubl']));
      const routes = (id: string): { name: string; route: string; query: Record<string, string> }[] => [
        { name: 'pdf', route: `${b.path}/${id}/pdf`, query: {} },
        { name: 'facturx', route: `${b.path}/${id}/pdf`, query: { format: 'facturx' } },
        ...eInvoiceFormats.map((format) => ({ name: format, route: `${b.path}/${id}/e-invoice`, query: { format } })),
      ];
      const filesOf = async (baseUrl: string, id: string) => {
        const files: Record<string, Buffer> = {};
        for (const { name, route, query } of routes(id)) {
          const answer = await download(baseUrl, route, query, headers);
          expect(answer.response.status, name).toBe(200);
          files[name] = answer.bytes;
        }
        return files;
      };

      const first = await filesOf(server.url, served.id);
      // The other invoice is not served before the changes: what a later first download must write.
      const access = systemAccess(b.tenant.tenant, systemActor('test'));
      const document = await server.app.services.clientInvoices.document(access, unserved.id);
      const expected: Record<string, Buffer> = {
        pdf: await renderClientInvoicePdf(document, { format: 'pdf' }),
        facturx: await renderClientInvoicePdf(document, { format: 'facturx' }),
      };
      for (const format of eInvoiceFormats) expected[format] = Buffer.from(await writeEInvoice(document, format), 'utf8');

      const t = b.tenant.id;
      const profile = await b.api.patch(`/tenants/${t}/billing-profile`, {
        legalName: 'Renamed Test GmbH',
        address: { line1: 'Neuer Weg 9', postcode: '20095', city: 'Hamburg', countryCode: 'DE' },
        iban: 'DE02120300000000202051',
        phone: '+49 40 7654321',
        paymentTermsDays: 30,
      });
      expect(profile.status, profile.text).toBe(200);
      const client = await b.api.patch(`/tenants/${t}/clients/${b.clientId}`, {
        name: 'Buyer Renamed AG',
        billingAddress: { line1: 'Graben 1', postcode: '8010', city: 'Graz', countryCode: 'AT' },
        vatId: 'ATU87654321',
        buyerReference: '991-99999-99',
      });
      expect(client.status, client.text).toBe(200);
      for (const id of [served.id, unserved.id]) {
        expect((await b.api.post(`${b.path}/${id}/send`, {})).status).toBe(200);
        expect((await b.api.post(`${b.path}/${id}/pay`, { paidAt: '2026-05-04', amount: '50.00' })).status).toBe(200);
      }
      expect((await b.api.post(`${b.path}/${served.id}/pay`, { paidAt: '2026-05-05' })).status).toBe(200);

      const restarted = await startTallyProcess('api', server.databaseUrl);
      try {
        for (const [name, bytes] of Object.entries(await filesOf(server.url, served.id)))
          expect(bytes.equals(first[name] as Buffer), `${name} after the changes`).toBe(true);
        for (const [name, bytes] of Object.entries(await filesOf(restarted.url, served.id)))
          expect(bytes.equals(first[name] as Buffer), `${name} after a restart`).toBe(true);
        // First written by the restarted process, after the changes: the document as it was issued.
        const late = await filesOf(restarted.url, unserved.id);
        for (const [name, bytes] of Object.entries(late)) expect(bytes.equals(expected[name] as Buffer), `${name} first served late`).toBe(true);
        for (const [name, bytes] of Object.entries(await filesOf(server.url, unserved.id)))
          expect(bytes.equals(late[name] as Buffer), `${name} again`).toBe(true);
      } finally {
        await restarted.stop();
      }
      expect(first.pdf?.toString('latin1')).not.toContain('Renamed');

      // Kept once each, with the SHA-256 the database checked; a draft's PDF is never kept.
      const draft = await invoiceOf(b, { issue: false, lines: [manualLine], period: ['2026-06-01', '2026-06-30'] });
      expect((await b.api.get(`${b.path}/${draft.id}/pdf`)).status).toBe(200);
      const kept = await pool.query<{ clientInvoiceId: string; format: string; matches: boolean }>(
        `SELECT "clientInvoiceId", format, sha256 = encode(sha256(content), 'hex') AS matches FROM client_invoice_files
          WHERE "clientInvoiceId" = ANY($1) ORDER BY "clientInvoiceId", format`,
        [[served.id, unserved.id, draft.id]],
      );
      expect(kept.rows).toHaveLength(2 * routes(served.id).length);
      expect(kept.rows.every((file) => file.matches && file.clientInvoiceId !== draft.id)).toBe(true);
      expect(await refusalOf(`UPDATE client_invoice_files SET content = 'x' WHERE "clientInvoiceId" = $1`, [served.id])).toBe('TR409');
      expect(await refusalOf('DELETE FROM client_invoice_files WHERE "clientInvoiceId" = $1', [served.id])).toBe('TR409');
      const keep = `INSERT INTO client_invoice_files ("clientInvoiceId", format, "fileName", "contentType", content, sha256) VALUES ($1, 'copy', 'x.pdf', 'application/pdf', 'x', $2)`;
      const sha256OfX = '2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881';
      expect(await refusalOf(keep, [draft.id, sha256OfX]), 'a draft').toBe('TR409');
      expect(await refusalOf(keep, [served.id, sha256OfX.replace('2', '3')]), 'a wrong hash').toBe('TR409');
    },
  );
});

interface ChangeEvent {
  id: string;
  type: string;
  timestamp: string;
  actor: { type: string; id: string | null };
  subjectId: string | null;
  data: Json;
}

describe('the change feed of billing records', () => {
  it('has every change to the billing profile, a client, its invoices and their payments, with who made it and when', { timeout: 120_000 }, async () => {
    const b = await billingTenant(server, provider);
    await approvedEntry(b, (b.projects[0] as { id: string }).id, '2026-03-02T08:00:00Z', 95);
    const t = b.tenant.id;
    const started = new Date(Date.now() - 1000);
    const billingTypes = [
      'billing_profile.updated',
      'client.created',
      'client.updated',
      'client.deleted',
      ...['created', 'updated', 'deleted', 'issued', 'sent', 'paid', 'voided'].map((action) => `client_invoice.${action}`),
    ].join(',');
    const feed = async () => (await b.api.get<ChangeEvent[]>(`/tenants/${t}/events`, { query: { types: billingTypes, limit: 1000 } })).body;
    // The feed shows an event once every older transaction has ended (in the whole cluster, which other test files
    // share): wait for a marker of this test's own, so that the events of the setup are all behind the cursor.
    expect((await b.api.patch(`/tenants/${t}/billing-profile`, { paymentTermsDays: 30 })).status).toBe(200);
    const cursor = await eventually(async () => {
      const read = await feed();
      expect(read.at(-1)).toMatchObject({ type: 'billing_profile.updated', data: { paymentTermsDays: 30 } });
      return read.length;
    });

    expect((await b.api.patch(`/tenants/${t}/billing-profile`, { paymentTermsDays: 21 })).status).toBe(200);
    expect((await b.api.patch(`/tenants/${t}/clients/${b.clientId}`, { vatId: 'ATU12345678', invoiceEmail: 'ap@buyer.example' })).status).toBe(200);
    const invoice = await invoiceOf(b, { issue: false });
    expect((await b.api.patch(`${b.path}/${invoice.id}`, { notes: 'Thank you' })).status).toBe(200);
    expect((await b.api.post(`${b.path}/${invoice.id}/issue`)).status).toBe(200);
    expect((await b.api.post(`${b.path}/${invoice.id}/send`, {})).status).toBe(200);
    expect((await b.api.post(`${b.path}/${invoice.id}/pay`, { paidAt: '2026-04-10', amount: '10.00' })).status).toBe(200);
    expect((await b.api.post(`${b.path}/${invoice.id}/pay`, { paidAt: '2026-04-20' })).status).toBe(200);
    const voided = await b.api.post<{ creditNoteId: string }>(`${b.path}/${invoice.id}/void`);
    expect(voided.status).toBe(200);
    const draft = await invoiceOf(b, { issue: false, lines: [manualLine], period: ['2026-05-01', '2026-05-31'] });
    expect((await b.api.delete(`${b.path}/${draft.id}`)).status).toBe(204);

    const events = await eventually(async () => {
      const read = (await feed()).slice(cursor);
      expect(read).toHaveLength(13);
      return read;
    });
    const creditNoteId = voided.body.creditNoteId;
    expect(events.map((event) => `${event.type}:${event.subjectId}`)).toEqual([
      `billing_profile.updated:${t}`,
      `client.updated:${b.clientId}`,
      `client_invoice.created:${invoice.id}`,
      `client_invoice.updated:${invoice.id}`,
      `client_invoice.issued:${invoice.id}`,
      `client_invoice.sent:${invoice.id}`,
      `client_invoice.paid:${invoice.id}`,
      `client_invoice.paid:${invoice.id}`,
      `client_invoice.created:${creditNoteId}`,
      `client_invoice.issued:${creditNoteId}`,
      `client_invoice.voided:${invoice.id}`,
      `client_invoice.created:${draft.id}`,
      `client_invoice.deleted:${draft.id}`,
    ]);
    // Who: the tenant's API key, each time; when: while the test ran.
    for (const event of events) {
      expect(event.actor, event.type).toEqual({ type: 'api_key', id: b.tenant.apiKeyId });
      expect(Date.parse(event.timestamp)).toBeGreaterThanOrEqual(started.getTime());
    }
    expect(events[0]?.data).toMatchObject({ paymentTermsDays: 21 });
    expect(events[1]?.data).toMatchObject({ vatId: 'ATU12345678', invoiceEmail: 'ap@buyer.example' });
    // Each payment itself, beside the invoice it changed.
    const payments = events.filter((event) => event.type === 'client_invoice.paid').map((event) => event.data as { payment: Json; status: string });
    expect(payments.map(({ payment }) => [payment.paidAt, Number(payment.amount)])).toEqual([
      ['2026-04-10', 10],
      ['2026-04-20', Number(invoice.totals.gross) - 10],
    ]);
    expect(payments.map(({ status }) => status)).toEqual(['sent', 'paid']);
  });
});
