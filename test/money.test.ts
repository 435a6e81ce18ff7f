/**
 * Money (CONTRACT.md section 8): clients, project members, billable and cost
 * rates copied onto entries with their amounts, rates hidden from members
 * unless the tenant lets them see them, and budgets that warn once.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createClient as generateClient } from '@hey-api/openapi-ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client, Entry, Notification, Problem, Project, ProjectMember, TenantUser } from './generated/openapi/types.gen.js';
import { msAgo } from './helpers/clock.js';
import { eventually } from './helpers/eventually.js';
import type { Json } from './helpers/http.js';
import { startIdentityProvider, type IdentityProvider } from './helpers/oidc.js';
import { seedTeam, seeder, type SeededMember, type Team } from './helpers/seed.js';
import { startReceiver } from './helpers/receiver.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { uniqueEmail } from './helpers/sessions.js';

let provider: IdentityProvider;
let server: TestServer;

beforeAll(async () => {
  provider = await startIdentityProvider();
  // Webhook receivers listen on loopback.
  server = await startTestServer({ env: { ...provider.env, WEBHOOK_ALLOW_PRIVATE_URLS: 'true' } });
});
afterAll(async () => {
  await server?.stop();
  await provider?.close();
});

const team = (settings?: Json): Promise<Team> => seedTeam(server, provider, { approvalRequired: true, ...settings });
const at = (day: string, from: string, to: string) => ({ startedAt: `${day}T${from}:00Z`, endedAt: `${day}T${to}:00Z` });
const money = ['hourlyRate', 'costRate', 'billableAmount', 'costAmount'] as const;

/** The budget events of a project, as the outbox holds them. */
async function budgetEvents(projectId: string) {
  const events = await server.app.db.event.findMany({ where: { subjectId: projectId, type: 'project.budget_reached' }, orderBy: { id: 'asc' } });
  return events.map((event) => event.data as { threshold: number; metric: string; period: string; spent: string; budget: string });
}

