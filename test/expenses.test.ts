/**
 * Expenses (issue 40, CONTRACT.md section 11): members record their own, net and tax derived from the gross at
 * the currency's scale, approved like entries (managers not their own), listed with filters; approved billable
 * expenses of a client become lines of its invoices at net plus markup and are locked while on one.
 */
import { parse } from 'csv-parse/sync';
import { readSheet } from 'read-excel-file/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Problem } from './generated/openapi/types.gen.js';
import { writeEInvoice } from '../src/modules/billing/client-invoice/einvoice/writer.js';
import { documentOf } from './helpers/client-invoice-documents.js';
import { eventually } from './helpers/eventually.js';
import { download, pdfText } from './helpers/files.js';
import type { Json } from './helpers/http.js';
import { invoiceForm, invoicePng } from './helpers/invoices.js';
import { startIdentityProvider, type IdentityProvider } from './helpers/oidc.js';
import { seedTeam } from './helpers/seed.js';
import { startTestServer, type TestServer } from './helpers/server.js';

let provider: IdentityProvider;
let server: TestServer;

beforeAll(async () => {
  provider = await startIdentityProvider();
  server = await startTestServer({ env: provider.env });
});
afterAll(async () => {
  await server?.stop();
  await provider?.close();
});

type ExpenseBody = Json & { id: string; status: string; clientId: string | null; netAmount: string; taxAmount: string };

const pathsOf = (problem: Problem) => (problem.errors ?? []).map((error) => error.path);

