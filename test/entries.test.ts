/**
 * Time entries over REST and GraphQL, by real members (sessions through the
 * identity provider) and an admin API key: timers, rules, tenant settings,
 * approval, visibility, and bad input.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createClient as generateClient } from '@hey-api/openapi-ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Entry, Problem } from './generated/openapi/types.gen.js';
import { msAgo, testClock } from './helpers/clock.js';
import type { Json } from './helpers/http.js';
import { startIdentityProvider, type IdentityProvider } from './helpers/oidc.js';
import { seedTeam, type SeededMember, type Team } from './helpers/seed.js';
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

/** A tenant of its own per test, with settings, a member, a colleague, a manager and an admin. */
const team = (settings?: Json): Promise<Team> => seedTeam(server, provider, settings);

const entries = (team: Team) => `/tenants/${team.tenant.id}/entries`;
const span = (day: string, from: string, to: string) => ({ startedAt: `${day}T${from}:00Z`, endedAt: `${day}T${to}:00Z` });

async function events(subjectId: string): Promise<string[]> {
  return (await server.app.db.event.findMany({ where: { subjectId }, orderBy: { id: 'asc' } })).map((event) => event.type);
}

describe('the approval flow', () => {
  it('a member records, submits; a manager rejects and approves; an approved entry is read-only until an admin reopens it', async () => {
    const team_ = await team();
    const { member, manager, admin } = team_;
    const path = entries(team_);

    // A timer: started, stopped.
    const started = await member.api.post<Entry>(path, { startedAt: msAgo(90 * 60_000).toISOString(), description: 'Timer' });
    expect(started.status).toBe(201);
    expect(started.body).toMatchObject({ endedAt: null, durationMinutes: null, status: 'draft', tenantUserId: member.id });
    const stopped = await member.api.post<Entry>(`${path}/${started.body.id}/stop`);
    expect(stopped.status).toBe(200);
    expect(stopped.body.durationMinutes).toBeGreaterThanOrEqual(89);

    // A manual entry, submitted, rejected with a reason, edited (back to draft), submitted again, approved.
    const manual = await member.api.post<Entry>(path, { ...span('2026-03-02', '09:00', '12:30'), breakMinutes: 30, description: 'Workshop' });
    expect(manual.body).toMatchObject({ durationMinutes: 180, status: 'draft' });
    const id = manual.body.id;
    expect((await member.api.post<Entry>(`${path}/${id}/submit`)).body).toMatchObject({ status: 'submitted' });
    expect((await member.api.patch<Problem>(`${path}/${id}`, { description: 'Changed my mind' })).body).toMatchObject({
      status: 409,
      code: 'INVALID_STATE',
      reason: 'ENTRY_SUBMITTED',
    });

    const rejected = await manager.api.post<Entry>(`${path}/${id}/reject`, { reason: 'Please add the project' });
    expect(rejected.body).toMatchObject({ status: 'rejected', rejectionReason: 'Please add the project', reviewedById: manager.id });
    expect((await member.api.patch<Entry>(`${path}/${id}`, { description: 'Workshop with ACME' })).body.status).toBe('draft');
    await member.api.post(`${path}/${id}/submit`);
    const approved = await manager.api.post<Entry>(`${path}/${id}/approve`);
    expect(approved.body).toMatchObject({ status: 'approved', reviewedById: manager.id, rejectionReason: null });

    // Approved: read-only, for the member and everyone else, until an admin reopens it.
    for (const attempt of [
      await member.api.patch<Problem>(`${path}/${id}`, { description: 'x' }),
      await member.api.delete<Problem>(`${path}/${id}`),
      await manager.api.patch<Problem>(`${path}/${id}`, { description: 'x' }),
    ]) {
      expect(attempt.body).toMatchObject({ status: 409, code: 'INVALID_STATE', reason: 'ENTRY_APPROVED' });
    }
    expect((await manager.api.post<Problem>(`${path}/${id}/reopen`)).status).toBe(403);
    expect((await admin.api.post<Entry>(`${path}/${id}/reopen`)).body.status).toBe('draft');
    expect((await member.api.patch<Entry>(`${path}/${id}`, { description: 'Reopened' })).status).toBe(200);

    expect(await events(id)).toEqual([
      'entry.created',
      'entry.submitted',
      'entry.rejected',
      'entry.updated',
      'entry.submitted',
      'entry.approved',
      'entry.reopened',
      'entry.updated',
    ]);
    expect(await events(started.body.id)).toEqual(['entry.created', 'timer.started', 'timer.stopped']);
  });

  it('runs over GraphQL too, for an admin API key acting for a member', async () => {
    const team_ = await team();
    const { tenant, member } = team_;
    const call = (query: string, variables: Json) => tenant.api.graphql<Json>(query, { t: tenant.id, ...variables });
    const created = await call(
      'mutation ($t: ID!, $m: ID!) { createEntry(tenantId: $t, input: { tenantUserId: $m, startedAt: "2026-03-03T08:00:00Z", endedAt: "2026-03-03T09:00:00Z" }) { id status tenantUser { email } } }',
      { m: member.id },
    );
    const entry = created.body.data?.createEntry as { id: string; status: string; tenantUser: { email: string } };
    expect(entry).toMatchObject({ status: 'draft', tenantUser: { email: member.email } });
    const step = async (mutation: string) =>
      (
        (await call(`mutation ($t: ID!, $id: ID!) { ${mutation}(tenantId: $t, id: $id) { status } }`, { id: entry.id })).body.data?.[mutation] as {
          status: string;
        }
      ).status;
    expect(await step('submitEntry')).toBe('submitted');
    expect(await step('approveEntry')).toBe('approved');
    expect(await step('reopenEntry')).toBe('draft');
    const draft = await call('mutation ($t: ID!, $id: ID!) { approveEntry(tenantId: $t, id: $id) { status } }', { id: entry.id });
    expect(draft.body.errors?.[0]).toMatchObject({ extensions: { code: 'INVALID_STATE', reason: 'WRONG_STATUS' } });
  });

  it('does not let a manager review their own entry, but an admin may', async () => {
    const team_ = await team();
    const path = entries(team_);
    const own = await team_.manager.api.post<Entry>(path, span('2026-03-04', '09:00', '10:00'));
    await team_.manager.api.post(`${path}/${own.body.id}/submit`);
    const refused = await team_.manager.api.post<Problem>(`${path}/${own.body.id}/approve`);
    expect(refused.body).toMatchObject({ status: 403, detail: 'Managers may not approve their own entries' });
    expect((await team_.manager.api.post<Problem>(`${path}/${own.body.id}/reject`, { reason: 'no' })).status).toBe(403);
    expect((await team_.admin.api.post<Entry>(`${path}/${own.body.id}/approve`)).body.status).toBe('approved');
  });

  it('refuses transitions from the wrong state with 409 INVALID_STATE', async () => {
    const team_ = await team();
    const path = entries(team_);
    const draft = await team_.member.api.post<Entry>(path, span('2026-03-05', '09:00', '10:00'));
    for (const [verb, body] of [
      ['approve', undefined],
      ['reject', { reason: 'no' }],
      ['reopen', undefined],
    ] as const) {
      const answer = await team_.admin.api.post<Problem>(`${path}/${draft.body.id}/${verb}`, body);
      expect(answer.body, verb).toMatchObject({ status: 409, code: 'INVALID_STATE', reason: 'WRONG_STATUS' });
    }
    const running = await team_.member.api.post<Entry>(path, { startedAt: msAgo(60_000).toISOString() });
    expect((await team_.member.api.post<Problem>(`${path}/${running.body.id}/submit`)).body).toMatchObject({
      reason: 'ENTRY_RUNNING',
      detail: 'The timer is still running; stop it first',
    });
    expect((await team_.member.api.post<Problem>(`${path}/${draft.body.id}/stop`)).body).toMatchObject({ code: 'INVALID_STATE', reason: 'NOT_RUNNING' });
  });

  it('requires approval in a tenant created without settings, until the tenant turns it off', async () => {
    const team_ = await team({});
    const path = entries(team_);
    const tenant = await team_.tenant.api.get<{ settings: { approvalRequired: boolean } }>(`/tenants/${team_.tenant.id}`);
    expect(tenant.body.settings.approvalRequired).toBe(true);
    const entry = await team_.member.api.post<Entry>(path, span('2026-03-09', '09:00', '10:00'));
    expect((await team_.member.api.post<Entry>(`${path}/${entry.body.id}/submit`)).body).toMatchObject({ status: 'submitted', reviewedAt: null });
    expect((await team_.manager.api.post<Entry>(`${path}/${entry.body.id}/approve`)).body).toMatchObject({
      status: 'approved',
      reviewedById: team_.manager.id,
    });

    expect((await team_.admin.api.patch(`/tenants/${team_.tenant.id}`, { settings: { approvalRequired: false } })).status).toBe(200);
    const next = await team_.member.api.post<Entry>(path, span('2026-03-10', '09:00', '10:00'));
    expect((await team_.member.api.post<Entry>(`${path}/${next.body.id}/submit`)).body).toMatchObject({ status: 'approved' });
  });

  it('approves at once on submit when the tenant requires no approval', async () => {
    const team_ = await team({ approvalRequired: false });
    const path = entries(team_);
    const entry = await team_.member.api.post<Entry>(path, span('2026-03-06', '09:00', '10:00'));
    expect((await team_.member.api.post<Entry>(`${path}/${entry.body.id}/submit`)).body).toMatchObject({ status: 'approved', reviewedById: null });
    expect(await events(entry.body.id)).toEqual(['entry.created', 'entry.submitted', 'entry.approved']);
  });
});

