/**
 * The change feed and audit trail (CONTRACT.md section 8): a client that
 * replays the feed from empty ends with exactly the entries the API lists,
 * reading on after its last id never skips an event whose transaction
 * commits late, one entry's history says what happened and who did it, and
 * old processed events are pruned.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sql } from '../src/db/client.js';
import { createLogger } from '../src/lib/logger.js';
import { createEventWork } from '../src/modules/insight/event/event.work.js';
import type { Entry, Problem } from './generated/openapi/types.gen.js';
import { msAgo } from './helpers/clock.js';
import { eventually } from './helpers/eventually.js';
import type { ApiClient, Json } from './helpers/http.js';
import { startIdentityProvider, type IdentityProvider } from './helpers/oidc.js';
import { seedTeam, seeder, type Team } from './helpers/seed.js';
import { startTestServer, type TestServer } from './helpers/server.js';

let provider: IdentityProvider;
let server: TestServer;
let pool: pg.Pool;

beforeAll(async () => {
  provider = await startIdentityProvider();
  // No workers: events stay unprocessed unless a test says otherwise (the feed does not wait for the dispatcher).
  server = await startTestServer({ env: { ...provider.env, ROLE: 'api' } });
  pool = new pg.Pool({ connectionString: server.databaseUrl, max: 3 });
});
afterAll(async () => {
  await pool?.end();
  await server?.stop();
  await provider?.close();
});

interface ChangeEvent {
  id: string;
  type: string;
  timestamp: string;
  tenantId: string;
  actor: { type: string; id: string | null };
  subjectId: string | null;
  data: Json;
}

const feedOf = (tenantId: string) => `/tenants/${tenantId}/events`;
const span = (day: string, from: string, to: string) => ({ startedAt: `${day}T${from}:00Z`, endedAt: `${day}T${to}:00Z` });

/** Reads the feed on from `after` in pages of `limit` until a page comes back empty. */
async function readFeed(api: ApiClient, tenantId: string, after: string | undefined, limit = 3): Promise<ChangeEvent[]> {
  const read: ChangeEvent[] = [];
  let cursor = after;
  for (;;) {
    const page = await api.get<ChangeEvent[]>(feedOf(tenantId), { query: { limit, ...(cursor ? { after: cursor } : {}) } });
    expect(page.status, page.text).toBe(200);
    if (page.body.length === 0) return read;
    read.push(...page.body);
    cursor = page.body.at(-1)?.id;
  }
}

/** A sync client's copy of the entries: what the README tells clients to do with each event. */
function apply(copy: Map<string, Json>, events: readonly ChangeEvent[]): void {
  for (const event of events) {
    if (!event.type.startsWith('entry.') && !event.type.startsWith('timer.')) continue;
    if (event.type === 'entry.deleted') copy.delete(String(event.subjectId));
    else copy.set(String(event.subjectId), event.data);
  }
}

const comparable = (entry: Json) => ({
  id: entry.id,
  status: entry.status,
  description: entry.description,
  startedAt: entry.startedAt,
  endedAt: entry.endedAt,
  durationMinutes: entry.durationMinutes,
  tags: entry.tags,
  updatedAt: entry.updatedAt,
});

async function listedEntries(team: Team): Promise<Json[]> {
  const listed = await team.tenant.api.get<Json[]>(`/tenants/${team.tenant.id}/entries`, { query: { limit: 200 } });
  expect(listed.status).toBe(200);
  return listed.body;
}