describe('expenses', () => {
  it('derives net and tax from the gross at the currency scale, takes the client from the project, and is approved like an entry', async () => {
    const team = await seedTeam(server, provider);
    const t = team.tenant.id;
    const client = await team.tenant.api.post<{ id: string }>(`/tenants/${t}/clients`, { name: 'Rail AG', currency: 'EUR' });
    const project = await team.tenant.api.post<{ id: string }>(`/tenants/${t}/projects`, { name: 'Trip', clientId: client.body.id });
    const created = await team.member.api.post<ExpenseBody>(`/tenants/${t}/expenses`, {
      date: '2026-03-05',
      projectId: project.body.id,
      category: 'travel',
      description: 'Train Berlin-Hamburg',
      amount: '119',
      taxRate: '19',
      markupPercent: '10',
    });
    expect(created.status, created.text).toBe(201);
    expect(created.body).toMatchObject({
      clientId: client.body.id,
      tenantUserId: team.member.id,
      amount: '119.00',
      netAmount: '100.00',
      taxAmount: '19.00',
      taxRate: '19.00',
      markupPercent: '10.00',
      currency: 'EUR',
      billable: true,
      status: 'draft',
      date: '2026-03-05',
    });
    // A third of a cent is no amount in EUR; a gross of 10.00 at 7% is 9.35 net and 0.65 tax, adding up to the cent.
    const tooFine = await team.member.api.post<Problem>(`/tenants/${t}/expenses`, { category: 'food', amount: '10.005', taxRate: '7' });
    expect(tooFine.status).toBe(400);
    expect(pathsOf(tooFine.body)).toEqual(['amount']);
    const seven = await team.member.api.post<ExpenseBody>(`/tenants/${t}/expenses`, { category: 'food', amount: '10', taxRate: '7' });
    expect(seven.body).toMatchObject({ netAmount: '9.35', taxAmount: '0.65', clientId: null });
    const yen = await team.tenant.api.post<{ id: string }>(`/tenants/${t}/clients`, { name: 'Tokyo KK', currency: 'JPY' });
    const fractionalYen = await team.member.api.post<Problem>(`/tenants/${t}/expenses`, { category: 'taxi', clientId: yen.body.id, amount: '1000.5' });
    expect(fractionalYen.status).toBe(400);
    expect(pathsOf(fractionalYen.body)).toEqual(['amount']);
    const wrongCurrency = await team.member.api.post<Problem>(`/tenants/${t}/expenses`, {
      category: 'taxi',
      clientId: yen.body.id,
      amount: '10',
      currency: 'EUR',
    });
    expect(pathsOf(wrongCurrency.body)).toEqual(['currency']);

    const id = created.body.id;
    // A member records only their own, and approves nothing.
    const forOther = await team.member.api.post(`/tenants/${t}/expenses`, { category: 'x', amount: '1', tenantUserId: team.colleague.id });
    expect(forOther.status).toBe(403);
    expect((await team.member.api.post(`/tenants/${t}/expenses/${id}/approve`)).status).toBe(403);
    const early = await team.manager.api.post<Problem>(`/tenants/${t}/expenses/${id}/approve`);
    expect(early.status).toBe(409);
    expect(early.body.reason).toBe('WRONG_STATUS');
    expect((await team.member.api.post(`/tenants/${t}/expenses/${id}/submit`)).status).toBe(200);
    const locked = await team.member.api.patch<Problem>(`/tenants/${t}/expenses/${id}`, { amount: '120' });
    expect(locked.body.reason).toBe('EXPENSE_SUBMITTED');
    const rejected = await team.manager.api.post<ExpenseBody>(`/tenants/${t}/expenses/${id}/reject`, { reason: 'Receipt missing' });
    expect(rejected.body).toMatchObject({ status: 'rejected', rejectionReason: 'Receipt missing', reviewedById: team.manager.id });
    // Changing a rejected expense makes it a draft again; its money is derived again.
    const edited = await team.member.api.patch<ExpenseBody>(`/tenants/${t}/expenses/${id}`, { amount: '238' });
    expect(edited.body).toMatchObject({ status: 'draft', netAmount: '200.00', taxAmount: '38.00' });
    await team.member.api.post(`/tenants/${t}/expenses/${id}/submit`);
    const approved = await team.manager.api.post<ExpenseBody>(`/tenants/${t}/expenses/${id}/approve`);
    expect(approved.body.status).toBe('approved');
    expect((await team.member.api.patch<Problem>(`/tenants/${t}/expenses/${id}`, { amount: '1' })).body.reason).toBe('EXPENSE_APPROVED');

    // Managers do not approve their own.
    const own = await team.manager.api.post<ExpenseBody>(`/tenants/${t}/expenses`, { category: 'travel', amount: '5' });
    await team.manager.api.post(`/tenants/${t}/expenses/${own.body.id}/submit`);
    expect((await team.manager.api.post(`/tenants/${t}/expenses/${own.body.id}/approve`)).status).toBe(403);
    expect((await team.admin.api.post(`/tenants/${t}/expenses/${own.body.id}/approve`)).status).toBe(200);

    const events = await server.app.db.event.findMany({ where: { tenantId: t, subjectId: id }, orderBy: { id: 'asc' }, select: { type: true } });
    expect(events.map((event) => event.type)).toEqual([
      'expense.created',
      'expense.submitted',
      'expense.rejected',
      'expense.updated',
      'expense.submitted',
      'expense.approved',
    ]);
  });

  it('lists latest first with filters and pages; members see their own; GraphQL shows the same at the currency scale', async () => {
    const team = await seedTeam(server, provider);
    const t = team.tenant.id;
    for (const [day, category] of [
      ['2026-04-01', 'travel'],
      ['2026-04-03', 'lodging'],
      ['2026-04-02', 'travel'],
    ] as const) {
      expect((await team.member.api.post(`/tenants/${t}/expenses`, { date: day, category, amount: '10' })).status).toBe(201);
    }
    await team.colleague.api.post(`/tenants/${t}/expenses`, { date: '2026-04-04', category: 'travel', amount: '10' });
    const mine = await team.member.api.get<ExpenseBody[]>(`/tenants/${t}/expenses`);
    expect(mine.body.map((expense) => expense.date)).toEqual(['2026-04-03', '2026-04-02', '2026-04-01']);
    const travel = await team.tenant.api.get<ExpenseBody[]>(`/tenants/${t}/expenses?category=travel&from=2026-04-02`);
    expect(travel.body.map((expense) => expense.date)).toEqual(['2026-04-04', '2026-04-02']);
    const page = await team.tenant.api.get<ExpenseBody[]>(`/tenants/${t}/expenses?tenantUserId=${team.member.id}&limit=1&offset=1`);
    expect(page.body.map((expense) => expense.date)).toEqual(['2026-04-02']);
    const drafts = await team.tenant.api.get<ExpenseBody[]>(`/tenants/${t}/expenses?status=approved`);
    expect(drafts.body).toEqual([]);
    const other = (await team.tenant.api.get<ExpenseBody[]>(`/tenants/${t}/expenses?tenantUserId=${team.colleague.id}`)).body[0] as ExpenseBody;
    expect((await team.member.api.get(`/tenants/${t}/expenses/${other.id}`)).status).toBe(404);
    const graphql = await team.member.api.post<{ data: { expenses: Json[] } }>('/graphql', {
      query: `query($t: ID!) { expenses(tenantId: $t, category: "lodging") { amount netAmount taxRate status } }`,
      variables: { t },
    });
    expect(graphql.body.data.expenses).toEqual([{ amount: '10.00', netAmount: '10.00', taxRate: '0.00', status: 'draft' }]);
  });

  it('reads a receipt: an e-invoice at once, an image by OCR later, each filling only what the expense lacks; a locked expense takes none', async () => {
    const team = await seedTeam(server, provider);
    const t = team.tenant.id;
    const receipt = (id: string, file: Buffer, name: string, type: string) =>
      fetch(`${server.url}/tenants/${t}/expenses/${id}/receipt`, {
        method: 'POST',
        headers: { cookie: team.member.cookie, origin: server.url },
        body: invoiceForm(file, name, {}, type),
      });
    // An expense recorded without its amount waits for its receipt: it cannot be submitted yet.
    const waiting = await team.member.api.post<ExpenseBody>(`/tenants/${t}/expenses`, { category: 'travel', description: 'Train' });
    expect(waiting.body).toMatchObject({ amount: null, netAmount: null, taxRate: null, date: null });
    const early = await team.member.api.post<Problem>(`/tenants/${t}/expenses/${waiting.body.id}/submit`);
    expect(early.status).toBe(400);
    expect(pathsOf(early.body)).toEqual(['amount', 'taxRate', 'date']);

    // An e-invoice: read from its XML by the received-invoice reader, in the answer.
    const ticket = documentOf({ lines: [{ description: 'Train ticket', quantity: '1', unit: 'C62', unitPrice: '100.00' }] });
    const xml = await writeEInvoice(ticket, 'cii');
    const read = await receipt(waiting.body.id, Buffer.from(xml), 'ticket.xml', 'application/xml');
    const readBody = (await read.json()) as ExpenseBody;
    expect(read.status, JSON.stringify(readBody)).toBe(200);
    expect(readBody).toMatchObject({
      amount: '119.00',
      netAmount: '100.00',
      taxAmount: '19.00',
      taxRate: '19.00',
      date: ticket.issueDate,
      description: 'Train',
    });
    const received = await server.app.db.invoice.findUniqueOrThrow({ where: { id: readBody.invoiceId as string } });
    expect(received).toMatchObject({ eInvoiceFormat: 'cii', ocrStatus: 'none', uploadedById: team.member.id });
    expect((await team.member.api.post(`/tenants/${t}/expenses/${waiting.body.id}/submit`)).status).toBe(200);
    // A colleague may not re-bill the member's receipt (members read the invoices they uploaded); an admin may, with its amounts.
    const borrowed = await team.colleague.api.post<Problem>(`/tenants/${t}/expenses`, { category: 'travel', invoiceId: received.id });
    expect(borrowed.status).toBe(400);
    expect(pathsOf(borrowed.body)).toEqual(['invoiceId']);
    const rebilled = await team.tenant.api.post<ExpenseBody>(`/tenants/${t}/expenses`, {
      category: 'travel',
      invoiceId: received.id,
      tenantUserId: team.colleague.id,
    });
    expect(rebilled.body).toMatchObject({ amount: '119.00', taxRate: '19.00', date: ticket.issueDate });

    // An image: read by the OCR worker; what the member gave (the day) stays.
    const scanned = await team.member.api.post<ExpenseBody>(`/tenants/${t}/expenses`, { category: 'supplies', date: '2026-11-03' });
    const queued = await receipt(scanned.body.id, invoicePng(), 'receipt.png', 'image/png');
    expect(queued.status).toBe(200);
    expect(await queued.json()).toMatchObject({ amount: null, date: '2026-11-03' });
    const filled = await eventually(async () => {
      const current = await team.member.api.get<ExpenseBody>(`/tenants/${t}/expenses/${scanned.body.id}`);
      expect(current.body.amount).not.toBeNull();
      return current.body;
    }, 30_000);
    // Net and tax are derived from the gross and the rate (1234.56 / 1.19 = 1037.445, half-up), not copied from the picture.
    expect(filled).toMatchObject({ amount: '1234.56', taxRate: '19.00', netAmount: '1037.45', taxAmount: '197.11', date: '2026-11-03' });

    // Someone else's expense, and a submitted one, take no receipt; nothing is stored for them.
    const before = await server.app.db.invoice.count({ where: { tenantId: t } });
    const others = await team.colleague.api.post<ExpenseBody>(`/tenants/${t}/expenses`, { category: 'x', amount: '1' });
    expect((await receipt(others.body.id, invoicePng(['Other']), 'other.png', 'image/png')).status).toBe(404);
    expect((await receipt(waiting.body.id, invoicePng(['Again']), 'again.png', 'image/png')).status).toBe(409);
    expect(await server.app.db.invoice.count({ where: { tenantId: t } })).toBe(before);
  });

  it("spends a project's budget with its expenses' billed amounts, time and expenses together", async () => {
    const team = await seedTeam(server, provider);
    const t = team.tenant.id;
    const client = await team.tenant.api.post<{ id: string }>(`/tenants/${t}/clients`, { name: 'Budget AG', currency: 'EUR' });
    const project = await team.tenant.api.post<{ id: string }>(`/tenants/${t}/projects`, {
      name: 'Capped',
      clientId: client.body.id,
      hourlyRate: '100.00',
      budgetAmount: '100.00',
    });
    const entry = await team.member.api.post(`/tenants/${t}/entries`, {
      projectId: project.body.id,
      startedAt: '2026-11-02T08:00:00Z',
      endedAt: '2026-11-02T08:30:00Z',
    });
    expect(entry.status).toBe(201);
    // 35.70 gross at 19% is 30.00 net, 33.00 with the markup: 50.00 + 33.00 is 83% of the budget.
    const expense = await team.member.api.post<ExpenseBody>(`/tenants/${t}/expenses`, {
      date: '2026-11-02',
      projectId: project.body.id,
      category: 'travel',
      amount: '35.70',
      taxRate: '19',
      markupPercent: '10',
    });
    // What it bills is a rate: the member reads what they paid, not what the client is billed.
    expect(expense.body).toMatchObject({ netAmount: '30.00', billedAmount: null });
    const billed = await team.tenant.api.get<ExpenseBody>(`/tenants/${t}/expenses/${expense.body.id}`);
    expect(billed.body).toMatchObject({ netAmount: '30.00', billedAmount: '33.00' });
    const read = await team.tenant.api.get<{ spentAmount: string }>(`/tenants/${t}/projects/${project.body.id}`);
    expect(read.body.spentAmount).toBe('83.00');
    const events = await server.app.db.event.findMany({ where: { subjectId: project.body.id, type: 'project.budget_reached' } });
    expect(events.map((event) => event.data)).toEqual([expect.objectContaining({ threshold: 80, metric: 'amount', spent: '83.00', budget: '100.00' })]);
  });

  it('carries expenses in every report file, as rows of type expense with their category beside the time rows, and groups them by category; members their own', async () => {
    const team = await seedTeam(server, provider);
    const t = team.tenant.id;
    const client = await team.tenant.api.post<{ id: string }>(`/tenants/${t}/clients`, { name: 'Report AG', currency: 'EUR' });
    const project = await team.tenant.api.post<{ id: string }>(`/tenants/${t}/projects`, { name: 'Reported', clientId: client.body.id, hourlyRate: '100.00' });
    await team.member.api.post(`/tenants/${t}/entries`, { projectId: project.body.id, startedAt: '2026-10-05T08:00:00Z', endedAt: '2026-10-05T09:00:00Z' });
    await team.member.api.post(`/tenants/${t}/expenses`, {
      date: '2026-10-06',
      projectId: project.body.id,
      category: 'lodging',
      description: 'Hotel',
      amount: '107.00',
      taxRate: '7',
      markupPercent: '5',
    });
    await team.colleague.api.post(`/tenants/${t}/expenses`, { date: '2026-10-07', category: 'travel', amount: '10' });
    const query = { from: '2026-10-01', to: '2026-10-31' };
    const admin = { authorization: `Bearer ${team.tenant.key}` };
    const csv = await download(server.url, `/tenants/${t}/reports/detailed`, { ...query, format: 'csv' }, admin);
    const rows = parse(csv.bytes.toString('utf8'), { columns: true, bom: true }) as Record<string, string>[];
    expect(rows.map((row) => [row.Date, row.Type, row.Category, row.Minutes, row['Billable amount'], row['Cost amount'], row.Project])).toEqual([
      ['2026-10-07', 'expense', 'travel', '0', '10.00', '10.00', ''],
      ['2026-10-06', 'expense', 'lodging', '0', '105.00', '100.00', 'Reported'],
      ['2026-10-05', 'time', '', '60', '100.00', '', 'Reported'],
    ]);
    // A member's file has their own expenses only; a task filter leaves expenses out (they have no task).
    const own = await download(server.url, `/tenants/${t}/reports/detailed`, { ...query, format: 'csv' }, { cookie: team.member.cookie });
    const ownRows = parse(own.bytes.toString('utf8'), { columns: true, bom: true }) as Record<string, string>[];
    expect(ownRows.map((row) => [row.Type, row.Category])).toEqual([
      ['expense', 'lodging'],
      ['time', ''],
    ]);
    const xlsx = await download(server.url, `/tenants/${t}/reports/detailed`, { ...query, format: 'xlsx' }, admin);
    const sheet = await readSheet(xlsx.bytes);
    const headers = sheet.find((row) => row[0] === 'Date') as string[];
    const body = sheet.slice(sheet.indexOf(headers) + 1);
    expect(body.map((row) => [row[headers.indexOf('Type')], row[headers.indexOf('Category')]])).toEqual([
      ['expense', 'travel'],
      ['expense', 'lodging'],
      ['time', null],
    ]);
    // The category dimension: an expense report, its groups by category (and member), its totals in money, no minutes.
    type Group = { key: string | null; label: string; totals: Json; subGroups?: Group[] };
    const summary = await team.tenant.api.get<{ groups: Group[]; totals: Json }>(`/tenants/${t}/reports/summary`, {
      query: { ...query, groupBy: 'category', subGroupBy: 'user' },
    });
    expect(summary.status, summary.text).toBe(200);
    expect(summary.body.totals).toMatchObject({ entries: 2, durationMinutes: 0, billableAmount: '115.00', costAmount: '110.00', currency: 'EUR' });
    expect(summary.body.groups.map((group) => [group.label, group.totals.billableAmount, group.subGroups?.map((sub) => sub.key)])).toEqual([
      ['lodging', '105.00', [team.member.id]],
      ['travel', '10.00', [team.colleague.id]],
    ]);
    const refused = await team.tenant.api.get<Problem>(`/tenants/${t}/reports/summary`, { query: { ...query, groupBy: 'category', subGroupBy: 'task' } });
    expect(pathsOf(refused.body)).toEqual(['subGroupBy']);
    const mine = await team.member.api.get<{ totals: Json }>(`/tenants/${t}/reports/summary`, { query: { ...query, groupBy: 'category' } });
    expect(mine.body.totals).toMatchObject({ entries: 1 });
    const pdf = await download(server.url, `/tenants/${t}/reports/detailed`, { ...query, format: 'pdf' }, admin);
    const text = await pdfText(pdf.bytes);
    for (const word of ['Type', 'Category', 'expense', 'lodging', 'travel', 'time']) expect(text).toContain(word);
  });
});