describe('through a client generated from /docs-json', () => {
  it('runs the same flow with one class per tag: Entries.entryControllerSubmit, ...', async () => {
    const team_ = await team();
    const output = fs.mkdtempSync(path.join(os.tmpdir(), 'tally-entries-client-'));
    try {
      const document = (await team_.tenant.api.get('/docs-json')).body;
      await generateClient({
        input: document as unknown as Record<string, unknown>,
        output: { path: output },
        logs: { level: 'silent' },
        plugins: ['@hey-api/client-fetch', { name: '@hey-api/sdk', operations: { strategy: 'byTags' } }],
      });
      type Result = { data?: Entry; error?: Problem; response: Response };
      type Method = (options: { path: Json; body?: Json; headers?: Record<string, string> }) => Promise<Result>;
      const sdk = (await import(path.join(output, 'sdk.gen.ts'))) as { Entries: Record<string, Method> };
      const { client } = (await import(path.join(output, 'client.gen.ts'))) as { client: { setConfig(config: Json): void } };
      client.setConfig({ baseUrl: server.url });
      const as = (who: SeededMember) => ({ cookie: who.cookie, origin: server.url });
      const tenantId = team_.tenant.id;
      const entries_ = sdk.Entries as Record<string, Method>;

      const created = await entries_.entryControllerCreate!({ path: { tenantId }, body: span('2026-03-20', '09:00', '11:00'), headers: as(team_.member) });
      expect(created.response.status).toBe(201);
      const entryId = created.data?.id as string;
      expect((await entries_.entryControllerSubmit!({ path: { tenantId, entryId }, headers: as(team_.member) })).data?.status).toBe('submitted');
      expect((await entries_.entryControllerApprove!({ path: { tenantId, entryId }, headers: as(team_.manager) })).data?.status).toBe('approved');
      const locked = await entries_.entryControllerUpdate!({ path: { tenantId, entryId }, body: { description: 'x' }, headers: as(team_.member) });
      expect(locked.error).toMatchObject({ code: 'INVALID_STATE', reason: 'ENTRY_APPROVED' });
      expect((await entries_.entryControllerReopen!({ path: { tenantId, entryId }, headers: as(team_.admin) })).data?.status).toBe('draft');
      const listed = await entries_.entryControllerFindAll!({ path: { tenantId }, headers: as(team_.member) });
      expect((listed.data as unknown as Entry[]).map((entry) => entry.id)).toEqual([entryId]);
    } finally {
      fs.rmSync(output, { recursive: true, force: true });
    }
  });
});

