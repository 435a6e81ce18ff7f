/**
 * Notifications made from events by the workers, over REST and GraphQL, and
 * pushed live over graphql-ws to real members signed in through the identity
 * provider; the admins' live event stream; and sockets that close when their
 * credential ends.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MarkedRead, Notification } from './generated/openapi/types.gen.js';
import { connectWs, untilListening, wsSubscribe, type WsConnection } from './helpers/graphql-ws.js';
import type { Json } from './helpers/http.js';
import { startIdentityProvider, type IdentityProvider } from './helpers/oidc.js';
import { eventually } from './helpers/eventually.js';
import { seedTeam, seeder, type SeededMember, type Team } from './helpers/seed.js';
import { startTestServer, type TestServer } from './helpers/server.js';

let provider: IdentityProvider;
let server: TestServer;
const sockets: WsConnection[] = [];

beforeAll(async () => {
  provider = await startIdentityProvider();
  server = await startTestServer({ env: provider.env, tuning: { credentialRecheckMs: 500 } });
});
afterAll(async () => {
  await Promise.all(sockets.map((socket) => socket.client.dispose()));
  await server?.stop();
  await provider?.close();
});

const team = (settings?: Json): Promise<Team> => seedTeam(server, provider, settings);

function socketOf(person: SeededMember): WsConnection {
  const socket = connectWs(server.url, { headers: { cookie: person.cookie, origin: server.url } });
  sockets.push(socket);
  return socket;
}

const notificationAdded = 'subscription ($t: ID!) { notificationAdded(tenantId: $t) { id type title body tenantUserId data readAt } }';

interface Pushed {
  notificationAdded: { id: string; type: string; title: string; body: string | null; tenantUserId: string; data: Record<string, unknown> };
}

async function submittedEntry(team: Team, description = 'Wrote the quarterly report'): Promise<string> {
  const created = await team.member.api.post<{ id: string }>(`/tenants/${team.tenant.id}/entries`, {
    startedAt: '2026-11-16T09:00:00Z',
    endedAt: '2026-11-16T11:30:00Z',
    description,
  });
  expect(created.status, created.text).toBe(201);
  const submitted = await team.member.api.post(`/tenants/${team.tenant.id}/entries/${created.body.id}/submit`);
  expect(submitted.status, submitted.text).toBe(200);
  return created.body.id;
}

async function notificationsOf(person: { api: SeededMember['api'] }, tenantId: string, query: Record<string, string | number | boolean> = {}) {
  const listed = await person.api.get<Notification[]>(`/tenants/${tenantId}/notifications`, { query });
  expect(listed.status, listed.text).toBe(200);
  return listed.body;
}

describe('live notifications', () => {
  it('reach the member whose entry was rejected within a second, and never the manager who rejected it', async () => {
    const crew = await team();
    const listening = server.live.counts().notifications;
    const memberFeed = wsSubscribe<Pushed>(socketOf(crew.member).client, notificationAdded, { t: crew.tenant.id });
    const managerFeed = wsSubscribe<Pushed>(socketOf(crew.manager).client, notificationAdded, { t: crew.tenant.id });
    const colleagueFeed = wsSubscribe<Pushed>(socketOf(crew.colleague).client, notificationAdded, { t: crew.tenant.id });
    await untilListening(server.live, 'notifications', listening + 3);

    const entryId = await submittedEntry(crew);
    const toReview = await managerFeed.next(5_000);
    expect(toReview.data?.notificationAdded).toMatchObject({
      type: 'entry.submitted',
      tenantUserId: crew.manager.id,
      data: { entryId },
    });
    expect(toReview.data?.notificationAdded.title).toContain('submitted time for approval');
    expect(toReview.data?.notificationAdded.body).toBe('2026-11-16 · 2 h 30 min · Wrote the quarterly report');

    const rejectedAt = Date.now();
    const rejected = await crew.manager.api.post(`/tenants/${crew.tenant.id}/entries/${entryId}/reject`, { reason: 'Please split by project' });
    expect(rejected.status, rejected.text).toBe(200);
    const pushed = await memberFeed.next(1_000);
    const latencyMs = Date.now() - rejectedAt;
    expect(latencyMs).toBeLessThan(1_000);
    expect(pushed.errors).toBeUndefined();
    expect(pushed.data?.notificationAdded).toMatchObject({
      type: 'entry.rejected',
      title: 'Your time entry was rejected',
      tenantUserId: crew.member.id,
      data: { entryId, reason: 'Please split by project' },
    });

    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(managerFeed.pending()).toEqual([]);
    expect(colleagueFeed.pending()).toEqual([]);
    expect(memberFeed.pending()).toEqual([]);
  });

  it('are refused to an API key (notifications belong to members) and to a tenant the caller is not in', async () => {
    const crew = await team();
    const other = await seeder(server).tenant();
    const keySocket = connectWs(server.url, { authorization: `Bearer ${crew.tenant.key}` });
    sockets.push(keySocket);
    const byKey = wsSubscribe<Pushed>(keySocket.client, notificationAdded, { t: crew.tenant.id });
    expect(await byKey.next()).toMatchObject({ errors: [{ extensions: { code: 'FORBIDDEN' } }] });
    const elsewhere = wsSubscribe<Pushed>(socketOf(crew.member).client, notificationAdded, { t: other.id });
    expect(await elsewhere.next()).toMatchObject({ errors: [{ extensions: { code: 'NOT_FOUND' } }] });
  });
});

describe('notifications over REST and GraphQL', () => {
  it("are the recipient's own: listed newest first, marked read one by one or all at once, deleted", async () => {
    const crew = await team();
    const first = await submittedEntry(crew, 'first');
    const second = await submittedEntry(crew, 'second');
    await crew.manager.api.post(`/tenants/${crew.tenant.id}/entries/${first}/approve`);
    await crew.manager.api.post(`/tenants/${crew.tenant.id}/entries/${second}/reject`, { reason: 'wrong day' });

    const listed = await eventually(async () => {
      const mine = await notificationsOf(crew.member, crew.tenant.id);
      expect(mine).toHaveLength(2);
      return mine;
    });
    expect(listed.map((notification) => notification.type)).toEqual(['entry.rejected', 'entry.approved']);
    expect(listed.every((notification) => notification.readAt === null && notification.tenantUserId === crew.member.id)).toBe(true);

    // Someone else's notification does not exist for them.
    const [rejection, approval] = listed as [Notification, Notification];
    expect((await crew.colleague.api.post(`/tenants/${crew.tenant.id}/notifications/${rejection.id}/read`)).status).toBe(404);
    expect((await crew.admin.api.delete(`/tenants/${crew.tenant.id}/notifications/${rejection.id}`)).status).toBe(404);
    expect(await notificationsOf(crew.tenant, crew.tenant.id)).toEqual([]);

    const read = await crew.member.api.post<Notification>(`/tenants/${crew.tenant.id}/notifications/${approval.id}/read`);
    expect(read.status).toBe(200);
    expect(read.body.readAt).not.toBeNull();
    const again = await crew.member.api.post<Notification>(`/tenants/${crew.tenant.id}/notifications/${approval.id}/read`);
    expect(again.body.readAt).toBe(read.body.readAt);
    expect((await notificationsOf(crew.member, crew.tenant.id, { unreadOnly: true })).map((notification) => notification.id)).toEqual([rejection.id]);

    const all = await crew.member.api.post<MarkedRead>(`/tenants/${crew.tenant.id}/notifications/read-all`);
    expect(all.body).toEqual({ count: 1 });
    expect(await notificationsOf(crew.member, crew.tenant.id, { unreadOnly: true })).toEqual([]);

    expect((await crew.member.api.delete(`/tenants/${crew.tenant.id}/notifications/${rejection.id}`)).status).toBe(204);
    expect((await notificationsOf(crew.member, crew.tenant.id)).map((notification) => notification.id)).toEqual([approval.id]);
  });

  it('go to approvers for a submission (not its owner), and to an assignee for a task', async () => {
    const crew = await team();
    const entryId = await submittedEntry(crew);
    const list = await crew.manager.api.post<{ id: string }>(`/tenants/${crew.tenant.id}/task-lists`, { name: 'Launch' });
    const task = await crew.manager.api.post<{ id: string }>(`/tenants/${crew.tenant.id}/task-lists/${list.body.id}/tasks`, {
      title: 'Write the announcement',
      assigneeId: crew.colleague.id,
    });
    expect(task.status, task.text).toBe(201);

    for (const reviewer of [crew.manager, crew.admin]) {
      const received = await eventually(async () => {
        const mine = await notificationsOf(reviewer, crew.tenant.id);
        expect(mine).toHaveLength(1);
        return mine;
      });
      expect(received[0]).toMatchObject({ type: 'entry.submitted', data: { entryId } });
    }
    const assigned = await eventually(async () => {
      const mine = await notificationsOf(crew.colleague, crew.tenant.id);
      expect(mine).toHaveLength(1);
      return mine[0]!;
    });
    expect(assigned).toMatchObject({
      type: 'task.assigned',
      title: 'A task was assigned to you',
      body: 'Write the announcement',
      data: { taskId: task.body.id },
    });
    expect(await notificationsOf(crew.member, crew.tenant.id)).toEqual([]);

    const graphql = await crew.colleague.api.graphql<{ notifications: { id: string; type: string }[]; markAllNotificationsRead: { count: number } }>(
      'query ($t: ID!) { notifications(tenantId: $t, unreadOnly: true) { id type } }',
      { t: crew.tenant.id },
    );
    expect(graphql.body.data?.notifications).toEqual([{ id: assigned.id, type: 'task.assigned' }]);
    const marked = await crew.colleague.api.graphql<{ markNotificationRead: { readAt: string | null } }>(
      'mutation ($t: ID!, $id: ID!) { markNotificationRead(tenantId: $t, id: $id) { readAt } }',
      { t: crew.tenant.id, id: assigned.id },
    );
    expect(marked.body.data?.markNotificationRead.readAt).not.toBeNull();
    const deleted = await crew.colleague.api.graphql<{ deleteNotification: { id: string } }>(
      'mutation ($t: ID!, $id: ID!) { deleteNotification(tenantId: $t, id: $id) { id } }',
      { t: crew.tenant.id, id: assigned.id },
    );
    expect(deleted.body.data?.deleteNotification.id).toBe(assigned.id);
  });

  it('go to approvers for an expense submitted (not its owner), and to its owner once it is rejected', async () => {
    const crew = await team();
    const t = crew.tenant.id;
    const created = await crew.member.api.post<{ id: string }>(`/tenants/${t}/expenses`, {
      date: '2026-11-16',
      category: 'travel',
      description: 'Train to the client',
      amount: '119',
      taxRate: '19',
    });
    expect(created.status, created.text).toBe(201);
    expect((await crew.member.api.post(`/tenants/${t}/expenses/${created.body.id}/submit`)).status).toBe(200);
    const toReview = await eventually(async () => {
      const mine = await notificationsOf(crew.manager, t);
      expect(mine).toHaveLength(1);
      return mine[0]!;
    });
    expect(toReview).toMatchObject({
      type: 'expense.submitted',
      title: expect.stringContaining('submitted an expense for approval'),
      body: '2026-11-16 · travel · 119.00 EUR · Train to the client',
      data: { expenseId: created.body.id },
    });
    expect(await notificationsOf(crew.member, t)).toEqual([]);
    const rejected = await crew.manager.api.post(`/tenants/${t}/expenses/${created.body.id}/reject`, { reason: 'No receipt' });
    expect(rejected.status, rejected.text).toBe(200);
    const told = await eventually(async () => {
      const mine = await notificationsOf(crew.member, t);
      expect(mine).toHaveLength(1);
      return mine[0]!;
    });
    expect(told).toMatchObject({ type: 'expense.rejected', title: 'Your expense was rejected', data: { expenseId: created.body.id, reason: 'No receipt' } });
  });

  it('tell no reviewer when the tenant needs no approval (submitting approves at once), nor the owner of what they did themselves', async () => {
    const crew = await team({ approvalRequired: false });
    await submittedEntry(crew);
    // The dispatcher has run once everything is processed; then nothing was made for anyone.
    await eventually(async () => {
      expect(await server.app.db.event.count({ where: { tenantId: crew.tenant.id, processedAt: null } })).toBe(0);
    });
    for (const person of [crew.member, crew.manager, crew.admin]) expect(await notificationsOf(person, crew.tenant.id)).toEqual([]);
  });
});

describe('the live event stream', () => {
  it('pushes the envelopes webhooks carry to admins, filtered by type, and refuses members', async () => {
    const crew = await team();
    const keySocket = connectWs(server.url, { authorization: `Bearer ${crew.tenant.key}` });
    sockets.push(keySocket);
    const listening = server.live.counts().events;
    const stream = wsSubscribe<{ tenantEvents: { id: string; type: string; tenantId: string; actor: { type: string; id: string }; data: Json } }>(
      keySocket.client,
      'subscription ($t: ID!) { tenantEvents(tenantId: $t, types: ["note.created"]) { id type tenantId timestamp actor { type id } data } }',
      { t: crew.tenant.id },
    );
    await untilListening(server.live, 'events', listening + 1);
    const note = await crew.member.api.post<{ id: string }>(`/tenants/${crew.tenant.id}/notes`, { content: 'streamed' });
    await crew.member.api.patch(`/tenants/${crew.tenant.id}/notes/${note.body.id}`, { content: 'not streamed: an update' });
    const pushed = await stream.next();
    expect(pushed.data?.tenantEvents).toMatchObject({
      type: 'note.created',
      tenantId: crew.tenant.id,
      actor: { type: 'user' },
      data: { id: note.body.id, content: 'streamed' },
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(stream.pending()).toEqual([]);

    const refused = wsSubscribe(socketOf(crew.member).client, 'subscription ($t: ID!) { tenantEvents(tenantId: $t) { id } }', { t: crew.tenant.id });
    expect(await refused.next()).toMatchObject({ errors: [{ extensions: { code: 'FORBIDDEN' } }] });
  });
});

describe('a socket whose credential ends', () => {
  it('is closed at once when its API key is revoked', async () => {
    const tenant = await seeder(server).tenant();
    const second = await tenant.api.post<{ id: string; key: string }>(`/tenants/${tenant.id}/api-keys`, { name: 'short-lived' });
    const socket = connectWs(server.url, { authorization: `Bearer ${second.body.key}` });
    sockets.push(socket);
    const listening = server.live.counts().events;
    const stream = wsSubscribe(socket.client, 'subscription ($t: ID!) { tenantEvents(tenantId: $t, types: ["api_key.revoked"]) { id } }', { t: tenant.id });
    await untilListening(server.live, 'events', listening + 1);
    const revokedAt = Date.now();
    expect((await tenant.api.delete(`/tenants/${tenant.id}/api-keys/${second.body.id}`)).status).toBe(204);
    expect(await socket.closed).toBe(4401);
    expect(Date.now() - revokedAt).toBeLessThan(2_000);
    // At most what was committed before the key ended: the revocation itself, if it won the race to the socket.
    expect(stream.pending().length).toBeLessThanOrEqual(1);
  });

  it('is closed within the recheck interval when its session signs out', async () => {
    const crew = await team();
    const socket = socketOf(crew.member);
    const listening = server.live.counts().notifications;
    wsSubscribe(socket.client, notificationAdded, { t: crew.tenant.id });
    await untilListening(server.live, 'notifications', listening + 1);
    const signedOut = await crew.member.api.post('/api/auth/signout', undefined, { headers: { origin: server.url } });
    expect(signedOut.status, signedOut.text).toBeLessThan(400);
    expect(await socket.closed).toBe(4401);
  });
});