describe('the change feed', () => {
  it('replayed from empty, with a pause half way, ends with exactly the entries the API lists', async () => {
    const team = await seedTeam(server, provider);
    const { member, colleague, manager, tenant } = team;
    const entries = `/tenants/${tenant.id}/entries`;

    const first = await member.api.post<Entry>(entries, { ...span('2026-03-02', '09:00', '12:00'), description: 'Planning', tags: ['a'] });
    const second = await colleague.api.post<Entry>(entries, { ...span('2026-03-02', '13:00', '14:00'), description: 'Review' });
    const doomed = await member.api.post<Entry>(entries, { ...span('2026-03-03', '09:00', '10:00'), description: 'Mistake' });
    const timer = await tenant.api.post<Entry>(entries, { startedAt: msAgo(30 * 60_000).toISOString(), tenantUserId: member.id });
    expect([first.status, second.status, doomed.status, timer.status]).toEqual([201, 201, 201, 201]);

    // A client syncs now, then goes away while the team works on.
    const copy = new Map<string, Json>();
    const early = await eventually(async () => {
      const read = await readFeed(tenant.api, tenant.id, undefined);
      expect(read.filter((event) => event.type === 'entry.created')).toHaveLength(4);
      return read;
    });
    apply(copy, early);

    expect((await member.api.patch(`${entries}/${first.body.id}`, { description: 'Planning, revised', tags: ['a', 'b'] })).status).toBe(200);
    expect((await member.api.delete(`${entries}/${doomed.body.id}`)).status).toBe(204);
    expect((await tenant.api.post(`${entries}/${timer.body.id}/stop`)).status).toBe(200);
    expect((await colleague.api.post(`${entries}/${second.body.id}/submit`)).status).toBe(200);
    expect((await manager.api.post(`${entries}/${second.body.id}/approve`)).status).toBe(200);

    const lastRead = early.at(-1)?.id;
    const later = await eventually(async () => {
      const read = await readFeed(tenant.api, tenant.id, lastRead);
      expect(read.map((event) => event.type)).toEqual(['entry.updated', 'entry.deleted', 'timer.stopped', 'entry.submitted', 'entry.approved']);
      return read;
    });
    apply(copy, later);

    const listed = await listedEntries(team);
    expect(listed).toHaveLength(3);
    expect([...copy.values()].map(comparable).sort((a, b) => String(a.id).localeCompare(String(b.id)))).toEqual(
      listed.map(comparable).sort((a, b) => String(a.id).localeCompare(String(b.id))),
    );

    // Who did what is there: the deletion by the member, the approval by the manager's user.
    const deleted = later.find((event) => event.type === 'entry.deleted');
    expect(deleted).toMatchObject({ subjectId: doomed.body.id, actor: { type: 'user' }, tenantId: tenant.id });
    const approved = later.find((event) => event.type === 'entry.approved');
    const managerUser = await server.app.db.tenantUser.findUniqueOrThrow({ where: { id: manager.id } });
    expect(approved?.actor).toEqual({ type: 'user', id: managerUser.userId });

    // Replaying from empty in one go gives the same state.
    const replayed = new Map<string, Json>();
    apply(replayed, await readFeed(tenant.api, tenant.id, undefined, 1000));
    expect([...replayed.keys()].sort()).toEqual(listed.map((entry) => String(entry.id)).sort());
  });

  it('never passes an event whose transaction commits after a later one', async () => {
    const step = seeder(server, provider).tenant();
    const tenant = await step;
    const member = await step.member();
    const entries = `/tenants/${tenant.id}/entries`;

    // A writer that takes its time: its event exists (and has the smaller id) before the API's commits.
    const slow = await pool.connect();
    try {
      await slow.query('BEGIN');
      await slow.query(
        `INSERT INTO events (id, "tenantId", type, "actorType", "subjectId", data) VALUES (gen_random_uuid(), $1, 'note.created', 'system', 'slow-note', '{}')`,
        [tenant.id],
      );
      const fast = await tenant.api.post<Entry>(entries, { ...span('2026-03-04', '09:00', '10:00'), tenantUserId: member.id });
      expect(fast.status).toBe(201);

      // While the slow writer is open, the fast event is held back too: a reader that saw it would move past the slow one.
      const during = await readFeed(tenant.api, tenant.id, undefined);
      expect(during.map((event) => event.subjectId)).not.toContain(fast.body.id);
      const cursor = during.at(-1)?.id;

      await slow.query('COMMIT');
      // After the cursor may also come the tenant's own setup events, when another test file's transaction held
      // them back at the first read: the two at stake come in commit order, the slow one first.
      const after = await eventually(async () => {
        const read = await readFeed(tenant.api, tenant.id, cursor);
        const atStake = read.filter((event) => event.subjectId === 'slow-note' || event.subjectId === fast.body.id);
        expect(atStake.map((event) => event.subjectId)).toEqual(['slow-note', fast.body.id]);
        return atStake;
      });
      expect(after.map((event) => event.type)).toEqual(['note.created', 'entry.created']);
    } finally {
      await slow.query('ROLLBACK').catch(() => undefined);
      slow.release();
    }
  });

  it('filters by type, subject, actor and time, over REST and as a GraphQL connection', async () => {
    const team = await seedTeam(server, provider);
    const { member, tenant } = team;
    const entries = `/tenants/${tenant.id}/entries`;
    const mine = await member.api.post<Entry>(entries, { ...span('2026-03-05', '09:00', '10:00'), description: 'Mine' });
    const keys = await tenant.api.post<Entry>(entries, { ...span('2026-03-05', '11:00', '12:00'), tenantUserId: member.id });
    await member.api.patch(`${entries}/${mine.body.id}`, { description: 'Mine, edited' });
    const memberUser = await server.app.db.tenantUser.findUniqueOrThrow({ where: { id: member.id } });

    const all = await eventually(async () => {
      const read = await readFeed(tenant.api, tenant.id, undefined, 1000);
      expect(read.filter((event) => event.type.startsWith('entry.'))).toHaveLength(3);
      return read;
    });
    const query = async (parameters: Record<string, string>) => {
      const answer = await tenant.api.get<ChangeEvent[]>(feedOf(tenant.id), { query: parameters });
      expect(answer.status, answer.text).toBe(200);
      return answer.body.map((event) => `${event.type}:${event.subjectId}`);
    };
    expect(await query({ types: 'entry.updated' })).toEqual([`entry.updated:${mine.body.id}`]);
    expect(await query({ types: 'entry.created,entry.updated', subjectId: mine.body.id })).toEqual([
      `entry.created:${mine.body.id}`,
      `entry.updated:${mine.body.id}`,
    ]);
    expect(await query({ actorType: 'api_key', types: 'entry.created' })).toEqual([`entry.created:${keys.body.id}`]);
    expect(await query({ actorId: String(memberUser.userId), types: 'entry.created,entry.updated' })).toEqual([
      `entry.created:${mine.body.id}`,
      `entry.updated:${mine.body.id}`,
    ]);
    const lastTime = all.at(-1)?.timestamp ?? '';
    expect(await query({ from: lastTime, types: 'entry.updated' })).toEqual([`entry.updated:${mine.body.id}`]);
    expect(await query({ to: all[0]?.timestamp ?? '' })).toEqual([]);

    // GraphQL: the same feed, page by page.
    const connection = `query($tenantId: ID!, $after: String) {
      events(tenantId: $tenantId, first: 2, after: $after, types: ["entry.created", "entry.updated"]) {
        edges { cursor node { id type subjectId actor { type id } data } }
        pageInfo { hasNextPage endCursor }
      }
    }`;
    type Page = { events: { edges: { cursor: string; node: ChangeEvent }[]; pageInfo: { hasNextPage: boolean; endCursor: string } } };
    const one = await tenant.api.graphql<Page>(connection, { tenantId: tenant.id });
    expect(one.body.errors).toBeUndefined();
    expect(one.body.data?.events.edges.map((edge) => edge.node.type)).toEqual(['entry.created', 'entry.created']);
    expect(one.body.data?.events.pageInfo.hasNextPage).toBe(true);
    const two = await tenant.api.graphql<Page>(connection, { tenantId: tenant.id, after: one.body.data?.events.pageInfo.endCursor });
    expect(two.body.data?.events.edges.map((edge) => edge.node.type)).toEqual(['entry.updated']);
    expect(two.body.data?.events.pageInfo.hasNextPage).toBe(false);
    expect(two.body.data?.events.edges[0]?.node.data).toMatchObject({ id: mine.body.id, description: 'Mine, edited' });
  });

  it('is for owners, admins and API keys; refuses a cursor of another tenant without saying whose it is', async () => {
    const team = await seedTeam(server, provider);
    const other = await seeder(server).tenant();
    await other.api.post(`/tenants/${other.id}/notes`, { content: 'elsewhere' });
    const [otherEvent] = await eventually(async () => {
      const read = await readFeed(other.api, other.id, undefined);
      expect(read.length).toBeGreaterThan(0);
      return read;
    });
    const path = feedOf(team.tenant.id);

    expect((await team.admin.api.get(path)).status).toBe(200);
    expect((await team.manager.api.get<Problem>(path)).body).toMatchObject({ status: 403, code: 'FORBIDDEN' });
    expect((await team.member.api.get<Problem>(path)).body).toMatchObject({ status: 403, code: 'FORBIDDEN' });

    const foreign = await team.tenant.api.get<Problem>(path, { query: { after: String(otherEvent?.id) } });
    const unknown = await team.tenant.api.get<Problem>(path, { query: { after: '01900000-0000-7000-8000-000000000000' } });
    expect(foreign.body).toMatchObject({ status: 400, code: 'VALIDATION_FAILED', errors: [{ path: 'after' }] });
    // The same answer for an id that exists elsewhere and one that exists nowhere.
    expect(foreign.body.errors).toEqual(unknown.body.errors);
    expect(foreign.text).not.toContain(other.id);

    for (const [name, value] of [
      ['limit', '0'],
      ['limit', '1001'],
      ['types.0', 'entry.exploded'],
      ['actorType', 'robot'],
      ['from', 'yesterday'],
    ] as const) {
      const refused = await team.tenant.api.get<Problem>(path, { query: { [name.replace('.0', '')]: value } });
      expect(refused.body, `${name}=${value}`).toMatchObject({ status: 400, code: 'VALIDATION_FAILED', errors: [{ path: name }] });
    }
    // Another tenant's feed is not found, like anything of another tenant.
    expect((await team.tenant.api.get<Problem>(feedOf(other.id))).status).toBe(404);
  });
});

