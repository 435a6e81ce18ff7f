/**
 * Read replicas (CONTRACT.md section 11, "Reads that scale"): a real primary
 * and a real streaming replica of the embedded PostgreSQL 18, and the API
 * on both. A writer reads their own writes every time; another caller reads
 * the replica, at most the configured lag behind; pausing replay and
 * stopping the replica lose no answer.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemActor } from '../src/auth/actor.js';
import { systemAccess } from '../src/auth/tenant-access.js';
import { eventually } from './helpers/eventually.js';
import { connectWs, wsQuery } from './helpers/graphql-ws.js';
import { apiClient, type ApiClient } from './helpers/http.js';
import { startStreamingPair, type StreamingPair } from './helpers/replica.js';
import { seeder, type SeededTenant } from './helpers/seed.js';
import { startTestServer, type TestServer } from './helpers/server.js';

const maxLagMs = 1500;
/** The replica's state is checked once a second: a lag is noticed up to two checks late. */
const checkMs = 1000;

let pair: StreamingPair;
let server: TestServer;
/** A second API process on the same primary and replica: the caller's `Tally-Read-After` crosses to it. */
let other: TestServer;
let tenant: SeededTenant;
/** Another caller of the same tenant: reads what the tenant's key writes only once the replica has it. */
let reader: ApiClient;

interface Note {
  id: string;
  content: string;
}
interface Health {
  status: string;
  replicas?: { name: string; state: string; lagMs: number | null }[];
}

const env = (replicaUrl: string) => ({ ROLE: 'api', DATABASE_REPLICA_URL: replicaUrl, REPLICA_MAX_LAG_MS: String(maxLagMs) });

beforeAll(async () => {
  pair = await startStreamingPair();
  server = await startTestServer({ databaseUrl: pair.primary.url, env: env(pair.replica.url) });
  other = await startTestServer({ databaseUrl: pair.primary.url, env: env(pair.replica.url) });
  tenant = await seeder(server).tenant();
  const { key } = await server.app.services.apiKeys.create(systemAccess(tenant.tenant, systemActor('test')), { name: 'reader', expiresInDays: 1 });
  reader = apiClient(server.url, { apiKey: key });
  await eventually(async () => expect(await replicaStates(server)).toEqual(['up']));
}, 60_000);
afterAll(async () => {
  await other?.stop();
  await server?.stop();
  await pair?.stop();
});

async function health(on: TestServer): Promise<{ status: number; body: Health }> {
  const response = await fetch(`${on.url}/health`);
  return { status: response.status, body: (await response.json()) as Health };
}

async function replicaStates(on: TestServer): Promise<string[]> {
  return ((await health(on)).body.replicas ?? []).map((replica) => replica.state);
}

