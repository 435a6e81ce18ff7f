/**
 * Expenses on client invoices (issue 40): approved billable expenses of the client in the period become lines
 * at net plus markup with their own tax rate, one per expense or per category; an invoiced expense is locked
 * (409 EXPENSE_INVOICED) until the draft is deleted or the invoice voided; the e-invoices pass validate-einvoice.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClientInvoice, Problem } from './generated/openapi/types.gen.js';
import { approvedEntry, billingTenant, publicClient, xrechnungSeller, type Billing } from './helpers/billing.js';
import { inexactLines, readPdfLines, readXmlLines } from './helpers/einvoice-lines.js';
import { failedRules, type ValidationFile } from './helpers/einvoice-validation.js';
import { download, pdfText } from './helpers/files.js';
import type { Json } from './helpers/http.js';
import { startIdentityProvider, type IdentityProvider } from './helpers/oidc.js';
import { startTestServer, type TestServer } from './helpers/server.js';

let provider: IdentityProvider;
let server: TestServer;
const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'tally-expense-invoices-'));

beforeAll(async () => {
  provider = await startIdentityProvider();
  server = await startTestServer({ env: provider.env });
});
afterAll(async () => {
  await server?.stop();
  await provider?.close();
  fs.rmSync(directory, { recursive: true, force: true });
});

type Line = { description: string; quantity: string; unit: string; unitPrice: string; netAmount: string; taxRate: string; taxCategory: string };
const linesOf = (invoice: ClientInvoice) => invoice.lines as unknown as Line[];

/** An approved expense of the billing tenant's member: recorded and submitted by them, approved by the admin key. */
async function approvedExpense(b: Billing, body: Json): Promise<string> {
  const t = b.tenant.id;
  const created = await b.member.api.post<{ id: string }>(`/tenants/${t}/expenses`, body);
  expect(created.status, created.text).toBe(201);
  expect((await b.member.api.post(`/tenants/${t}/expenses/${created.body.id}/submit`)).status).toBe(200);
  expect((await b.api.post(`/tenants/${t}/expenses/${created.body.id}/approve`)).status).toBe(200);
  return created.body.id;
}

const clientInvoiceIdOf = async (id: string) => (await server.app.db.expense.findUniqueOrThrow({ where: { id } })).clientInvoiceId;

