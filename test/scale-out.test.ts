/**
 * Tally scaled out: API and worker processes started as `tally serve --role`
 * on one database. Events written through one API process reach live
 * subscribers on another, webhooks are delivered exactly once however many
 * workers run, and a worker killed in the middle of a delivery loses
 * nothing: after its job expires, another worker sends it again with the
 * same `webhook-id`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from './helpers/eventually.js';
import { connectWs, wsSubscribe, type WsConnection } from './helpers/graphql-ws.js';
import { apiClient } from './helpers/http.js';
import { startIdentityProvider, type IdentityProvider } from './helpers/oidc.js';
import { startTallyProcess, type TallyProcess } from './helpers/processes.js';
import { startReceiver, type Receiver } from './helpers/receiver.js';
import { seeder } from './helpers/seed.js';
import { startTestServer, type TestServer } from './helpers/server.js';

let provider: IdentityProvider;
/** In process, API only: seeds tenants and signs people in. */
let seeding: TestServer;
const processes: TallyProcess[] = [];
const receivers: Receiver[] = [];
const sockets: WsConnection[] = [];

beforeAll(async () => {
  provider = await startIdentityProvider();
  seeding = await startTestServer({ env: { ...provider.env, ROLE: 'api', WEBHOOK_ALLOW_PRIVATE_URLS: 'true' } });
});
afterAll(async () => {
  await Promise.all(sockets.map((socket) => socket.client.dispose()));
  await Promise.all(processes.map((process) => process.stop()));
  await Promise.all(receivers.map((receiver) => receiver.close()));
  await seeding?.stop();
  await provider?.close();
});

async function started(role: 'api' | 'worker', env: Record<string, string> = {}): Promise<TallyProcess> {
  const process = await startTallyProcess(role, seeding.databaseUrl, {
    WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
    TRUSTED_ORIGINS: seeding.url,
    ...provider.env,
    ...env,
  });
  processes.push(process);
  return process;
}

async function receiver(): Promise<Receiver> {
  const started = await startReceiver();
  receivers.push(started);
  return started;
}

describe('two API processes and two workers on one database', () => {
  it('push events from one API process to subscribers on the other, and deliver each webhook exactly once', async () => {
    const [first, second] = await Promise.all([started('api'), started('api'), started('worker'), started('worker')]);
    try {
      await runsAsOne(first!, second!);
    } finally {
      // The next test needs the database to itself.
      await Promise.all(processes.splice(0).map((process) => process.stop()));
    }
  }, 120_000);
});

