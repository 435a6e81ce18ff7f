/**
 * Webhooks end to end: subscriptions over REST and GraphQL, deliveries by the
 * real workers to real HTTP receivers on loopback, verified with the
 * `standardwebhooks` package; retries, 410, slow receivers, redirects, the
 * delivery log, test, rotation, redelivery, limits, and the address checks
 * that keep deliveries off private networks.
 */
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSecretBox } from '../src/lib/crypto.js';
import { createLogger } from '../src/lib/logger.js';
import type { Notification, Problem, Webhook, WebhookDelivery, WebhookWithSecret } from './generated/openapi/types.gen.js';
import { testClock } from './helpers/clock.js';
import { eventually } from './helpers/eventually.js';
import { startIdentityProvider, type IdentityProvider } from './helpers/oidc.js';
import { startReceiver, type Receiver } from './helpers/receiver.js';
import { seeder, type SeededTenant } from './helpers/seed.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import type { OutboxEvent } from '../src/events/dispatcher.js';

let provider: IdentityProvider;
let server: TestServer;
/** A server on which private addresses are refused, as in production. */
let strict: TestServer;
const receivers: Receiver[] = [];
let logged = '';

const encryptionKey = 'test-encryption-key-0123456789abcdefghijkl';

beforeAll(async () => {
  provider = await startIdentityProvider();
  const logSink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logged += chunk.toString();
      done();
    },
  });
  [server, strict] = await Promise.all([
    startTestServer({
      env: { ...provider.env, WEBHOOK_ALLOW_PRIVATE_URLS: 'true' },
      log: createLogger('debug', {}, logSink),
      tuning: { superviseIntervalSeconds: 1 },
    }),
    startTestServer(),
  ]);
});
afterAll(async () => {
  await Promise.all(receivers.map((receiver) => receiver.close()));
  await Promise.all([server?.stop(), strict?.stop()]);
  await provider?.close();
});

async function receiver(...script: Parameters<Receiver['script']>): Promise<Receiver> {
  const started = await startReceiver();
  started.script(...script);
  receivers.push(started);
  return started;
}

async function subscribe(tenant: SeededTenant, url: string, events: string[] = ['note.created']): Promise<WebhookWithSecret> {
  const created = await tenant.api.post<WebhookWithSecret>(`/tenants/${tenant.id}/webhooks`, { url, events, description: 'test receiver' });
  expect(created.status, created.text).toBe(201);
  return created.body;
}

async function deliveries(tenant: SeededTenant, webhookId: string): Promise<WebhookDelivery[]> {
  const listed = await tenant.api.get<WebhookDelivery[]>(`/tenants/${tenant.id}/webhooks/${webhookId}/deliveries`);
  expect(listed.status, listed.text).toBe(200);
  return listed.body;
}

