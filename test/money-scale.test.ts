/**
 * Money at its scale (CONTRACT.md section 11, issue 37 section 5): every
 * money input takes at most its currency's minor units (400 naming the field
 * otherwise), every money output has exactly them, over REST, GraphQL and the
 * change feed, and totals over several currencies are per currency. The typed
 * client's contract check (test/helpers/contract.ts) holds every money string
 * of every answer here to its currency's decimals as well.
 */
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import type { ClientInvoice, Entry, Problem, Project } from './generated/openapi/types.gen.js';
import { approvedEntry, billingTenant } from './helpers/billing.js';
import { contractProblem } from './helpers/contract.js';
import { download } from './helpers/files.js';
import { eventually } from './helpers/eventually.js';
import type { ApiClient, Json } from './helpers/http.js';
import { seedTeam, type Team } from './helpers/seed.js';
import { serverWithSignIn } from './helpers/signed-in-server.js';

const started = serverWithSignIn();

const team = (settings?: Json): Promise<Team> =>
  seedTeam(started.server, started.provider, { approvalRequired: false, timezone: 'UTC', membersSeeRates: true, ...settings });

/** 400 naming exactly `paths`. */
async function refused(answer: Promise<{ status: number; body: unknown }>, paths: string[]): Promise<Problem> {
  const { status, body } = await answer;
  expect(status).toBe(400);
  expect((body as Problem).errors?.map((error) => error.path)).toEqual(paths);
  return body as Problem;
}

/** A client in `currency` with a project; the ids. */
async function clientIn(api: ApiClient, t: string, currency: string, rate?: string) {
  const client = await api.post<{ id: string }>(`/tenants/${t}/clients`, { name: `Client in ${currency} ${Math.random()}`, currency, hourlyRate: rate });
  expect(client.status).toBe(201);
  const project = await api.post<Project>(`/tenants/${t}/projects`, { name: `Work in ${currency} ${Math.random()}`, clientId: client.body.id });
  expect(project.status).toBe(201);
  return { clientId: client.body.id, projectId: project.body.id };
}