async function runsAsOne(first: TallyProcess, second: TallyProcess): Promise<void> {
  {
    const step = seeder(seeding, provider).tenant();
    const tenant = await step;
    await tenant.api.patch(`/tenants/${tenant.id}`, { settings: { approvalRequired: true } });
    const member = await step.member('member');
    const manager = await step.member('manager');
    const target = await receiver();
    const viaFirst = apiClient(first.url, { apiKey: tenant.key });
    const hook = await viaFirst.post<{ id: string; secret: string }>(`/tenants/${tenant.id}/webhooks`, { url: target.url, events: ['note.created'] });
    expect(hook.status, hook.text).toBe(201);

    const events = connectWs(second.url, { authorization: `Bearer ${tenant.key}` });
    // The member's browser, on the second process (the session was made on another one: sessions live in the database).
    const memberSocket = connectWs(second.url, { headers: { cookie: member.cookie, origin: seeding.url } });
    sockets.push(events, memberSocket);
    const stream = wsSubscribe<{ tenantEvents: { id: string; data: { id: string } } }>(
      events.client,
      'subscription ($t: ID!) { tenantEvents(tenantId: $t, types: ["note.created"]) { id data } }',
      { t: tenant.id },
    );
    const notifications = wsSubscribe<{ notificationAdded: { type: string; tenantUserId: string } }>(
      memberSocket.client,
      'subscription ($t: ID!) { notificationAdded(tenantId: $t) { type tenantUserId } }',
      { t: tenant.id },
    );
    // A subscription pushes what happens once its process listens for the tenant's events. How long that takes
    // is no fixed wait on a loaded machine (a fixed 500 ms lost the first notes in CI): notes are written until
    // one is pushed, and then the notes the test counts.
    const probes = new Set<string>();
    await eventually(async () => {
      const probe = await viaFirst.post<{ id: string }>(`/tenants/${tenant.id}/notes`, { content: 'probe' });
      probes.add(probe.body.id);
      await stream.next(1_000);
    }, 30_000);

    const notes = 20;
    const written: string[] = [];
    for (let index = 0; index < notes; index += 1) {
      const note = await viaFirst.post<{ id: string }>(`/tenants/${tenant.id}/notes`, { content: `note ${index}` });
      written.push(note.body.id);
    }
    // Every note pushed once, in any order; the probes' late pushes are not counted.
    const pushed: string[] = [];
    while (pushed.length < notes) {
      const id = (await stream.next(5_000)).data!.tenantEvents.data.id;
      if (!probes.has(id)) pushed.push(id);
    }
    expect(pushed.sort()).toEqual([...written].sort());

    // The webhook gets every note, the probes too, each once.
    const sent = [...probes, ...written].sort();
    const requests = await target.waitFor(sent.length, 20_000);
    const deliveredNotes = requests.map((request) => target.verify(request, hook.body.secret).data.id as string);
    expect(deliveredNotes.sort()).toEqual(sent);
    const webhookIds = new Set(requests.map((request) => request.headers['webhook-id']));
    expect(webhookIds.size).toBe(sent.length);
    // Workers share the work, never doing it twice.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(target.requests).toHaveLength(sent.length);

    // A notification a worker process makes reaches the member's socket on the second API process.
    const viaSecondManager = apiClient(second.url, { cookie: manager.cookie, origin: second.url });
    const entry = await apiClient(first.url, { cookie: member.cookie, origin: first.url }).post<{ id: string }>(`/tenants/${tenant.id}/entries`, {
      startedAt: '2026-11-17T08:00:00Z',
      endedAt: '2026-11-17T09:00:00Z',
    });
    await apiClient(first.url, { cookie: member.cookie, origin: first.url }).post(`/tenants/${tenant.id}/entries/${entry.body.id}/submit`);
    const rejected = await viaSecondManager.post(`/tenants/${tenant.id}/entries/${entry.body.id}/reject`, { reason: 'Which project?' });
    expect(rejected.status, rejected.text).toBe(200);
    expect((await notifications.next(3_000)).data?.notificationAdded).toEqual({ type: 'entry.rejected', tenantUserId: member.id });
  }
}

describe('a worker killed during a delivery', () => {
  it('loses nothing: after the job expires, another worker sends it again with the same webhook-id', async () => {
    const doomed = await started('worker');
    const tenant = await seeder(seeding).tenant();
    const target = await receiver();
    // The first request is never answered; the worker sending it dies meanwhile.
    target.script({ delayMs: Infinity });
    target.onRequest(() => {
      if (target.requests.length === 1) void doomed.kill();
    });
    const hook = await tenant.api.post<{ id: string; secret: string }>(`/tenants/${tenant.id}/webhooks`, { url: target.url, events: ['note.created'] });
    expect(hook.status, hook.text).toBe(201);
    await tenant.api.post(`/tenants/${tenant.id}/notes`, { content: 'in flight when the worker died' });
    const [first] = await target.waitFor(1, 30_000);
    await doomed.command.exited;
    expect(doomed.command.child.signalCode).toBe('SIGKILL');

    // Another worker, which checks for expired jobs every second.
    const rescuer = await startTestServer({
      databaseUrl: seeding.databaseUrl,
      env: { ROLE: 'worker', WEBHOOK_ALLOW_PRIVATE_URLS: 'true' },
      tuning: { superviseIntervalSeconds: 1 },
    });
    try {
      const [, second] = await target.waitFor(2, 45_000);
      expect(second!.headers['webhook-id']).toBe(first!.headers['webhook-id']);
      expect(target.verify(second!, hook.body.secret).type).toBe('note.created');
      // The delivery's job expired after 15 s (and was retried after a few more).
      expect(second!.receivedAt - first!.receivedAt).toBeGreaterThanOrEqual(15_000);
      const deadline = Date.now() + 10_000;
      let delivery = await seeding.app.db.webhookDelivery.findFirstOrThrow({ where: { subscriptionId: hook.body.id } });
      while (delivery.status !== 'succeeded' && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        delivery = await seeding.app.db.webhookDelivery.findFirstOrThrow({ where: { subscriptionId: hook.body.id } });
      }
      expect(delivery).toMatchObject({ status: 'succeeded', responseStatus: 200 });
      expect(target.requests).toHaveLength(2);
    } finally {
      await rescuer.stop();
    }
  }, 120_000);
});