/** Reads served so far, by database, from /metrics. */
async function readsServed(on: TestServer): Promise<Record<string, number>> {
  const text = await (await fetch(`${on.url}/metrics`, { headers: { authorization: `Bearer ${tenant.key}` } })).text();
  const served: Record<string, number> = {};
  for (const match of text.matchAll(/^tally_db_reads_total\{database="([^"]+)"\} (\d+)/gm)) served[match[1] as string] = Number(match[2]);
  return served;
}

const notesPath = () => `/tenants/${tenant.id}/notes`;

async function writeNote(api: ApiClient, content: string): Promise<{ note: Note; readAfter: string | null }> {
  const created = await api.post<Note>(notesPath(), { content });
  expect(created.status, created.text).toBe(201);
  return { note: created.body, readAfter: created.headers.get('tally-read-after') };
}

async function newestNoteIds(api: ApiClient, headers: Record<string, string> = {}): Promise<string[]> {
  const listed = await api.get<Note[]>(notesPath(), { query: { limit: 5 }, headers });
  expect(listed.status, listed.text).toBe(200);
  return listed.body.map((note) => note.id);
}

describe('read replicas', () => {
  it('a writer reads their own writes every time, in lists, search, reports and the change feed, mostly from the replica', async () => {
    const replicaName = (await health(server)).body.replicas?.[0]?.name as string;
    const before = await readsServed(server);
    for (let round = 0; round < 15; round += 1) {
      const { note } = await writeNote(tenant.api, `round ${round}`);
      expect((await newestNoteIds(tenant.api))[0]).toBe(note.id);
    }
    // Each kind of read that goes to replicas, right after the write it must see.
    const name = `Replicated ${Date.now().toString(36)}`;
    const project = await tenant.api.post<{ id: string }>(`/tenants/${tenant.id}/projects`, { name });
    expect(project.status, project.text).toBe(201);
    const found = await tenant.api.get<{ id: string }[]>(`/tenants/${tenant.id}/search`, { query: { q: name } });
    expect(found.body.map((result) => result.id)).toContain(project.body.id);
    const feed = await tenant.api.get<{ subjectId: string; type: string }[]>(`/tenants/${tenant.id}/events`, { query: { subjectId: project.body.id } });
    expect(feed.body.map((event) => event.type)).toContain('project.created');
    const projects = await tenant.api.get<{ id: string }[]>(`/tenants/${tenant.id}/projects`);
    expect(projects.body.map((listed) => listed.id)).toContain(project.body.id);
    const after = await readsServed(server);
    // Most of those reads were the replica's: it replays a write in well under the 200 ms a read may wait.
    expect((after[replicaName] ?? 0) - (before[replicaName] ?? 0)).toBeGreaterThan(10);
  }, 30_000);

  it('the lists and time reads beyond notes go to the replica too: tasks, project members, expenses, absences, schedules, notifications, working time, timesheets, balances, vacation', async () => {
    const replicaName = (await health(server)).body.replicas?.[0]?.name as string;
    const base = `/tenants/${tenant.id}`;
    const invited = await tenant.api.post<{ id: string }>(`${base}/users`, { email: `replicated-${Date.now().toString(36)}@example.com`, role: 'member' });
    expect(invited.status, invited.text).toBe(201);
    const taskList = await tenant.api.post<{ id: string }>(`${base}/task-lists`, { name: 'Replicated tasks' });
    expect(taskList.status, taskList.text).toBe(201);
    const project = await tenant.api.post<{ id: string }>(`${base}/projects`, { name: `Replicated members ${Date.now().toString(36)}` });
    expect(project.status, project.text).toBe(201);
    const member = `${base}/users/${invited.body.id}`;
    const reads: [string, Record<string, string>?][] = [
      [`${base}/task-lists/${taskList.body.id}/tasks`],
      [`${base}/projects/${project.body.id}/members`],
      [`${base}/expenses`],
      [`${base}/absences`],
      [`${base}/absence-types`],
      [`${base}/notifications`],
      [`${member}/work-schedules`],
      [`${member}/working-time`, { from: '2027-01-01', to: '2027-01-31' }],
      [`${base}/working-time/violations`, { from: '2027-01-01', to: '2027-01-31' }],
      [`${member}/timesheets/2027-01`],
      [`${member}/time-balance`, { from: '2027-01-01', to: '2027-01-31' }],
      [`${member}/vacation/2027`],
    ];
    // Caught up with the writes above, so that each read may use the replica.
    await eventually(async () => expect((await reader.get(`${base}/task-lists/${taskList.body.id}/tasks`)).status).toBe(200));
    for (const [path, query] of reads) {
      const before = (await readsServed(server))[replicaName] ?? 0;
      const read = await reader.get(path, { query });
      expect(read.status, `${path}: ${read.text}`).toBe(200);
      expect((await readsServed(server))[replicaName] ?? 0, `${path} read the replica`).toBeGreaterThan(before);
    }
  }, 30_000);

  it('with replay paused, a writer still reads their own writes (from the primary), and another caller is at most the lag behind', async () => {
    await pair.onReplica('SELECT pg_wal_replay_pause()');
    try {
      const written = performance.now();
      const { note, readAfter } = await writeNote(tenant.api, 'while replay is paused');
      expect(readAfter).toMatch(/^[0-9A-F]+\/[0-9A-F]+$/);
      // The writer: the replica cannot have it, so after waiting REPLICA_MAX_WAIT_MS the read goes to the primary.
      expect((await newestNoteIds(tenant.api))[0]).toBe(note.id);
      // The same caller through another API process, carrying the position its write answered with.
      const elsewhere = apiClient(other.url, { apiKey: tenant.key });
      expect((await newestNoteIds(elsewhere, { 'tally-read-after': readAfter as string }))[0]).toBe(note.id);
      // Another caller reads the replica, which does not have it yet...
      expect(await newestNoteIds(reader)).not.toContain(note.id);
      // ...until the replica lags more than REPLICA_MAX_LAG_MS: then it is skipped, and the primary answers.
      let seenAfterMs = 0;
      for (;;) {
        const ids = await newestNoteIds(reader);
        seenAfterMs = performance.now() - written;
        if (ids.includes(note.id)) break;
        expect(seenAfterMs).toBeLessThan(maxLagMs + 2 * checkMs + 500);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(seenAfterMs).toBeGreaterThan(maxLagMs - 100);
      const listed = (await health(server)).body;
      expect(listed.status).toBe('ok');
      expect(listed.replicas?.[0]?.state).toBe('lagging');
      expect(listed.replicas?.[0]?.lagMs).toBeGreaterThan(maxLagMs);
    } finally {
      await pair.onReplica('SELECT pg_wal_replay_resume()');
    }
    // Caught up again, it serves reads again.
    await eventually(async () => expect(await replicaStates(server)).toEqual(['up']));
    const metrics = await (await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${tenant.key}` } })).text();
    expect(metrics).toMatch(/^tally_replica_lag_seconds\{replica="[^"]+"\} [\d.]+$/m);
    expect(metrics).toMatch(/^tally_db_reads_share\{database="primary"\} [\d.]+$/m);
  }, 30_000);

  it('a mutation over the GraphQL WebSocket is remembered for its caller, whose next read over HTTP sees it', async () => {
    // A caller of its own, with no write remembered yet.
    const { key } = await server.app.services.apiKeys.create(systemAccess(tenant.tenant, systemActor('test')), { name: 'socket writer', expiresInDays: 1 });
    const connection = connectWs(server.url, { authorization: `Bearer ${key}` });
    await eventually(async () => expect(await replicaStates(server)).toEqual(['up']));
    await pair.onReplica('SELECT pg_wal_replay_pause()');
    try {
      const created = await wsQuery<{ createNote: { id: string } }>(
        connection.client,
        'mutation ($t: ID!) { createNote(tenantId: $t, input: { content: "over the socket" }) { id } }',
        { t: tenant.id },
      );
      const id = created.data?.createNote.id;
      expect(id, JSON.stringify(created.errors)).toBeDefined();
      // The replica is up (not yet past the lag bound) but has not replayed the note: the read waits, then reads the primary.
      expect((await newestNoteIds(apiClient(server.url, { apiKey: key })))[0]).toBe(id);
    } finally {
      await pair.onReplica('SELECT pg_wal_replay_resume()');
      await connection.client.dispose();
    }
  }, 30_000);

  it('stopping the replica loses no answer: reads go to the primary, and /health says the replica is down', async () => {
    const { note } = await writeNote(tenant.api, 'before the replica stops');
    const reads = (api: ApiClient) => [
      newestNoteIds(api),
      api.get(`/tenants/${tenant.id}/search`, { query: { q: 'replicated' } }),
      api.get(`/tenants/${tenant.id}/events`),
      api.get(`/tenants/${tenant.id}/projects`),
      api.get(`/tenants/${tenant.id}/reports/summary`, { query: { from: '2026-01-01', to: '2026-12-31', groupBy: 'project' } }),
    ];
    const stopping = pair.replica.stop();
    // Reads under way while it goes, and right after: before the background check has noticed.
    const during = await Promise.all([...reads(reader), ...reads(tenant.api)].map((read) => read.then((answer) => ('status' in answer ? answer.status : 200))));
    await stopping;
    const after = await Promise.all([...reads(reader), ...reads(tenant.api)].map((read) => read.then((answer) => ('status' in answer ? answer.status : 200))));
    expect([...during, ...after].every((status) => status === 200)).toBe(true);
    expect(await newestNoteIds(reader)).toContain(note.id);
    await eventually(async () => expect(await replicaStates(server)).toEqual(['down']));
    expect((await health(server)).status).toBe(200);
  }, 30_000);
});