describe('money inputs', () => {
  it('refuse a payment with more decimals than its invoice’s currency: 10.005 on 10.01 would never settle', async () => {
    const b = await billingTenant(started.server, started.provider);
    // 8.41 net at 19% is 10.01 gross.
    const line = { description: 'Fee', quantity: '1', unitPrice: '8.41' };
    const draft = await b.api.post<ClientInvoice>(b.path, { clientId: b.clientId, periodFrom: '2026-03-01', periodTo: '2026-03-31', lines: [line] });
    expect(draft.status).toBe(201);
    expect(draft.body.totals).toMatchObject({ lineNet: '8.41', tax: '1.60', gross: '10.01', due: '10.01' });
    expect((await b.api.post(`${b.path}/${draft.body.id}/issue`)).status).toBe(200);
    const problem = await refused(b.api.post(`${b.path}/${draft.body.id}/pay`, { paidAt: '2026-04-02', amount: '10.005' }), ['amount']);
    expect(problem.errors?.[0]?.message).toBe('must have at most 2 decimals (EUR)');
    const paid = await b.api.post<ClientInvoice>(`${b.path}/${draft.body.id}/pay`, { paidAt: '2026-04-02', amount: '10.01' });
    expect(paid.body).toMatchObject({ status: 'paid', totals: { paid: '10.01', due: '0.00' } });
    expect(paid.body.payments.map((payment) => payment.amount)).toEqual(['10.01']);
    // The contract check of every answer sees a money string without its currency's decimals, and says where.
    const url = new URL(`${started.server.url}${b.path}/${draft.body.id}`);
    expect(contractProblem('GET', url, 200, 'application/json', paid.body)).toBeUndefined();
    const short = { ...paid.body, totals: { ...paid.body.totals, due: '0' } };
    expect(contractProblem('GET', url, 200, 'application/json', short)).toMatch(/money at \/totals\/due is "0": EUR has 2 decimals/);
    const inYen = { ...paid.body, currency: 'JPY' };
    expect(contractProblem('GET', url, 200, 'application/json', inYen)).toMatch(/JPY has 0 decimals/);
    const percent = { ...paid.body, lines: paid.body.lines.map((line) => ({ ...line, taxRate: '19' })) };
    expect(contractProblem('GET', url, 200, 'application/json', percent)).toMatch(/taxRate must have exactly 2 decimals/);
  });

  it('hold every rate, price and discount to the currency it is in, and percents to two decimals', async () => {
    const { tenant, admin, member } = await team();
    const t = tenant.id;
    const api = admin.api;
    // A client's rate: its own currency.
    await refused(api.post(`/tenants/${t}/clients`, { name: 'Yen', currency: 'JPY', hourlyRate: '85.5' }), ['hourlyRate']);
    const yen = await clientIn(api, t, 'JPY', '8600');
    const kwd = await clientIn(api, t, 'KWD', '12.125');
    // A project's rate and budget: its client's currency, else the tenant's (EUR).
    await refused(api.post(`/tenants/${t}/projects`, { name: 'P', clientId: yen.clientId, hourlyRate: '99.5', budgetAmount: '1000.10' }), [
      'hourlyRate',
      'budgetAmount',
    ]);
    await refused(api.patch(`/tenants/${t}/projects/${kwd.projectId}`, { hourlyRate: '1.2345' }), ['hourlyRate']);
    await refused(api.post(`/tenants/${t}/projects`, { name: 'Own', hourlyRate: '10.125' }), ['hourlyRate']);
    expect((await api.patch(`/tenants/${t}/projects/${kwd.projectId}`, { hourlyRate: '1.234' })).status).toBe(200);
    // A project member's rate: the project's currency.
    await refused(api.post(`/tenants/${t}/projects/${yen.projectId}/members`, { tenantUserId: member.id, hourlyRate: '10.5' }), ['hourlyRate']);
    // Members' own rates and the tenant's default: the tenant's currency.
    await refused(api.patch(`/tenants/${t}/users/${member.id}`, { hourlyRate: '10.001', costRate: '5.5' }), ['hourlyRate']);
    await refused(api.patch(`/tenants/${t}`, { settings: { defaultHourlyRate: '10.001' } }), ['settings.defaultHourlyRate']);
    await refused(api.patch(`/tenants/${t}`, { settings: { currency: 'XYZ' } }), ['settings.currency']);
    // Percents: two decimals.
    await refused(api.patch(`/tenants/${t}/billing-profile`, { defaultTaxRate: '19.005' }), ['defaultTaxRate']);
  });

  it('prices a JPY client’s time and invoice in whole yen, refusing fractions of a yen by the field', async () => {
    const b = await billingTenant(started.server, started.provider);
    const t = b.tenant.id;
    const client = await b.api.post<{ id: string }>(`/tenants/${t}/clients`, {
      name: 'Tokyo KK',
      currency: 'JPY',
      billingAddress: { line1: '1-1 Marunouchi', postcode: '100-0005', city: 'Tokyo', countryCode: 'JP' },
    });
    await refused(b.api.post(`/tenants/${t}/projects`, { name: 'Yen work', clientId: client.body.id, hourlyRate: '85.50' }), ['hourlyRate']);
    const project = await b.api.post<Project>(`/tenants/${t}/projects`, { name: 'Yen work', clientId: client.body.id, hourlyRate: '100' });
    expect(project.body).toMatchObject({ currency: 'JPY', hourlyRate: '100' });
    const alpha = project.body.id;
    const entry = await approvedEntry(b, alpha, '2026-03-02T08:00:00Z', 95);
    expect(entry).toMatchObject({ currency: 'JPY', hourlyRate: '100', billableAmount: '158' });
    const period = { clientId: client.body.id, periodFrom: '2026-03-01', periodTo: '2026-03-31' };
    await refused(
      b.api.post(b.path, { ...period, lines: [{ description: 'Fee', quantity: '1', unitPrice: '1000.5' }], discount: { amount: '0.5', reason: 'Loyal' } }),
      ['lines.0.unitPrice', 'discount.amount'],
    );
    await refused(b.api.post(b.path, { ...period, discount: { percent: '10.125', reason: 'Loyal' } }), ['discount.percent']);
    const draft = await b.api.post<ClientInvoice>(b.path, { ...period, lines: [{ description: 'Fee', quantity: '3', unitPrice: '333' }] });
    expect(draft.status).toBe(201);
    expect(draft.body.lines.map((line) => [line.unitPrice, line.netAmount, line.taxRate])).toEqual([
      ['100', '158', '19.00'],
      ['333', '999', '19.00'],
    ]);
    expect(draft.body.totals).toMatchObject({ lineNet: '1157', tax: '220', gross: '1377', due: '1377' });
    expect(draft.body.totals.taxes).toEqual([{ category: 'S', rate: '19.00', basis: '1157', amount: '220', exemptionReason: null }]);
    // GraphQL prints what REST prints.
    const graphql = await b.api.graphql(
      'query ($t: ID!, $id: ID!) { clientInvoice(tenantId: $t, id: $id) { totals { gross taxes { rate } } lines { unitPrice } } }',
      {
        t,
        id: draft.body.id,
      },
    );
    expect(graphql.body).toEqual({
      data: { clientInvoice: { totals: { gross: '1377', taxes: [{ rate: '19.00' }] }, lines: [{ unitPrice: '100' }, { unitPrice: '333' }] } },
    });
  });
});