describe('through a client generated from /docs-json', () => {
  it('prices a member’s time for the admin, hides it from the member, keeps it when rates change, and warns the manager at 80% of the budget', async () => {
    const { tenant, member, colleague, manager, admin } = await team();
    const output = fs.mkdtempSync(path.join(os.tmpdir(), 'tally-money-client-'));
    try {
      await generateClient({
        input: (await tenant.api.get('/docs-json')).body as unknown as Record<string, unknown>,
        output: { path: output },
        logs: { level: 'silent' },
        plugins: ['@hey-api/client-fetch', { name: '@hey-api/sdk', operations: { strategy: 'byTags' } }],
      });
      type Result<T> = { data?: T; error?: Problem; response: Response };
      type Method = <T>(options: { path: Json; body?: Json; query?: Json; headers?: Record<string, string> }) => Promise<Result<T>>;
      const sdk = (await import(path.join(output, 'sdk.gen.ts'))) as Record<
        'Clients' | 'Projects' | 'Users' | 'Entries' | 'Notifications',
        Record<string, Method>
      >;
      const { client } = (await import(path.join(output, 'client.gen.ts'))) as { client: { setConfig(config: Json): void } };
      client.setConfig({ baseUrl: server.url });
      const as = (who: SeededMember) => ({ cookie: who.cookie, origin: server.url });
      const tenantId = tenant.id;

      // The admin sets up the money: a client with a rate, a project under it with a budget, the member's cost rate and project rate.
      const acme = await sdk.Clients.clientControllerCreate!<Client>({
        path: { tenantId },
        body: { name: 'ACME', hourlyRate: '80.00', currency: 'usd' },
        headers: as(admin),
      });
      expect(acme.response.status).toBe(201);
      expect(acme.data).toMatchObject({ name: 'ACME', currency: 'USD', hourlyRate: '80.00' });
      const project = await sdk.Projects.projectControllerCreate!<Project>({
        path: { tenantId },
        body: { name: 'Relaunch', clientId: acme.data?.id, hourlyRate: '90.00', budgetHours: '10' },
        headers: as(admin),
      });
      expect(project.response.status).toBe(201);
      const projectId = project.data?.id as string;
      expect(
        (await sdk.Users.userControllerUpdate!<TenantUser>({ path: { tenantId, tenantUserId: member.id }, body: { costRate: '40.00' }, headers: as(admin) }))
          .data,
      ).toMatchObject({ costRate: '40.00' });
      const staffed = await sdk.Projects.projectControllerAddMember!<ProjectMember>({
        path: { tenantId, projectId },
        body: { tenantUserId: member.id, hourlyRate: '100.00' },
        headers: as(admin),
      });
      expect(staffed.response.status).toBe(201);

      // The member's entry: both rates and both amounts for the admin, null for the member.
      const entry = await sdk.Entries.entryControllerCreate!<Entry>({
        path: { tenantId },
        body: { ...at('2026-04-06', '09:00', '15:00'), projectId },
        headers: as(member),
      });
      expect(entry.response.status).toBe(201);
      const entryId = entry.data?.id as string;
      expect(entry.data).toMatchObject({ durationMinutes: 360, currency: 'USD', hourlyRate: null, costRate: null, billableAmount: null, costAmount: null });
      const seenByAdmin = await sdk.Entries.entryControllerFindOne!<Entry>({ path: { tenantId, entryId }, headers: as(admin) });
      expect(seenByAdmin.data).toMatchObject({ hourlyRate: '100.00', costRate: '40.00', billableAmount: '600.00', costAmount: '240.00', currency: 'USD' });

      // The colleague has no project rate: the project's applies (copied again when a draft moves onto the project).
      const before = await sdk.Entries.entryControllerCreate!<Entry>({ path: { tenantId }, body: at('2026-04-07', '09:00', '10:00'), headers: as(colleague) });
      await sdk.Entries.entryControllerUpdate!<Entry>({ path: { tenantId, entryId: before.data?.id }, body: { projectId }, headers: as(colleague) });
      expect((await sdk.Entries.entryControllerFindOne!<Entry>({ path: { tenantId, entryId: before.data?.id }, headers: as(admin) })).data).toMatchObject({
        hourlyRate: '90.00',
        billableAmount: '90.00',
      });
      // Raising the rates leaves both entries as they were; a new entry gets the new rate.
      await sdk.Projects.projectControllerUpdate!<Project>({ path: { tenantId, projectId }, body: { hourlyRate: '120.00' }, headers: as(admin) });
      await sdk.Projects.projectControllerUpdateMember!<ProjectMember>({
        path: { tenantId, projectId, tenantUserId: member.id },
        body: { hourlyRate: '150.00' },
        headers: as(admin),
      });
      expect((await sdk.Entries.entryControllerFindOne!<Entry>({ path: { tenantId, entryId }, headers: as(admin) })).data).toMatchObject({
        hourlyRate: '100.00',
        billableAmount: '600.00',
      });
      expect((await sdk.Entries.entryControllerFindOne!<Entry>({ path: { tenantId, entryId: before.data?.id }, headers: as(admin) })).data).toMatchObject({
        hourlyRate: '90.00',
      });
      expect((await budgetEvents(projectId)).length).toBe(0);
      const after = await sdk.Entries.entryControllerCreate!<Entry>({
        path: { tenantId },
        body: { ...at('2026-04-08', '09:00', '10:00'), projectId },
        headers: as(colleague),
      });
      expect((await sdk.Entries.entryControllerFindOne!<Entry>({ path: { tenantId, entryId: after.data?.id }, headers: as(admin) })).data).toMatchObject({
        hourlyRate: '120.00',
        billableAmount: '120.00',
      });

      // 8 h of 10: 80% reached. The manager is told once, and not again for more time under 100%.
      const told = await eventually(async () => {
        const listed = await sdk.Notifications.notificationControllerFindAll!<Notification[]>({ path: { tenantId }, headers: as(manager) });
        const budget = (listed.data ?? []).filter((notification) => notification.type === 'project.budget_reached');
        expect(budget).toHaveLength(1);
        return budget;
      });
      expect(told[0]).toMatchObject({
        title: 'Relaunch reached 80% of its hours budget',
        data: expect.objectContaining({ projectId, threshold: '80', metric: 'hours' }),
      });
      await sdk.Entries.entryControllerCreate!<Entry>({
        path: { tenantId },
        body: { ...at('2026-04-09', '09:00', '10:00'), projectId },
        headers: as(colleague),
      });
      expect((await budgetEvents(projectId)).map(({ threshold, metric }) => [threshold, metric])).toEqual([[80, 'hours']]);
      const spent = await sdk.Projects.projectControllerFindOne!<Project>({ path: { tenantId, projectId }, headers: as(admin) });
      expect(spent.data).toMatchObject({ spentMinutes: 540, spentAmount: '930.00', budgetPeriod: 'total' });
      // Members see the minutes, not the money.
      expect((await sdk.Projects.projectControllerFindOne!<Project>({ path: { tenantId, projectId }, headers: as(member) })).data).toMatchObject({
        spentMinutes: 540,
        spentAmount: null,
        hourlyRate: null,
      });
    } finally {
      fs.rmSync(output, { recursive: true, force: true });
    }
  });
});