describe('a webhook subscription', () => {
  it('gets one signed POST per event: the signature verifies with its secret, and the delivery shows in the log', async () => {
    const tenant = await seeder(server).tenant();
    const target = await receiver();
    const webhook = await subscribe(tenant, `${target.url}/hooks`);
    expect(webhook.secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);

    const note = await tenant.api.post<{ id: string }>(`/tenants/${tenant.id}/notes`, { content: 'hello receivers' });
    const [request] = await target.waitFor(1);
    const envelope = target.verify(request!, webhook.secret);
    expect(envelope).toMatchObject({
      type: 'note.created',
      tenantId: tenant.id,
      actor: { type: 'api_key', id: tenant.apiKeyId },
      data: { id: note.body.id, content: 'hello receivers' },
    });
    expect(request!.path).toBe('/hooks');
    expect(request!.headers['webhook-id']).toBe(envelope.id);
    expect(() => target.verify(request!, 'whsec_d3Jvbmcgc2VjcmV0IHdyb25nIHNlY3JldCE=')).toThrow();

    const [delivery] = await eventually(async () => {
      const listed = await deliveries(tenant, webhook.id);
      expect(listed[0]?.status).toBe('succeeded');
      return listed;
    });
    expect(delivery).toMatchObject({ eventId: envelope.id, eventType: 'note.created', attempts: 1, responseStatus: 200, webhookId: webhook.id });
    expect(delivery!.attemptLog).toHaveLength(1);
    expect(delivery!.attemptLog[0]).toMatchObject({ attempt: 1, responseStatus: 200, error: null });

    // One event, one delivery: nothing more arrives.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(target.requests).toHaveLength(1);
  });

  it('is stored with its secret encrypted, which no response and no log line shows after creation', async () => {
    const tenant = await seeder(server).tenant();
    const target = await receiver();
    const webhook = await subscribe(tenant, target.url, ['*']);
    const row = await server.app.db.webhookSubscription.findUniqueOrThrow({ where: { id: webhook.id } });
    expect(row.secretEncrypted).not.toContain(webhook.secret.slice(6));
    expect(createSecretBox(encryptionKey).open(row.secretEncrypted)).toBe(webhook.secret);

    const read = await tenant.api.get<Webhook>(`/tenants/${tenant.id}/webhooks/${webhook.id}`);
    const listed = await tenant.api.get<Webhook[]>(`/tenants/${tenant.id}/webhooks`);
    const graphql = await tenant.api.graphql('query ($t: ID!) { webhooks(tenantId: $t) { id url events enabled } }', { t: tenant.id });
    for (const text of [read.text, listed.text, graphql.text]) expect(text).not.toContain(webhook.secret);
    expect(read.body).toMatchObject({ id: webhook.id, url: target.url, events: ['*'], enabled: true, failureCount: 0 });
    expect(read.body).not.toHaveProperty('secret');

    await tenant.api.post(`/tenants/${tenant.id}/notes`, { content: 'logged?' });
    await target.waitFor(1);
    expect(logged).not.toContain(webhook.secret);
    expect(logged).not.toContain(webhook.secret.slice(6));
  });

  it('retries a receiver that answered 500 with the same webhook-id, and logs both attempts', async () => {
    const tenant = await seeder(server).tenant();
    const target = await receiver({ status: 500, body: 'try again later' }, { status: 200 });
    const webhook = await subscribe(tenant, target.url);
    await tenant.api.post(`/tenants/${tenant.id}/notes`, { content: 'worth retrying' });

    const [first, second] = await target.waitFor(2, 20_000);
    expect(second!.headers['webhook-id']).toBe(first!.headers['webhook-id']);
    // The contract's first retry comes after 5 s.
    expect(second!.receivedAt - first!.receivedAt).toBeGreaterThanOrEqual(4_500);
    expect(target.verify(second!, webhook.secret).type).toBe('note.created');

    const [delivery] = await eventually(async () => {
      const listed = await deliveries(tenant, webhook.id);
      expect(listed[0]?.status).toBe('succeeded');
      return listed;
    });
    expect(delivery!.attempts).toBe(2);
    expect(delivery!.attemptLog.map((attempt) => [attempt.attempt, attempt.responseStatus, attempt.error])).toEqual([
      [1, 500, 'answered 500'],
      [2, 200, null],
    ]);
    expect(delivery!.attemptLog[0]!.responseBody).toBe('try again later');
    const subscription = await tenant.api.get<Webhook>(`/tenants/${tenant.id}/webhooks/${webhook.id}`);
    expect(subscription.body.failureCount).toBe(0);
  }, 30_000);

  it('is disabled by a 410, and the tenant admins are told', async () => {
    const step = seeder(server, provider).tenant();
    const tenant = await step;
    // One at a time: the identity provider signs in one person at a time.
    const owner = await step.member('owner');
    const manager = await step.member('manager');
    const target = await receiver({ status: 410 });
    const webhook = await subscribe(tenant, target.url);
    await tenant.api.post(`/tenants/${tenant.id}/notes`, { content: 'gone' });
    await target.waitFor(1);

    const disabled = await eventually(async () => {
      const read = await tenant.api.get<Webhook>(`/tenants/${tenant.id}/webhooks/${webhook.id}`);
      expect(read.body.enabled).toBe(false);
      return read.body;
    });
    expect(disabled.disabledReason).toBe('The receiver answered 410 Gone');
    expect(disabled.disabledAt).not.toBeNull();
    const [delivery] = await deliveries(tenant, webhook.id);
    expect(delivery).toMatchObject({ status: 'failed', attempts: 1, responseStatus: 410 });

    const told = await eventually(async () => {
      const listed = await owner.api.get<Notification[]>(`/tenants/${tenant.id}/notifications`);
      expect(listed.body).toHaveLength(1);
      return listed.body[0]!;
    });
    expect(told).toMatchObject({ type: 'webhook.disabled', title: 'A webhook was disabled', data: { webhookId: webhook.id } });
    expect(told.body).toContain(target.url);
    expect((await manager.api.get<Notification[]>(`/tenants/${tenant.id}/notifications`)).body).toEqual([]);

    // Nothing more is sent to it; enabling it again starts afresh. (Enabled only once the dispatcher has passed the
    // note's event: enabled before that, the webhook would rightly get it.)
    const note = await tenant.api.post<{ id: string }>(`/tenants/${tenant.id}/notes`, { content: 'not delivered' });
    await eventually(async () => {
      const event = await server.app.db.event.findFirst({ where: { subjectId: note.body.id, type: 'note.created' } });
      expect(event?.processedAt).not.toBeNull();
    });
    const enabled = await tenant.api.patch<Webhook>(`/tenants/${tenant.id}/webhooks/${webhook.id}`, { enabled: true });
    expect(enabled.body).toMatchObject({ enabled: true, failureCount: 0, disabledAt: null, disabledReason: null });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(target.requests).toHaveLength(1);
  });

  it('gives up on an attempt after 10 s without an answer, and schedules the next', async () => {
    const tenant = await seeder(server).tenant();
    const target = await receiver({ status: 200, delayMs: 12_000 });
    const webhook = await subscribe(tenant, target.url);
    await tenant.api.post(`/tenants/${tenant.id}/notes`, { content: 'slow' });
    const [delivery] = await eventually(async () => {
      const listed = await deliveries(tenant, webhook.id);
      expect(listed[0]?.attempts).toBe(1);
      return listed;
    }, 20_000);
    expect(delivery!.status).toBe('pending');
    expect(delivery!.lastError).toBe('no complete answer within 10 s');
    expect(delivery!.attemptLog[0]!.durationMs).toBeGreaterThanOrEqual(9_900);
    expect(delivery!.attemptLog[0]!.durationMs).toBeLessThan(11_500);
    expect(new Date(delivery!.nextAttemptAt!).getTime()).toBeGreaterThan(testClock.now().getTime() - 5_000);
  }, 30_000);

  it('does not follow a redirect: a 3xx is a failed attempt', async () => {
    const tenant = await seeder(server).tenant();
    const elsewhere = await receiver();
    const target = await receiver({ status: 307, headers: { location: `${elsewhere.url}/moved` } });
    const webhook = await subscribe(tenant, target.url);
    await tenant.api.post(`/tenants/${tenant.id}/notes`, { content: 'redirected' });
    const [delivery] = await eventually(async () => {
      const listed = await deliveries(tenant, webhook.id);
      expect(listed[0]?.attempts).toBe(1);
      return listed;
    });
    expect(delivery).toMatchObject({ status: 'pending', responseStatus: 307, lastError: 'answered 307 (redirects are not followed)' });
    expect(elsewhere.requests).toHaveLength(0);
  });

  it('a new webhook gets only the events committed after it exists, however late the dispatcher reaches them', async () => {
    const tenant = await seeder(server).tenant();
    await server.workers?.dispatcher.drain();
    const target = await receiver();
    const note = await tenant.api.post<{ id: string }>(`/tenants/${tenant.id}/notes`, { content: 'before the webhook' });
    expect(note.status, note.text).toBe(201);
    const [event] = await server.app.db.$queryRaw<OutboxEvent[]>`
      SELECT "id", "tenantId", "type", "actorType", "actorId", "subjectId", "data", "createdAt" FROM "events" WHERE "subjectId" = ${note.body.id}`;
    const webhook = await subscribe(tenant, target.url, ['*']);
    // The dispatcher reaching the note's event only now, as one that was behind would: nothing for the new webhook.
    const work = server.workers?.work.webhooks;
    if (!work || !event) throw new Error('the test server runs the workers, and the note has its event');
    await server.app.db.$transaction((tx) => work.fanOut(tx, [event]));
    expect(await deliveries(tenant, webhook.id)).toEqual([]);
    // An event after it is delivered.
    await tenant.api.post(`/tenants/${tenant.id}/notes`, { content: 'after the webhook' });
    const [request] = await target.waitFor(1);
    expect(target.verify(request!, webhook.secret)).toMatchObject({ type: 'note.created', data: { content: 'after the webhook' } });
    expect(await deliveries(tenant, webhook.id)).toHaveLength(1);
  });

  it('sends webhook.test to itself alone, signs with a rotated secret, and redelivers with the same webhook-id', async () => {
    const tenant = await seeder(server).tenant();
    // The seeding's own events (the API key's api_key.created) dispatched first: one still pending when the
    // subscription below exists is delivered to it, and would arrive before the test.
    await server.workers?.dispatcher.drain();
    const target = await receiver();
    const other = await receiver();
    const webhook = await subscribe(tenant, target.url, ['*']);
    await subscribe(tenant, other.url, ['*']);

    const tested = await tenant.api.post<WebhookDelivery>(`/tenants/${tenant.id}/webhooks/${webhook.id}/test`);
    expect(tested.status, tested.text).toBe(202);
    expect(tested.body).toMatchObject({ eventType: 'webhook.test', status: 'pending', attempts: 0, webhookId: webhook.id });
    const [testRequest] = await target.waitFor(1);
    expect(target.verify(testRequest!, webhook.secret)).toMatchObject({ type: 'webhook.test', data: { webhook: { id: webhook.id } } });
    expect(testRequest!.headers['webhook-id']).toBe(tested.body.eventId);

    const rotated = await tenant.api.post<WebhookWithSecret>(`/tenants/${tenant.id}/webhooks/${webhook.id}/rotate-secret`);
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(webhook.secret);
    await tenant.api.post(`/tenants/${tenant.id}/notes`, { content: 'after rotation' });
    const [, noteRequest] = await target.waitFor(2);
    expect(target.verify(noteRequest!, rotated.body.secret).type).toBe('note.created');
    expect(() => target.verify(noteRequest!, webhook.secret)).toThrow();

    const delivered = await eventually(async () => {
      const listed = await deliveries(tenant, webhook.id);
      const found = listed.find((delivery) => delivery.eventType === 'note.created');
      expect(found?.status).toBe('succeeded');
      return found!;
    });
    const again = await tenant.api.post<WebhookDelivery>(`/tenants/${tenant.id}/webhooks/${webhook.id}/deliveries/${delivered.id}/redeliver`);
    expect(again.status, again.text).toBe(202);
    expect(again.body.status).toBe('pending');
    const [, , redelivered] = await target.waitFor(3);
    expect(redelivered!.headers['webhook-id']).toBe(noteRequest!.headers['webhook-id']);
    await eventually(async () => {
      const listed = await deliveries(tenant, webhook.id);
      expect(listed.find((delivery) => delivery.id === delivered.id)).toMatchObject({ status: 'succeeded', attempts: 2 });
    });
    // The other subscription got the note, never the test.
    await other.waitFor(1);
    expect(other.requests.map((request) => JSON.parse(request.body).type)).toEqual(['note.created']);
  });

  it('filters by event type, and is managed over GraphQL too', async () => {
    const tenant = await seeder(server).tenant();
    const target = await receiver();
    const created = await tenant.api.graphql<{ createWebhook: { id: string; secret: string; events: string[] } }>(
      'mutation ($t: ID!, $input: CreateWebhookDto!) { createWebhook(tenantId: $t, input: $input) { id secret events } }',
      { t: tenant.id, input: { url: target.url, events: ['note.deleted'] } },
    );
    const webhook = created.body.data!.createWebhook;
    expect(webhook.events).toEqual(['note.deleted']);
    const note = await tenant.api.post<{ id: string }>(`/tenants/${tenant.id}/notes`, { content: 'created, then deleted' });
    await tenant.api.delete(`/tenants/${tenant.id}/notes/${note.body.id}`);
    const [request] = await target.waitFor(1);
    expect(target.verify(request!, webhook.secret)).toMatchObject({ type: 'note.deleted', data: { id: note.body.id } });

    const log = await tenant.api.graphql<{ webhookDeliveries: { eventType: string; attemptLog: { attempt: number }[] }[] }>(
      'query ($t: ID!, $w: ID!) { webhookDeliveries(tenantId: $t, webhookId: $w) { eventType attemptLog { attempt } } }',
      { t: tenant.id, w: webhook.id },
    );
    await eventually(async () => {
      const again = await tenant.api.graphql<{ webhookDeliveries: { eventType: string; status: string }[] }>(
        'query ($t: ID!, $w: ID!) { webhookDeliveries(tenantId: $t, webhookId: $w, status: succeeded) { eventType status } }',
        { t: tenant.id, w: webhook.id },
      );
      expect(again.body.data!.webhookDeliveries).toEqual([{ eventType: 'note.deleted', status: 'succeeded' }]);
    });
    expect(log.body.data!.webhookDeliveries.map((delivery) => delivery.eventType)).toEqual(['note.deleted']);

    const removed = await tenant.api.graphql<{ deleteWebhook: { id: string } }>(
      'mutation ($t: ID!, $id: ID!) { deleteWebhook(tenantId: $t, id: $id) { id } }',
      {
        t: tenant.id,
        id: webhook.id,
      },
    );
    expect(removed.body.data!.deleteWebhook.id).toBe(webhook.id);
    expect((await tenant.api.get(`/tenants/${tenant.id}/webhooks/${webhook.id}`)).status).toBe(404);
  });
});