describe('a change of currency', () => {
  it('keeps the rates’ numbers, and is refused while one has more decimals than the new currency', async () => {
    const { tenant, admin, member } = await team();
    const t = tenant.id;
    const api = admin.api;
    const { clientId, projectId } = await clientIn(api, t, 'EUR', '90.00');
    expect((await api.patch(`/tenants/${t}/projects/${projectId}`, { hourlyRate: '85.50' })).status).toBe(200);
    expect((await api.post(`/tenants/${t}/projects/${projectId}/members`, { tenantUserId: member.id, hourlyRate: '70.25' })).status).toBe(201);
    const problem = await refused(api.patch(`/tenants/${t}/clients/${clientId}`, { currency: 'JPY' }), ['currency']);
    expect(problem.errors?.[0]?.message).toMatch(/JPY has no decimals; these rates have more: .*hourlyRate 85\.5.*hourlyRate 70\.25/);
    // Nothing changed.
    expect((await api.get<{ currency: string }>(`/tenants/${t}/clients/${clientId}`)).body.currency).toBe('EUR');
    await api.patch(`/tenants/${t}/projects/${projectId}`, { hourlyRate: '86' });
    await api.patch(`/tenants/${t}/projects/${projectId}/members/${member.id}`, { hourlyRate: '70' });
    const moved = await api.patch<{ currency: string; hourlyRate: string }>(`/tenants/${t}/clients/${clientId}`, { currency: 'JPY' });
    expect(moved.body).toMatchObject({ currency: 'JPY', hourlyRate: '90' });
    expect((await api.get<Project>(`/tenants/${t}/projects/${projectId}`)).body).toMatchObject({ currency: 'JPY', hourlyRate: '86' });
    // A project moved to no client is in the tenant's currency (EUR): 86 fits; a tenant going to JPY needs whole rates of its own.
    expect((await api.patch(`/tenants/${t}/users/${member.id}`, { costRate: '30.50' })).status).toBe(200);
    await refused(api.patch(`/tenants/${t}`, { settings: { currency: 'JPY' } }), ['settings.currency']);
  });

  it('leaves a project’s spent amount in its currency: entries from before the change keep theirs', async () => {
    const { tenant, admin, member } = await team();
    const t = tenant.id;
    const { clientId, projectId } = await clientIn(admin.api, t, 'EUR', '100');
    const at = { startedAt: '2026-03-02T08:00:00Z', endedAt: '2026-03-02T09:00:00Z', projectId };
    expect((await member.api.post<Entry>(`/tenants/${t}/entries`, at)).body).toMatchObject({ currency: 'EUR', billableAmount: '100.00' });
    expect((await admin.api.patch(`/tenants/${t}/clients/${clientId}`, { currency: 'USD' })).status).toBe(200);
    const later = { ...at, startedAt: '2026-03-03T08:00:00Z', endedAt: '2026-03-03T08:30:00Z' };
    expect((await member.api.post<Entry>(`/tenants/${t}/entries`, later)).body).toMatchObject({ currency: 'USD', billableAmount: '50.00' });
    expect((await admin.api.get<Project>(`/tenants/${t}/projects/${projectId}`)).body).toMatchObject({
      currency: 'USD',
      spentMinutes: 90,
      spentAmount: '50.00',
    });
  });
});