describe('rates on entries', () => {
  it('come from the first set of project member, project, client, member and tenant default; cost from the member', async () => {
    const { tenant, member, admin } = await team({ defaultHourlyRate: '50.00', currency: 'EUR' });
    const t = tenant.id;
    const entry = async (body: Json) => {
      const created = await member.api.post<Entry>(`/tenants/${t}/entries`, body);
      expect(created.status, created.text).toBe(201);
      return (await admin.api.get<Entry>(`/tenants/${t}/entries/${created.body.id}`)).body;
    };
    expect(await entry(at('2026-05-04', '09:00', '10:00'))).toMatchObject({
      hourlyRate: '50.00',
      costRate: null,
      billableAmount: '50.00',
      costAmount: null,
      currency: 'EUR',
    });
    await admin.api.patch(`/tenants/${t}/users/${member.id}`, { hourlyRate: '60.00', costRate: '30.50' });
    expect(await entry(at('2026-05-05', '09:00', '10:00'))).toMatchObject({ hourlyRate: '60.00', costRate: '30.50', costAmount: '30.50' });
    const client = (await admin.api.post<Client>(`/tenants/${t}/clients`, { name: 'Initech', hourlyRate: '70.00', currency: 'CHF' })).body;
    const project = (await admin.api.post<Project>(`/tenants/${t}/projects`, { name: 'Printers', clientId: client.id })).body;
    expect(await entry({ ...at('2026-05-06', '09:00', '10:00'), projectId: project.id })).toMatchObject({ hourlyRate: '70.00', currency: 'CHF' });
    await admin.api.patch(`/tenants/${t}/projects/${project.id}`, { hourlyRate: '80.00' });
    expect(await entry({ ...at('2026-05-07', '09:00', '10:00'), projectId: project.id })).toMatchObject({ hourlyRate: '80.00' });
    await admin.api.post(`/tenants/${t}/projects/${project.id}/members`, { tenantUserId: member.id, hourlyRate: '90.00' });
    expect(await entry({ ...at('2026-05-08', '09:00', '10:00'), projectId: project.id })).toMatchObject({ hourlyRate: '90.00', billableAmount: '90.00' });
    // Non-billable time is worth nothing billable, and still costs.
    expect(await entry({ ...at('2026-05-11', '09:00', '10:00'), projectId: project.id, billable: false })).toMatchObject({
      billableAmount: '0.00',
      costAmount: '30.50',
    });
    // Rounded half-up to cents: 7 minutes at 100.00 an hour.
    await admin.api.patch(`/tenants/${t}/projects/${project.id}/members/${member.id}`, { hourlyRate: '100.00' });
    expect(await entry({ ...at('2026-05-12', '09:00', '09:07'), projectId: project.id })).toMatchObject({ durationMinutes: 7, billableAmount: '11.67' });
  });

  it('are copied onto a running timer, which has no amounts until it stops', async () => {
    const { tenant, member, admin } = await team({ defaultHourlyRate: '60.00' });
    const timer = await member.api.post<Entry>(`/tenants/${tenant.id}/entries`, { startedAt: msAgo(30 * 60_000).toISOString() });
    expect((await admin.api.get<Entry>(`/tenants/${tenant.id}/entries/${timer.body.id}`)).body).toMatchObject({
      hourlyRate: '60.00',
      billableAmount: null,
      costAmount: null,
    });
    await member.api.post(`/tenants/${tenant.id}/entries/${timer.body.id}/stop`);
    const stopped = (await admin.api.get<Entry>(`/tenants/${tenant.id}/entries/${timer.body.id}`)).body;
    expect(Number(stopped.billableAmount)).toBeCloseTo(((stopped.durationMinutes ?? 0) / 60) * 60, 2);
  });

  it('move with a draft to another project, and never again once the entry is submitted or approved', async () => {
    const { tenant, member, manager, admin } = await team();
    const t = tenant.id;
    const cheap = (await admin.api.post<Project>(`/tenants/${t}/projects`, { name: 'Cheap', hourlyRate: '10.00' })).body;
    const dear = (await admin.api.post<Project>(`/tenants/${t}/projects`, { name: 'Dear', hourlyRate: '200.00' })).body;
    const entry = (await member.api.post<Entry>(`/tenants/${t}/entries`, { ...at('2026-06-01', '09:00', '11:00'), projectId: cheap.id })).body;
    await member.api.patch(`/tenants/${t}/entries/${entry.id}`, { projectId: dear.id });
    expect((await admin.api.get<Entry>(`/tenants/${t}/entries/${entry.id}`)).body).toMatchObject({ hourlyRate: '200.00', billableAmount: '400.00' });
    await member.api.post(`/tenants/${t}/entries/${entry.id}/submit`);
    // A reviewer may still correct a submitted entry's time: the amounts follow, the rates stay.
    await admin.api.patch(`/tenants/${t}/projects/${dear.id}`, { hourlyRate: '300.00' });
    await manager.api.patch(`/tenants/${t}/entries/${entry.id}`, { endedAt: '2026-06-01T10:00:00Z' });
    expect((await admin.api.get<Entry>(`/tenants/${t}/entries/${entry.id}`)).body).toMatchObject({ hourlyRate: '200.00', billableAmount: '200.00' });
    await manager.api.post(`/tenants/${t}/entries/${entry.id}/approve`);
    const refused = await admin.api.patch<Problem>(`/tenants/${t}/entries/${entry.id}`, { projectId: cheap.id });
    expect(refused.body).toMatchObject({ status: 409, reason: 'ENTRY_APPROVED' });
    expect((await admin.api.get<Entry>(`/tenants/${t}/entries/${entry.id}`)).body).toMatchObject({ projectId: dear.id, hourlyRate: '200.00' });
  });
});