describe('bad input', () => {
  it('names the field, and saves nothing', async () => {
    const tenant = await seeder(server).tenant();
    const cases: [unknown, string][] = [
      [{ url: 'ftp://example.com/hook', events: ['*'] }, 'url'],
      [{ url: 'not a url', events: ['*'] }, 'url'],
      [{ url: 'https://user:secret@example.com/hook', events: ['*'] }, 'url'],
      [{ url: 'https://example.com/hook', events: ['note.created', 'no.such'] }, 'events.1'],
      [{ url: 'https://example.com/hook', events: [] }, 'events'],
      [{ url: 'https://example.com/hook', events: ['*', '*'] }, 'events'],
      [{ url: 'https://example.com/hook', events: ['*'], secret: 'mine' }, 'secret'],
    ];
    for (const [body, path] of cases) {
      const answer = await tenant.api.post<Problem>(`/tenants/${tenant.id}/webhooks`, body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(
        answer.body.errors?.map((error) => error.path),
        JSON.stringify(body),
      ).toContain(path);
    }
    expect((await tenant.api.get<Webhook[]>(`/tenants/${tenant.id}/webhooks`)).body).toEqual([]);
  });

  it('allows 25 subscriptions per tenant: the 26th is a 409', async () => {
    const tenant = await seeder(server).tenant();
    const target = await receiver();
    const created = await Promise.all(
      Array.from({ length: 26 }, (_, index) => tenant.api.post(`/tenants/${tenant.id}/webhooks`, { url: `${target.url}/${index}`, events: ['*'] })),
    );
    expect(created.filter((answer) => answer.status === 201)).toHaveLength(25);
    const refused = created.filter((answer) => answer.status !== 201);
    expect(refused.map((answer) => [answer.status, (answer.body as Problem).code, (answer.body as Problem).reason])).toEqual([
      [409, 'CONFLICT', 'WEBHOOK_LIMIT'],
    ]);
    expect((await tenant.api.get<Webhook[]>(`/tenants/${tenant.id}/webhooks`, { query: { limit: 200 } })).body).toHaveLength(25);
  });

  it('keeps webhooks to owners and admins, and another tenant sees none of them', async () => {
    const step = seeder(server, provider).tenant();
    const tenant = await step;
    const manager = await step.member('manager');
    const member = await step.member('member');
    const other = await seeder(server).tenant();
    const target = await receiver();
    const webhook = await subscribe(tenant, target.url);
    for (const caller of [manager, member]) {
      expect((await caller.api.get(`/tenants/${tenant.id}/webhooks`)).status).toBe(403);
      expect((await caller.api.post(`/tenants/${tenant.id}/webhooks/${webhook.id}/test`)).status).toBe(403);
    }
    expect((await other.api.get(`/tenants/${other.id}/webhooks/${webhook.id}`)).status).toBe(404);
    expect((await other.api.get(`/tenants/${other.id}/webhooks/${webhook.id}/deliveries`)).status).toBe(404);
    expect((await other.api.post(`/tenants/${other.id}/webhooks/${webhook.id}/rotate-secret`)).status).toBe(404);
    expect((await other.api.get(`/tenants/${tenant.id}/webhooks/${webhook.id}`)).status).toBe(404);
  });
});

describe('private addresses', () => {
  it.each([
    'http://127.0.0.1/hook',
    'http://localhost/hook',
    'http://[::1]/hook',
    'http://2130706433/hook',
    'http://0x7f.0.0.1/hook',
    'http://0177.0.0.1/hook',
    'http://127.1/hook',
    'http://10.1.2.3/hook',
    'http://172.16.0.1/hook',
    'http://192.168.1.10/hook',
    'http://169.254.169.254/latest/meta-data',
    'http://100.64.0.1/hook',
    'http://0.0.0.0/hook',
    'http://224.0.0.1/hook',
    'http://[::ffff:127.0.0.1]/hook',
    'http://[fd00::1]/hook',
    'http://[fe80::1]/hook',
  ])('refuses %s when it is saved', async (url) => {
    const tenant = await seeder(strict).tenant();
    const answer = await tenant.api.post<Problem>(`/tenants/${tenant.id}/webhooks`, { url, events: ['*'] });
    expect(answer.status, answer.text).toBe(400);
    expect(answer.body.errors).toEqual([{ path: 'url', message: expect.stringMatching(/non-public address/) }]);
  });

  it('refuses a name that resolves to a loopback address by the time of delivery', async () => {
    const tenant = await seeder(strict).tenant();
    const target = await receiver();
    const port = new URL(target.url).port;
    // A name that was public when saved and points at the machine now (DNS rebinding): what the row says at delivery time.
    const webhook = await strict.app.db.webhookSubscription.create({
      data: {
        tenantId: tenant.id,
        url: `http://localhost:${port}/hook`,
        events: ['*'],
        secretEncrypted: createSecretBox(encryptionKey).seal('whsec_c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0'),
      },
    });
    await tenant.api.post(`/tenants/${tenant.id}/notes`, { content: 'to the machine itself?' });
    const [delivery] = await eventually(async () => {
      const listed = await deliveries(tenant, webhook.id);
      expect(listed[0]?.attempts).toBe(1);
      return listed;
    });
    expect(delivery!.lastError).toMatch(/^refused: the receiver's address is not public/);
    expect(delivery!.responseStatus).toBeNull();
    expect(target.requests).toHaveLength(0);
  });
});