describe('totals over several currencies', () => {
  it('are per currency in the summary, its groups and its file; never one sum of two currencies', async () => {
    const { tenant, admin, member } = await team();
    const t = tenant.id;
    const euro = await clientIn(admin.api, t, 'EUR', '100');
    const dollar = await clientIn(admin.api, t, 'USD', '80');
    for (const [projectId, day] of [
      [euro.projectId, '02'],
      [euro.projectId, '03'],
      [dollar.projectId, '04'],
    ] as const) {
      const entry = { startedAt: `2026-03-${day}T08:00:00Z`, endedAt: `2026-03-${day}T09:30:00Z`, projectId };
      expect((await member.api.post(`/tenants/${t}/entries`, entry)).status).toBe(201);
    }
    const query = { from: '2026-03-01', to: '2026-03-31', groupBy: 'client', subGroupBy: 'week' };
    type Totals = { currency: string | null; entries: number; billableAmount: string | null };
    type Group = { label: string; totals: Totals; totalsByCurrency: Totals[] };
    const summary = (
      await admin.api.get<{ currency: string | null; totals: Totals; totalsByCurrency: Totals[]; groups: Group[] }>(`/tenants/${t}/reports/summary`, { query })
    ).body;
    expect(summary.currency).toBeNull();
    expect(summary.totals).toMatchObject({ currency: null, entries: 3, durationMinutes: 270, billableAmount: null, costAmount: null });
    expect(summary.totalsByCurrency.map((each) => [each.currency, each.entries, each.billableAmount])).toEqual([
      ['EUR', 2, '300.00'],
      ['USD', 1, '120.00'],
    ]);
    expect(summary.groups.map((group) => [group.totals.currency, group.totals.billableAmount, group.totalsByCurrency.length])).toEqual([
      ['EUR', '300.00', 1],
      ['USD', '120.00', 1],
    ]);
    // The same from the day and week totals as from the entries (a member's own report reads the entries).
    const period = { from: query.from, to: query.to };
    const byWeek = (await admin.api.get<{ totalsByCurrency: Totals[] }>(`/tenants/${t}/reports/summary`, { query: { ...period, groupBy: 'week' } })).body;
    expect(byWeek.totalsByCurrency.map((each) => [each.currency, each.billableAmount])).toEqual([
      ['EUR', '300.00'],
      ['USD', '120.00'],
    ]);
    const file = await download(
      started.server.url,
      `/tenants/${t}/reports/summary`,
      { ...period, groupBy: 'project', format: 'csv' },
      {
        authorization: `Bearer ${tenant.key}`,
      },
    );
    const csv = parse(file.bytes, { columns: true }) as Record<string, string>[];
    expect(csv.filter((row) => row.Group === 'Total').map((row) => [row.Entries, row['Billable amount'], row.Currency])).toEqual([
      ['2', '300.00', 'EUR'],
      ['1', '120.00', 'USD'],
    ]);
  });

  it('print in the change feed as the API prints them: at the scale of the record’s currency', async () => {
    const { tenant, admin, member } = await team({ defaultHourlyRate: '85.5' });
    const t = tenant.id;
    const yen = await clientIn(admin.api, t, 'JPY');
    const euros = await member.api.post<Entry>(`/tenants/${t}/entries`, { startedAt: '2026-03-02T08:00:00Z', endedAt: '2026-03-02T09:00:00Z' });
    const yens = await member.api.post<Entry>(`/tenants/${t}/entries`, {
      startedAt: '2026-03-03T08:00:00Z',
      endedAt: '2026-03-03T09:00:00Z',
      projectId: yen.projectId,
    });
    // The tenant's 85.50 is copied onto a yen entry as 86.
    expect([euros.body.billableAmount, yens.body.hourlyRate, yens.body.billableAmount]).toEqual(['85.50', '86', '86']);
    // The feed shows an event once every older transaction in the cluster has ended (other test files share it).
    const feed = await eventually(async () => {
      const read = await admin.api.get<{ type: string; subjectId: string; data: Json }[]>(`/tenants/${t}/events`, { query: { limit: 1000 } });
      expect(read.body.map((event) => event.subjectId)).toContain(yens.body.id);
      return read;
    });
    const data = (subjectId: string) => feed.body.find((event) => event.subjectId === subjectId && event.type.endsWith('.created'))?.data;
    expect(data(euros.body.id)).toMatchObject({ currency: 'EUR', hourlyRate: '85.50', billableAmount: '85.50' });
    expect(data(yens.body.id)).toMatchObject({ currency: 'JPY', hourlyRate: '86', billableAmount: '86' });
    expect(data(yen.projectId)).toMatchObject({ currency: 'JPY' });
  });
});