describe('who sees rates', () => {
  it('is the Rate permission: null for members over REST and GraphQL unless the tenant sets membersSeeRates', async () => {
    const { tenant, member, manager, admin } = await team({ defaultHourlyRate: '75.00' });
    const t = tenant.id;
    const client = (await admin.api.post<Client>(`/tenants/${t}/clients`, { name: 'Hooli', hourlyRate: '95.00', notes: 'Pays late' })).body;
    const project = (await admin.api.post<Project>(`/tenants/${t}/projects`, { name: 'Nucleus', clientId: client.id, budgetAmount: '5000.00' })).body;
    await admin.api.post(`/tenants/${t}/projects/${project.id}/members`, { tenantUserId: member.id, hourlyRate: '99.00' });
    const entry = (await member.api.post<Entry>(`/tenants/${t}/entries`, { ...at('2026-06-02', '09:00', '10:00'), projectId: project.id })).body;
    const document = `query ($t: ID!, $e: ID!, $p: ID!) {
      entry(tenantId: $t, id: $e) { hourlyRate costRate billableAmount costAmount }
      project(tenantId: $t, id: $p) { hourlyRate budgetAmount spentAmount spentMinutes client { name hourlyRate notes } members { hourlyRate } }
      tenant(tenantId: $t) { settings { defaultHourlyRate } }
    }`;
    const variables = { t, e: entry.id, p: project.id };
    const hidden = {
      entry: { hourlyRate: null, costRate: null, billableAmount: null, costAmount: null },
      project: {
        hourlyRate: null,
        budgetAmount: null,
        spentAmount: null,
        spentMinutes: 60,
        client: { name: 'Hooli', hourlyRate: null, notes: null },
        members: [{ hourlyRate: null }],
      },
      tenant: { settings: { defaultHourlyRate: null } },
    };
    expect((await member.api.graphql(document, variables)).body).toEqual({ data: hidden });
    expect((await member.api.get<ProjectMember[]>(`/tenants/${t}/projects/${project.id}/members`)).body).toEqual([
      expect.objectContaining({ hourlyRate: null }),
    ]);
    expect((await member.api.get<Client>(`/tenants/${t}/clients/${client.id}`)).body).toMatchObject({ name: 'Hooli', hourlyRate: null, notes: null });
    const seen = (await manager.api.graphql(document, variables)).body as { data: typeof hidden };
    expect(seen.data.entry).toEqual({ hourlyRate: '99.00', costRate: null, billableAmount: '99.00', costAmount: null });
    expect(seen.data.project).toMatchObject({ budgetAmount: '5000.00', spentAmount: '99.00', client: { hourlyRate: '95.00', notes: 'Pays late' } });
    await admin.api.patch(`/tenants/${t}`, { settings: { membersSeeRates: true } });
    const shown = (await member.api.graphql(document, variables)).body as { data: typeof hidden };
    expect(shown.data.entry).toMatchObject({ hourlyRate: '99.00', billableAmount: '99.00' });
    expect(shown.data.project).toMatchObject({ budgetAmount: '5000.00', spentAmount: '99.00', client: { hourlyRate: '95.00', notes: null } });
    expect(shown.data.tenant.settings.defaultHourlyRate).toBe('75.00');
    const me = (await member.api.get<{ permissions: { action: string; subject: string }[] }>(`/tenants/${t}/users/me`)).body;
    expect(me.permissions).toContainEqual(expect.objectContaining({ action: 'read', subject: 'Rate' }));
  });

  it('says so in the OpenAPI document, field by field', async () => {
    const document = (await seeder(server).tenant()).api;
    const docs = (await document.get<{ components: { schemas: Record<string, { properties: Record<string, { description?: string }> }> } }>('/docs-json')).body;
    for (const [schema, fields] of [
      ['Entry', money],
      ['Project', ['hourlyRate', 'budgetAmount', 'spentAmount']],
      ['Client', ['hourlyRate']],
      ['ProjectMember', ['hourlyRate']],
      ['TenantUser', ['hourlyRate', 'costRate']],
    ] as const) {
      for (const field of fields)
        expect(docs.components.schemas[schema]?.properties[field]?.description, `${schema}.${field}`).toMatch(/Null unless the caller may read rates/);
    }
  });
});