describe('who sees and changes which entries', () => {
  it("shows a member only their own entries: another's is a 404 everywhere", async () => {
    const team_ = await team();
    const path = entries(team_);
    const mine = await team_.member.api.post<Entry>(path, span('2026-03-09', '09:00', '10:00'));
    const theirs = await team_.colleague.api.post<Entry>(path, { ...span('2026-03-09', '10:00', '11:00'), description: 'colleague secret' });
    expect((await team_.member.api.get<Entry[]>(path)).body.map((entry) => entry.id)).toEqual([mine.body.id]);
    expect((await team_.member.api.get<Entry[]>(path, { query: { tenantUserId: team_.colleague.id } })).body).toEqual([]);
    for (const attempt of [
      await team_.member.api.get(`${path}/${theirs.body.id}`),
      await team_.member.api.patch(`${path}/${theirs.body.id}`, { description: 'mine now' }),
      await team_.member.api.delete(`${path}/${theirs.body.id}`),
      await team_.member.api.post(`${path}/${theirs.body.id}/submit`),
    ]) {
      expect(attempt.status).toBe(404);
    }
    const viaGraphql = await team_.member.api.graphql<Json>('query ($t: ID!, $id: ID!) { entry(tenantId: $t, id: $id) { id } }', {
      t: team_.tenant.id,
      id: theirs.body.id,
    });
    expect(viaGraphql.body.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    // Through a relation too: the project's entries are only those the caller may read.
    const project = await team_.manager.api.post<{ id: string }>(`/tenants/${team_.tenant.id}/projects`, { name: 'Shared' });
    await team_.member.api.patch(`${path}/${mine.body.id}`, { projectId: project.body.id });
    await team_.colleague.api.patch(`${path}/${theirs.body.id}`, { projectId: project.body.id });
    const relation = await team_.member.api.graphql<{ project: { entriesConnection: { totalCount: number; edges: { node: { id: string } }[] } } }>(
      'query ($t: ID!, $p: ID!) { project(tenantId: $t, id: $p) { entriesConnection { totalCount edges { node { id } } } } }',
      { t: team_.tenant.id, p: project.body.id },
    );
    expect(relation.body.data?.project.entriesConnection).toEqual({ totalCount: 1, edges: [{ node: { id: mine.body.id } }] });
    const managerView = await team_.manager.api.graphql<{ project: { entriesConnection: { totalCount: number } } }>(
      'query ($t: ID!, $p: ID!) { project(tenantId: $t, id: $p) { entriesConnection { totalCount } } }',
      { t: team_.tenant.id, p: project.body.id },
    );
    expect(managerView.body.data?.project.entriesConnection.totalCount).toBe(2);
  });

  it('lets admins and API keys record time for a member, never a member for someone else', async () => {
    const team_ = await team();
    const path = entries(team_);
    const byKey = await team_.tenant.api.post<Entry>(path, { ...span('2026-03-10', '09:00', '10:00'), tenantUserId: team_.member.id });
    expect(byKey.body.tenantUserId).toBe(team_.member.id);
    const byAdmin = await team_.admin.api.post<Entry>(path, { ...span('2026-03-10', '10:00', '11:00'), tenantUserId: team_.member.id });
    expect(byAdmin.status).toBe(201);
    const byMember = await team_.member.api.post<Problem>(path, { ...span('2026-03-10', '11:00', '12:00'), tenantUserId: team_.colleague.id });
    expect(byMember.body).toMatchObject({ status: 403, detail: 'You may create entries only for yourself' });
    const keyWithoutMember = await team_.tenant.api.post<Problem>(path, span('2026-03-10', '12:00', '13:00'));
    expect(keyWithoutMember.body.errors).toEqual([{ path: 'tenantUserId', message: 'is required: an API key has no time of its own' }]);
  });
});

describe('rules and tenant settings', () => {
  it('runs one timer per member (409 for a second) and copies the rate from the project, else the member', async () => {
    const team_ = await team();
    const path = entries(team_);
    await team_.admin.api.patch(`/tenants/${team_.tenant.id}/users/${team_.member.id}`, { hourlyRate: '60.00' });
    const project = await team_.manager.api.post<{ id: string }>(`/tenants/${team_.tenant.id}/projects`, { name: 'Rated', hourlyRate: 95 });
    const timer = await team_.member.api.post<Entry>(path, { startedAt: msAgo(60_000).toISOString() });
    // Rates are for those who may read them (the Rate permission): the member reads null, the admin the rate copied.
    expect(timer.body.hourlyRate).toBeNull();
    expect((await team_.admin.api.get<Entry>(`${path}/${timer.body.id}`)).body.hourlyRate).toBe('60.00');
    const second = await team_.member.api.post<Problem>(path, { startedAt: testClock.now().toISOString() });
    expect(second.body).toMatchObject({ status: 409, code: 'CONFLICT', reason: 'TIMER_RUNNING' });
    expect(second.body.detail).toContain(timer.body.id);
    const onProject = await team_.member.api.post<Entry>(path, { ...span('2026-03-11', '09:00', '10:00'), projectId: project.body.id });
    expect((await team_.admin.api.get<Entry>(`${path}/${onProject.body.id}`)).body.hourlyRate).toBe('95.00');
  });

  it('rounds durations as the tenant says', async () => {
    const team_ = await team({ roundingMinutes: 15 });
    const entry = await team_.member.api.post<Entry>(entries(team_), { startedAt: '2026-03-12T09:00:00Z', endedAt: '2026-03-12T10:08:00Z' });
    expect(entry.body.durationMinutes).toBe(75);
  });

  it('refuses overlapping entries when the tenant says so, naming the other entry', async () => {
    const team_ = await team({ preventOverlap: true });
    const path = entries(team_);
    const first = await team_.member.api.post<Entry>(path, span('2026-03-13', '09:00', '11:00'));
    const overlapping = await team_.member.api.post<Problem>(path, span('2026-03-13', '10:30', '12:00'));
    expect(overlapping.body).toMatchObject({
      status: 409,
      reason: 'ENTRY_OVERLAPS',
      errors: [{ path: 'startedAt', message: `overlaps entry ${first.body.id}` }],
    });
    expect((await team_.member.api.post(path, span('2026-03-13', '11:00', '12:00'))).status).toBe(201);
    // Other members' time does not count.
    expect((await team_.colleague.api.post(path, span('2026-03-13', '09:30', '10:30'))).status).toBe(201);
    // Moving an entry onto another is refused too.
    expect((await team_.member.api.patch<Problem>(`${path}/${first.body.id}`, { endedAt: '2026-03-13T11:30:00Z' })).status).toBe(409);
  });

  it('keeps entries up to lockedUntil read-only, for everyone, until the lock moves', async () => {
    const team_ = await team({ timezone: 'Europe/Berlin' });
    const path = entries(team_);
    // 23:30 UTC on 31 March is 1 April in Berlin: outside a lock up to 31 March.
    const late = await team_.member.api.post<Entry>(path, span('2026-03-31', '23:30', '23:45'));
    const early = await team_.member.api.post<Entry>(path, span('2026-03-31', '08:00', '09:00'));
    await team_.admin.api.patch(`/tenants/${team_.tenant.id}`, { settings: { lockedUntil: '2026-03-31' } });
    expect((await team_.member.api.patch(`${path}/${late.body.id}`, { description: 'fine' })).status).toBe(200);
    for (const attempt of [
      await team_.member.api.patch<Problem>(`${path}/${early.body.id}`, { description: 'x' }),
      await team_.admin.api.delete<Problem>(`${path}/${early.body.id}`),
      await team_.member.api.post<Problem>(`${path}/${early.body.id}/submit`),
      await team_.member.api.post<Problem>(path, span('2026-03-20', '09:00', '10:00')),
      await team_.member.api.patch<Problem>(`${path}/${late.body.id}`, { startedAt: '2026-03-30T10:00:00Z', endedAt: '2026-03-30T11:00:00Z' }),
    ]) {
      expect(attempt.body).toMatchObject({ status: 409, code: 'INVALID_STATE', reason: 'ENTRY_LOCKED' });
    }
    await team_.admin.api.patch(`/tenants/${team_.tenant.id}`, { settings: { lockedUntil: null } });
    expect((await team_.member.api.patch(`${path}/${early.body.id}`, { description: 'unlocked' })).status).toBe(200);
  });

  it('filters by dates in the tenant\u2019s time zone, by member, project, status and billability', async () => {
    const team_ = await team({ timezone: 'America/New_York' });
    const path = entries(team_);
    // 03:00 UTC on 15 March is still 14 March in New York.
    const lateEvening = await team_.member.api.post<Entry>(path, span('2026-03-15', '03:00', '03:30'));
    const morning = await team_.member.api.post<Entry>(path, { ...span('2026-03-15', '14:00', '15:00'), billable: false });
    const ids = async (query: Record<string, string | boolean>) => (await team_.manager.api.get<Entry[]>(path, { query })).body.map((entry) => entry.id);
    expect(await ids({ from: '2026-03-15', to: '2026-03-15' })).toEqual([morning.body.id]);
    expect(await ids({ from: '2026-03-14', to: '2026-03-14' })).toEqual([lateEvening.body.id]);
    expect(await ids({ from: '2026-03-15T00:00:00Z', to: '2026-03-15T12:00:00Z' })).toEqual([lateEvening.body.id]);
    expect(await ids({ billable: false })).toEqual([morning.body.id]);
    expect(await ids({ tenantUserId: team_.member.id })).toEqual([morning.body.id, lateEvening.body.id]);
    expect(await ids({ status: 'submitted' })).toEqual([]);
    const connection = await team_.manager.api.graphql<{ entriesConnection: { totalCount: number; edges: { node: { id: string } }[] } }>(
      `query ($t: ID!) { entriesConnection(tenantId: $t, first: 1, filter: { tenantUserId: "${team_.member.id}" }) { totalCount edges { node { id } } } }`,
      { t: team_.tenant.id },
    );
    expect(connection.body.data?.entriesConnection).toEqual({ totalCount: 2, edges: [{ node: { id: morning.body.id } }] });
  });
});

describe('bad input gets a 400 naming the field, and changes nothing', () => {
  it.each([
    ['an end before the start', { startedAt: '2026-03-16T10:00:00Z', endedAt: '2026-03-16T09:00:00Z' }, 'endedAt'],
    ['a negative break', { startedAt: '2026-03-16T09:00:00Z', endedAt: '2026-03-16T10:00:00Z', breakMinutes: -5 }, 'breakMinutes'],
    ['a break longer than the entry', { startedAt: '2026-03-16T09:00:00Z', endedAt: '2026-03-16T10:00:00Z', breakMinutes: 60 }, 'breakMinutes'],
    ['a running timer in the future', { startedAt: '2099-01-01T09:00:00Z' }, 'startedAt'],
    ['an invalid date', { startedAt: '2026-02-30T09:00:00Z', endedAt: '2026-03-01T10:00:00Z' }, 'startedAt'],
    ['a date without offset', { startedAt: '2026-03-16 09:00', endedAt: '2026-03-16T10:00:00Z' }, 'startedAt'],
    [
      'an unknown project',
      { startedAt: '2026-03-16T09:00:00Z', endedAt: '2026-03-16T10:00:00Z', projectId: '0199a1f0-0000-7000-8000-000000000000' },
      'projectId',
    ],
    ['an unknown task', { startedAt: '2026-03-16T09:00:00Z', endedAt: '2026-03-16T10:00:00Z', taskId: '0199a1f0-0000-7000-8000-000000000000' }, 'taskId'],
    ['an unknown vehicle', { startedAt: '2026-03-16T09:00:00Z', endedAt: '2026-03-16T10:00:00Z', vehicleId: 'nope' }, 'vehicleId'],
    ['an unknown member', { startedAt: '2026-03-16T09:00:00Z', endedAt: '2026-03-16T10:00:00Z', tenantUserId: 'nope' }, 'tenantUserId'],
    ['an unknown field', { startedAt: '2026-03-16T09:00:00Z', endedAt: '2026-03-16T10:00:00Z', approved: true }, 'approved'],
  ])('%s', async (_name, body, field) => {
    const team_ = await team();
    const response = await team_.admin.api.post<Problem>(entries(team_), body);
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('VALIDATION_FAILED');
    expect(response.body.errors?.map((error) => error.path)).toContain(field);
    expect(await server.app.db.entry.count({ where: { tenantId: team_.tenant.id } })).toBe(0);
  });

  it("names another tenant's project, task, vehicle or member as unknown, leaking nothing of it", async () => {
    const [mine, theirs] = [await team(), await team()];
    const project = await theirs.manager.api.post<{ id: string; name: string }>(`/tenants/${theirs.tenant.id}/projects`, { name: 'Secret project' });
    const vehicle = await theirs.manager.api.post<{ id: string }>(`/tenants/${theirs.tenant.id}/vehicles`, { name: 'Secret van', licensePlate: 'SECRET 1' });
    for (const [field, id] of [
      ['projectId', project.body.id],
      ['vehicleId', vehicle.body.id],
      ['tenantUserId', theirs.member.id],
    ] as const) {
      const response = await mine.admin.api.post<Problem>(entries(mine), {
        ...span('2026-03-17', '09:00', '10:00'),
        tenantUserId: mine.member.id,
        [field]: id,
      });
      expect(response.status, field).toBe(400);
      expect(response.body.errors?.[0]?.path, field).toBe(field);
      expect(response.text, field).not.toContain('Secret');
    }
  });

  it('refuses bad filters: invalid dates, out-of-range limits, unknown parameters', async () => {
    const team_ = await team();
    for (const [query, field] of [
      [{ from: '2026-13-01' }, 'from'],
      [{ to: 'yesterday' }, 'to'],
      [{ limit: 0 }, 'limit'],
      [{ limit: 201 }, 'limit'],
      [{ status: 'paid' }, 'status'],
      [{ sort: 'asc' }, 'sort'],
    ] as const) {
      const response = await team_.manager.api.get<Problem>(entries(team_), { query });
      expect(response.status, JSON.stringify(query)).toBe(400);
      expect(response.body.errors?.[0]?.path).toBe(field);
    }
  });

  it('refuses an invalid time zone in the tenant settings', async () => {
    const team_ = await team();
    const response = await team_.admin.api.patch<Problem>(`/tenants/${team_.tenant.id}`, { settings: { timezone: 'Mars/Olympus' } });
    expect(response.body).toMatchObject({ status: 400, errors: [{ path: 'settings.timezone' }] });
  });
});