describe('expenses on client invoices', () => {
  it(
    'An invoice with 2 h at 100.00 (19%) and a train ticket of 119.00 gross (19%, 10% markup) has lines 200.00 and 110.00, tax 58.90 and gross 368.90, and its e-invoices pass validate-einvoice',
    { timeout: 300_000 },
    async () => {
      const b = await billingTenant(server, provider, xrechnungSeller, publicClient);
      const t = b.tenant.id;
      const headers = { authorization: `Bearer ${b.tenant.key}` };
      const [alpha] = b.projects as unknown as [{ id: string }];
      await approvedEntry(b, alpha.id, '2026-03-02T08:00:00Z', 120);
      const ticket = await approvedExpense(b, {
        date: '2026-03-02',
        projectId: alpha.id,
        category: 'travel',
        description: 'Train ticket',
        amount: '119.00',
        taxRate: '19',
        markupPercent: '10',
      });
      const created = await b.api.post<ClientInvoice>(b.path, { clientId: b.clientId, periodFrom: '2026-03-01', periodTo: '2026-03-31' });
      expect(created.status, created.text).toBe(201);
      const invoice = created.body;
      expect(
        linesOf(invoice).map((line) => [line.description, line.quantity, line.unit, line.unitPrice, line.netAmount, line.taxCategory, line.taxRate]),
      ).toEqual([
        ['Project at 100.00', '120', 'MIN', '100.00', '200.00', 'S', '19.00'],
        ['2026-03-02 travel: Train ticket', '1', 'C62', '110.00', '110.00', 'S', '19.00'],
      ]);
      expect(invoice.totals).toMatchObject({ lineNet: '310.00', tax: '58.90', gross: '368.90' });
      expect(await clientInvoiceIdOf(ticket)).toBe(invoice.id);

      // An invoiced expense is read-only, to its owner and to admins.
      for (const answer of [
        await b.api.patch<Problem>(`/tenants/${t}/expenses/${ticket}`, { description: 'changed' }),
        await b.api.delete<Problem>(`/tenants/${t}/expenses/${ticket}`),
        await b.member.api.patch<Problem>(`/tenants/${t}/expenses/${ticket}`, { description: 'changed' }),
      ]) {
        expect(answer.status).toBe(409);
        expect(answer.body.reason).toBe('EXPENSE_INVOICED');
      }

      const issued = await b.api.post<ClientInvoice>(`${b.path}/${invoice.id}/issue`);
      expect(issued.status, issued.text).toBe(200);
      const files: ValidationFile[] = [];
      for (const format of ['cii', 'ubl', 'xrechnung-cii', 'xrechnung-ubl']) {
        const xml = await download(server.url, `${b.path}/${invoice.id}/e-invoice`, { format }, headers);
        expect(xml.response.status, format).toBe(200);
        const { lines, lineTotal } = readXmlLines(xml.bytes.toString('utf8'));
        expect(inexactLines(lines), format).toEqual([]);
        expect(lines.map((line) => line.net)).toEqual(['200.00', '110.00']);
        expect(lineTotal).toBe('310.00');
        const file = path.join(directory, `expenses.${format}.xml`);
        fs.writeFileSync(file, xml.bytes);
        files.push({ file, xrechnung: format.startsWith('xrechnung') });
      }
      const pdf = await download(server.url, `${b.path}/${invoice.id}/pdf`, {}, headers);
      expect(inexactLines(readPdfLines(await pdfText(pdf.bytes)))).toEqual([]);
      expect(await failedRules(files)).toEqual([]);

      // Voiding frees the expense: it may be changed and billed again.
      expect((await b.api.post(`${b.path}/${invoice.id}/void`)).status).toBe(200);
      expect(await clientInvoiceIdOf(ticket)).toBeNull();
      expect((await b.api.patch(`/tenants/${t}/expenses/${ticket}`, { description: 'Train ticket, return' })).status).toBe(200);
      const again = await b.api.post<ClientInvoice>(b.path, { clientId: b.clientId, periodFrom: '2026-03-01', periodTo: '2026-03-31' });
      expect(linesOf(again.body).map((line) => line.description)).toEqual(['Project at 100.00', '2026-03-02 travel: Train ticket, return']);
    },
  );

  it('groups per category and rate, leaves out what is not the client’s, approved, billable, in the period and currency, and a deleted draft frees its expenses', async () => {
    const b = await billingTenant(server, provider);
    const [alpha, beta] = b.projects as unknown as [{ id: string }, { id: string }];
    const taxi = await approvedExpense(b, { date: '2026-05-04', projectId: alpha.id, category: 'travel', amount: '11.90', taxRate: '19' });
    await approvedExpense(b, { date: '2026-05-05', projectId: beta.id, category: 'travel', amount: '23.80', taxRate: '19', markupPercent: '5' });
    await approvedExpense(b, { date: '2026-05-06', clientId: b.clientId, category: 'travel', amount: '10.70', taxRate: '7' });
    await approvedExpense(b, { date: '2026-05-07', clientId: b.clientId, category: 'lodging', amount: '107.00', taxRate: '7' });
    // Not billed: a non-billable one, one outside the period, one still a draft, one of no client.
    await approvedExpense(b, { date: '2026-05-08', clientId: b.clientId, category: 'travel', amount: '50', taxRate: '19', billable: false });
    await approvedExpense(b, { date: '2026-06-01', clientId: b.clientId, category: 'travel', amount: '50', taxRate: '19' });
    await b.member.api.post(`/tenants/${b.tenant.id}/expenses`, { date: '2026-05-09', clientId: b.clientId, category: 'travel', amount: '50' });
    await approvedExpense(b, { date: '2026-05-09', category: 'travel', amount: '50' });

    const period = { clientId: b.clientId, periodFrom: '2026-05-01', periodTo: '2026-05-31' };
    const without = await b.api.post<Problem>(b.path, { ...period, includeExpenses: false });
    expect(without.status).toBe(409);
    expect(without.body.reason).toBe('NOTHING_TO_INVOICE');
    const grouped = await b.api.post<ClientInvoice>(b.path, { ...period, expenseGrouping: 'category' });
    expect(grouped.status, grouped.text).toBe(201);
    // travel at 19%: 10.00 + 21.00 (20.00 and 5%); travel at 7%: 10.00; lodging at 7%: 100.00.
    expect(linesOf(grouped.body).map((line) => [line.description, line.unitPrice, line.netAmount, line.taxRate])).toEqual([
      ['travel (2 expenses)', '31.00', '31.00', '19.00'],
      ['travel', '10.00', '10.00', '7.00'],
      ['lodging', '100.00', '100.00', '7.00'],
    ]);
    expect(grouped.body.totals).toMatchObject({ lineNet: '141.00', tax: '13.59', gross: '154.59' });
    // A second draft of the same period finds them taken.
    expect((await b.api.post<Problem>(b.path, period)).body.reason).toBe('NOTHING_TO_INVOICE');
    expect((await b.api.delete(`${b.path}/${grouped.body.id}`)).status).toBe(204);
    expect(await clientInvoiceIdOf(taxi)).toBeNull();
    const perExpense = await b.api.post<ClientInvoice>(b.path, { ...period, projectIds: [alpha.id] });
    expect(linesOf(perExpense.body).map((line) => line.netAmount)).toEqual(['10.00']);
  });
});