describe('clients and project members', () => {
  it('refuse bad input with the field named, and nothing of another tenant', async () => {
    const { tenant, admin } = await team();
    const other = await seeder(server, provider).tenant().member('member');
    const foreignClient = (await other.tenant.api.post<Client>(`/tenants/${other.tenant.id}/clients`, { name: 'Theirs' })).body;
    const t = tenant.id;
    const refusals: [string, Promise<{ status: number; body: unknown }>][] = [
      ['hourlyRate', admin.api.post(`/tenants/${t}/clients`, { name: 'Negative', hourlyRate: '-1.00' })],
      ['hourlyRate', admin.api.post(`/tenants/${t}/clients`, { name: 'Words', hourlyRate: 'a lot' })],
      ['currency', admin.api.post(`/tenants/${t}/clients`, { name: 'Euro', currency: 'EURO' })],
      ['costRate', admin.api.patch(`/tenants/${t}/users/${admin.id}`, { costRate: '-5.00' })],
      ['clientId', admin.api.post(`/tenants/${t}/projects`, { name: 'Leak', clientId: foreignClient.id })],
      ['defaultHourlyRate', admin.api.patch(`/tenants/${t}`, { settings: { defaultHourlyRate: 'x' } })],
    ];
    const project = (await admin.api.post<Project>(`/tenants/${t}/projects`, { name: 'Staffed' })).body;
    const invited = (await admin.api.post<TenantUser>(`/tenants/${t}/users`, { email: uniqueEmail('invited') })).body;
    refusals.push(
      ['tenantUserId', admin.api.post(`/tenants/${t}/projects/${project.id}/members`, { tenantUserId: other.id })],
      ['tenantUserId', admin.api.post(`/tenants/${t}/projects/${project.id}/members`, { tenantUserId: invited.id })],
      ['hourlyRate', admin.api.post(`/tenants/${t}/projects/${project.id}/members`, { tenantUserId: admin.id, hourlyRate: -10 })],
    );
    for (const [field, answer] of refusals) {
      const { status, body } = await answer;
      expect(status, field).toBe(400);
      expect(body, field).toMatchObject({ code: 'VALIDATION_FAILED', errors: [expect.objectContaining({ path: expect.stringContaining(field) })] });
    }
    expect(JSON.stringify((await admin.api.get(`/tenants/${t}/clients`)).body)).not.toContain('Theirs');
    expect((await admin.api.get(`/tenants/${t}/clients/${foreignClient.id}`)).status).toBe(404);
    expect(await server.app.db.projectMember.count({ where: { projectId: project.id } })).toBe(0);
  });

  it('keep a client with projects (409, archive instead), and a member on a project once', async () => {
    const { tenant, member, admin } = await team();
    const t = tenant.id;
    const client = (await admin.api.post<Client>(`/tenants/${t}/clients`, { name: 'Umbrella' })).body;
    expect((await admin.api.post<Problem>(`/tenants/${t}/clients`, { name: 'Umbrella' })).body).toMatchObject({ status: 409, reason: 'CLIENT_NAME_TAKEN' });
    const project = (await admin.api.post<Project>(`/tenants/${t}/projects`, { name: 'Hive', clientId: client.id })).body;
    expect((await admin.api.delete<Problem>(`/tenants/${t}/clients/${client.id}`)).body).toMatchObject({ status: 409, reason: 'CLIENT_HAS_PROJECTS' });
    expect((await admin.api.patch<Client>(`/tenants/${t}/clients/${client.id}`, { archived: true })).body.archived).toBe(true);
    expect((await admin.api.get<Client[]>(`/tenants/${t}/clients`, { query: { archived: true } })).body.map((each) => each.id)).toEqual([client.id]);
    expect((await admin.api.get<Client[]>(`/tenants/${t}/clients`, { query: { archived: false } })).body).toEqual([]);
    const projects = await admin.api.graphql(
      'query ($t: ID!, $c: ID!) { client(tenantId: $t, id: $c) { projectsConnection { totalCount edges { node { id client { name } } } } } }',
      {
        t,
        c: client.id,
      },
    );
    expect(projects.body).toEqual({
      data: { client: { projectsConnection: { totalCount: 1, edges: [{ node: { id: project.id, client: { name: 'Umbrella' } } }] } } },
    });
    const members = `/tenants/${t}/projects/${project.id}/members`;
    expect((await admin.api.post(members, { tenantUserId: member.id })).status).toBe(201);
    expect((await admin.api.post<Problem>(members, { tenantUserId: member.id })).body).toMatchObject({ status: 409, reason: 'ALREADY_PROJECT_MEMBER' });
    expect((await member.api.get<ProjectMember[]>(members)).body.map((each) => each.tenantUserId)).toEqual([member.id]);
    expect((await member.api.post(members, { tenantUserId: member.id })).status).toBe(403);
    expect((await admin.api.delete(`${members}/${member.id}`)).status).toBe(204);
    expect((await admin.api.delete(`${members}/${member.id}`)).status).toBe(404);
  });
});