describe("an entry's history", () => {
  it('says what happened and who did it; its owner reads it, colleagues and managers do not; admins read it after the entry is gone', async () => {
    const team = await seedTeam(server, provider);
    const { member, colleague, manager, admin, tenant } = team;
    const entries = `/tenants/${tenant.id}/entries`;
    const entry = await member.api.post<Entry>(entries, { ...span('2026-03-06', '09:00', '11:00'), description: 'Draft' });
    const id = entry.body.id;
    await member.api.patch(`${entries}/${id}`, { description: 'Final' });
    await member.api.post(`${entries}/${id}/submit`);
    await manager.api.post(`${entries}/${id}/reject`, { reason: 'Wrong project' });
    await member.api.patch(`${entries}/${id}`, { description: 'Final, fixed' });

    const history = await member.api.get<ChangeEvent[]>(`${entries}/${id}/history`);
    expect(history.status, history.text).toBe(200);
    expect(history.body.map((event) => event.type)).toEqual(['entry.created', 'entry.updated', 'entry.submitted', 'entry.rejected', 'entry.updated']);
    const [memberUser, managerUser] = await Promise.all(
      [member.id, manager.id].map((tenantUserId) => server.app.db.tenantUser.findUniqueOrThrow({ where: { id: tenantUserId } })),
    );
    expect(history.body.map((event) => event.actor.id)).toEqual([
      memberUser?.userId,
      memberUser?.userId,
      memberUser?.userId,
      managerUser?.userId,
      memberUser?.userId,
    ]);
    expect(history.body[3]?.data).toMatchObject({ status: 'rejected', rejectionReason: 'Wrong project' });

    expect((await colleague.api.get<Problem>(`${entries}/${id}/history`)).status).toBe(404);
    // Managers read the entry, not its history (CONTRACT.md section 3): to them there is none.
    expect((await manager.api.get<Problem>(`${entries}/${id}/history`)).status).toBe(404);
    const paged = await admin.api.get<ChangeEvent[]>(`${entries}/${id}/history`, { query: { limit: 2, offset: 2 } });
    expect(paged.body.map((event) => event.type)).toEqual(['entry.submitted', 'entry.rejected']);

    expect((await member.api.delete(`${entries}/${id}`)).status).toBe(204);
    expect((await member.api.get<Problem>(`${entries}/${id}/history`)).status).toBe(404);
    const afterwards = await tenant.api.get<ChangeEvent[]>(`${entries}/${id}/history`);
    expect(afterwards.body.map((event) => event.type).at(-1)).toBe('entry.deleted');
    expect((await tenant.api.get<Problem>(`${entries}/01900000-0000-7000-8000-000000000000/history`)).status).toBe(404);

    const graphql = await member.api.graphql<{ entryHistory: { type: string }[] }>(
      'query($tenantId: ID!, $id: ID!) { entryHistory(tenantId: $tenantId, id: $id) { type } }',
      { tenantId: tenant.id, id },
    );
    expect(graphql.body.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
  });
});

describe('events of records with date columns', () => {
  it('carry the days as days (2027-03-25), never as midnight instants: received invoices and tasks', async () => {
    const tenant = await seeder(server).tenant();
    const invoice = await tenant.api.post<Json>(`/tenants/${tenant.id}/invoices`, { number: 'D-1', issueDate: '2027-03-25', dueDate: '2027-04-08' });
    expect(invoice.status, invoice.text).toBe(201);
    expect((await tenant.api.patch(`/tenants/${tenant.id}/invoices/${invoice.body.id}`, { dueDate: '2027-04-15' })).status).toBe(200);
    const list = await tenant.api.post<Json>(`/tenants/${tenant.id}/task-lists`, { name: 'Days' });
    const task = await tenant.api.post<Json>(`/tenants/${tenant.id}/task-lists/${list.body.id}/tasks`, { title: 'Due', dueDate: '2027-03-31' });
    expect(task.status, task.text).toBe(201);

    // The feed shows an event once every older transaction in the cluster has ended: wait for the last one.
    const data = await eventually(async () => {
      const read = Object.fromEntries((await readFeed(tenant.api, tenant.id, undefined, 50)).map((event) => [event.type, event.data as Record<string, Json>]));
      expect(Object.keys(read)).toEqual(expect.arrayContaining(['invoice.created', 'invoice.updated', 'task.created']));
      return read;
    });
    expect(data['invoice.created']).toMatchObject({ issueDate: '2027-03-25', dueDate: '2027-04-08' });
    expect(data['invoice.updated']).toMatchObject({ issueDate: '2027-03-25', dueDate: '2027-04-15' });
    expect(data['task.created']).toMatchObject({ dueDate: '2027-03-31' });
    // Instants stay instants.
    expect(data['task.created']?.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T/);
  });
});

describe('retention', () => {
  it('prunes processed events older than EVENT_RETENTION_DAYS, and keeps newer or unprocessed ones', async () => {
    const tenant = await seeder(server).tenant();
    const notes = await Promise.all(['old', 'old, unprocessed', 'new'].map((content) => tenant.api.post<Json>(`/tenants/${tenant.id}/notes`, { content })));
    const [old, unprocessed, fresh] = notes.map((note) => String(note.body.id));
    const day = 24 * 3600 * 1000;
    await pool.query(`UPDATE events SET "createdAt" = now() - interval '401 days', "processedAt" = now() WHERE "subjectId" = $1`, [old]);
    await pool.query(`UPDATE events SET "createdAt" = now() - interval '401 days', "processedAt" = NULL WHERE "subjectId" = $1`, [unprocessed]);
    await pool.query(`UPDATE events SET "createdAt" = now() - interval '399 days', "processedAt" = now() WHERE "subjectId" = $1`, [fresh]);

    const sql = { query: async (text: string, values?: readonly unknown[]) => (await pool.query(text, values as unknown[])).rows } as Sql;
    const work = createEventWork({ sql, config: { ...server.app.config, eventRetentionDays: 400 } });
    expect(await work.prune(createLogger('silent'), new Date(Date.now() + day / 24))).toBeGreaterThanOrEqual(1);

    const left = await pool.query<{ subjectId: string }>('SELECT "subjectId" FROM events WHERE "tenantId" = $1 ORDER BY "createdAt"', [tenant.id]);
    const subjects = left.rows.map((row) => row.subjectId);
    expect(subjects).not.toContain(old);
    expect(subjects).toEqual(expect.arrayContaining([unprocessed, fresh]));
  });

  it('keeps the events of billing records as long as the invoices: until 8 years after the end of their year', async () => {
    const tenant = await seeder(server).tenant();
    const t = tenant.id;
    const note = await tenant.api.post<Json>(`/tenants/${t}/notes`, { content: 'old' });
    const clients = await Promise.all(['Kept AG', 'Past AG', 'Recent AG'].map((name) => tenant.api.post<Json>(`/tenants/${t}/clients`, { name })));
    expect((await tenant.api.patch(`/tenants/${t}/billing-profile`, { paymentTermsDays: 21 })).status).toBe(200);
    const [kept, past, recent] = clients.map((client) => String(client.body.id));
    const now = new Date(Date.now() + 3600 * 1000);
    const year = now.getUTCFullYear();
    const day = 24 * 3600 * 1000;
    const age = async (subjectId: string, createdAt: Date) =>
      pool.query(`UPDATE events SET "createdAt" = $2, "processedAt" = now() WHERE "subjectId" = $1`, [subjectId, createdAt]);
    await age(String(note.body.id), new Date(now.getTime() - 401 * day));
    // Of the year that ended 8 years before this one's end: kept until the new year.
    await age(kept as string, new Date(Date.UTC(year - 8, 0, 1)));
    // Of the year before it: its retention is over.
    await age(past as string, new Date(Date.UTC(year - 9, 11, 31, 23)));
    await age(recent as string, new Date(now.getTime() - 401 * day));
    await age(t, new Date(now.getTime() - 401 * day));

    const sql = { query: async (text: string, values?: readonly unknown[]) => (await pool.query(text, values as unknown[])).rows } as Sql;
    await createEventWork({ sql, config: { ...server.app.config, eventRetentionDays: 400 } }).prune(createLogger('silent'), now);

    const left = await pool.query<{ type: string; subjectId: string }>('SELECT type, "subjectId" FROM events WHERE "tenantId" = $1', [t]);
    const subjects = left.rows.map((row) => row.subjectId);
    expect(subjects).not.toContain(note.body.id);
    expect(subjects).not.toContain(past);
    expect(subjects).toEqual(expect.arrayContaining([kept, recent, t]));
  });
});