describe('budgets', () => {
  it('count each month apart for a monthly budget, in the tenant’s time zone, and warn once per threshold, metric and month', async () => {
    const { tenant, member, admin } = await team({ timezone: 'Europe/Berlin' });
    const t = tenant.id;
    const receiver = await startReceiver();
    const webhook = await tenant.api.post<{ secret: string }>(`/tenants/${t}/webhooks`, { url: receiver.url, events: ['project.budget_reached'] });
    expect(webhook.status).toBe(201);
    const project = (await admin.api.post<Project>(`/tenants/${t}/projects`, { name: 'Retainer', budgetHours: '2', budgetPeriod: 'monthly' })).body;
    const book = (startedAt: string, endedAt: string) => member.api.post(`/tenants/${t}/entries`, { startedAt, endedAt, projectId: project.id });
    // 23:30 UTC on 31 March is 1 April in Berlin: April's.
    await book('2026-03-31T22:30:00Z', '2026-04-01T00:30:00Z');
    expect((await budgetEvents(project.id)).map(({ threshold, period }) => [threshold, period])).toEqual([
      [80, '2026-04'],
      [100, '2026-04'],
    ]);
    await book('2026-03-10T09:00:00Z', '2026-03-10T10:00:00Z');
    expect(await budgetEvents(project.id)).toHaveLength(2);
    await book('2026-03-11T09:00:00Z', '2026-03-11T09:36:00Z');
    expect((await budgetEvents(project.id)).map(({ threshold, period, spent }) => [threshold, period, spent])).toContainEqual([80, '2026-03', '1.60']);
    await book('2026-03-12T09:00:00Z', '2026-03-12T09:10:00Z');
    expect(await budgetEvents(project.id)).toHaveLength(3);
    // Each went to the webhook, signed, with what the contract names.
    try {
      const delivered = (await receiver.waitFor(3, 20_000)).map((request) => receiver.verify(request, webhook.body.secret));
      expect(delivered.map((envelope) => envelope.type)).toEqual(['project.budget_reached', 'project.budget_reached', 'project.budget_reached']);
      expect(delivered.map((envelope) => envelope.data).sort((a, b) => String(a.period).localeCompare(String(b.period)))).toContainEqual({
        projectId: project.id,
        projectName: 'Retainer',
        threshold: 80,
        metric: 'hours',
        spent: '1.60',
        budget: '2.00',
        period: '2026-03',
      });
    } finally {
      await receiver.close();
    }
  });

  it('warn once when two writers cross the threshold together, neither of them alone', async () => {
    const { tenant, member, colleague, admin } = await team();
    const t = tenant.id;
    for (let round = 0; round < 4; round += 1) {
      const project = (await admin.api.post<Project>(`/tenants/${t}/projects`, { name: `Race ${round}`, budgetHours: '10' })).body;
      // 7 h spent: 70%. Each writer adds 45 minutes (77.5% alone), together 85%.
      await admin.api.post(`/tenants/${t}/entries`, { tenantUserId: admin.id, ...at(`2026-07-0${round + 1}`, '08:00', '15:00'), projectId: project.id });
      const day = `2026-07-1${round}`;
      const [first, second] = await Promise.all([
        member.api.post(`/tenants/${t}/entries`, { ...at(day, '09:00', '09:45'), projectId: project.id }),
        colleague.api.post(`/tenants/${t}/entries`, { ...at(day, '09:00', '09:45'), projectId: project.id }),
      ]);
      expect([first.status, second.status]).toEqual([201, 201]);
      expect(
        (await budgetEvents(project.id)).map(({ threshold }) => threshold),
        `round ${round}`,
      ).toEqual([80]);
    }
  });
});
