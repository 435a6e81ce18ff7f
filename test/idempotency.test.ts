/**
 * Idempotency-Key on POST and PATCH (CONTRACT.md section 8): a retried
 * request is answered with the first answer instead of running again, over
 * REST, GraphQL and multipart uploads, per caller, shared by every server
 * process on the database.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Entry, Note } from './generated/openapi/types.gen.js';
import { apiClient, type ApiResponse, type Json } from './helpers/http.js';
import { invoiceForm, invoicePng } from './helpers/invoices.js';
import { startIdentityProvider, type IdentityProvider } from './helpers/oidc.js';
import { startTallyProcess, type TallyProcess } from './helpers/processes.js';
import { seeder, type SeededMember, type SeededTenant } from './helpers/seed.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { Readable, Writable } from 'node:stream';
import pg from 'pg';
import { createIdempotency } from '../src/request/idempotency.js';
import { createLogger } from '../src/lib/logger.js';

let provider: IdentityProvider;
let server: TestServer;
/** Everything the in-process server logs, to check that no stored answer is in it. */
const logged: string[] = [];

beforeAll(async () => {
  provider = await startIdentityProvider();
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logged.push(chunk.toString());
      done();
    },
  });
  server = await startTestServer({ env: { ...provider.env, ROLE: 'api' }, log: createLogger('debug', {}, sink) });
});
afterAll(async () => {
  await server?.stop();
  await provider?.close();
});

const key = (): Record<string, string> => ({ 'idempotency-key': randomUUID() });
const replayed = (response: ApiResponse<unknown>): string | null => response.headers.get('idempotent-replayed');

async function tenantWithMember(): Promise<{ tenant: SeededTenant; member: SeededMember }> {
  const member = await seeder(server, provider).tenant().member('member');
  return { tenant: member.tenant, member };
}

const entryOf = (memberId: string, day: string) => ({
  tenantUserId: memberId,
  startedAt: `${day}T09:00:00Z`,
  endedAt: `${day}T10:00:00Z`,
  description: 'Retried',
});

async function countEntries(tenantId: string): Promise<number> {
  return server.app.db.entry.count({ where: { tenantId } });
}

/** Makes the stored claim look as if its request were still running, started `secondsAgo` ago. */
async function markRunning(idempotencyKey: string, secondsAgo: number): Promise<void> {
  const changed = await server.app.db.$executeRawUnsafe(
    `UPDATE idempotency_keys SET status = 'running', "responseStatus" = NULL, "responseHeaders" = NULL, "responseBody" = NULL,
            "createdAt" = now() - make_interval(secs => $2) WHERE key = $1`,
    idempotencyKey,
    secondsAgo,
  );
  expect(changed).toBe(1);
}

describe('Idempotency-Key over REST', () => {
  it('runs a POST /entries once: the second answer is the first, status and body, with Idempotent-Replayed', async () => {
    const { tenant, member } = await tenantWithMember();
    const headers = key();
    const path = `/tenants/${tenant.id}/entries`;
    const first = await tenant.api.post<Entry>(path, entryOf(member.id, '2026-04-01'), { headers });
    expect(first.status, first.text).toBe(201);
    expect(replayed(first)).toBeNull();
    const second = await tenant.api.post<Entry>(path, entryOf(member.id, '2026-04-01'), { headers });
    expect(second.status).toBe(201);
    expect(second.text).toBe(first.text);
    expect(replayed(second)).toBe('true');
    expect(second.headers.get('content-type')).toBe(first.headers.get('content-type'));
    expect(second.headers.get('x-request-id')).not.toBe(first.headers.get('x-request-id'));
    expect(await countEntries(tenant.id)).toBe(1);
    // No stored body reaches the log.
    expect(logged.join('').includes(first.body.id)).toBe(false);
  });

  it('answers 422 IDEMPOTENCY_KEY_REUSED for the same key with another body, path or method', async () => {
    const { tenant, member } = await tenantWithMember();
    const headers = key();
    const path = `/tenants/${tenant.id}/entries`;
    expect((await tenant.api.post(path, entryOf(member.id, '2026-04-02'), { headers })).status).toBe(201);
    const otherBody = await tenant.api.post(path, entryOf(member.id, '2026-04-03'), { headers });
    expect(otherBody.status).toBe(422);
    expect(otherBody.body).toMatchObject({ status: 422, code: 'IDEMPOTENCY_KEY_REUSED' });
    expect(otherBody.headers.get('content-type')).toBe('application/problem+json');
    const otherPath = await tenant.api.post(`/tenants/${tenant.id}/notes`, { content: 'x' }, { headers });
    expect(otherPath.body).toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED' });
    expect(await countEntries(tenant.id)).toBe(1);
  });

  it('stores a 4xx answer and replays it, even once the request would now succeed', async () => {
    const { tenant, member } = await tenantWithMember();
    const headers = key();
    const path = `/tenants/${tenant.id}/entries`;
    // An API key must say whose time it is: 400.
    const { tenantUserId: _left, ...withoutMember } = entryOf(member.id, '2026-04-04');
    const first = await tenant.api.post(path, withoutMember, { headers });
    expect(first.status).toBe(400);
    expect(first.body).toMatchObject({ code: 'VALIDATION_FAILED' });
    const again = await tenant.api.post(path, withoutMember, { headers });
    expect(again.status).toBe(400);
    expect(again.text).toBe(first.text);
    expect(replayed(again)).toBe('true');
    expect(await countEntries(tenant.id)).toBe(0);
  });

  it('refuses a key of 256 characters or with a space with 400 naming the header, and ignores it on GET', async () => {
    const tenant = await seeder(server).tenant();
    const path = `/tenants/${tenant.id}/notes`;
    for (const bad of ['k'.repeat(256), 'two words', '']) {
      const refused = await tenant.api.post(path, { content: 'x' }, { headers: { 'idempotency-key': bad } });
      expect(refused.status, JSON.stringify(bad)).toBe(400);
      expect(refused.body).toMatchObject({ code: 'VALIDATION_FAILED', errors: [{ path: 'Idempotency-Key' }] });
    }
    const longest = await tenant.api.post(path, { content: 'x' }, { headers: { 'idempotency-key': '~'.repeat(255) } });
    expect(longest.status).toBe(201);
    expect((await tenant.api.get(path, { headers: { 'idempotency-key': 'two words' } })).status).toBe(200);
    expect(await server.app.db.note.count({ where: { tenantId: tenant.id } })).toBe(1);
  });

  it('keeps keys per caller: another API key, or a person, with the same key runs its own request', async () => {
    const { tenant, member } = await tenantWithMember();
    const other = await tenant.api.post<{ key: string }>(`/tenants/${tenant.id}/api-keys`, { name: 'second key' });
    expect(other.status, other.text).toBe(201);
    const second = apiClient(server.url, { apiKey: other.body.key });
    const headers = key();
    const path = `/tenants/${tenant.id}/notes`;
    const byFirst = await tenant.api.post<Note>(path, { content: 'mine' }, { headers });
    const bySecond = await second.post<Note>(path, { content: 'mine' }, { headers });
    const byMember = await member.api.post<Note>(path, { content: 'mine' }, { headers });
    for (const answer of [byFirst, bySecond, byMember]) {
      expect(answer.status).toBe(201);
      expect(replayed(answer)).toBeNull();
    }
    expect(new Set([byFirst.body.id, bySecond.body.id, byMember.body.id]).size).toBe(3);
  });

  it('makes PATCH idempotent too', async () => {
    const tenant = await seeder(server).tenant();
    const note = await tenant.api.post<Note>(`/tenants/${tenant.id}/notes`, { content: 'before' });
    const headers = key();
    const path = `/tenants/${tenant.id}/notes/${note.body.id}`;
    const first = await tenant.api.patch<Note>(path, { content: 'after' }, { headers });
    expect(first.status).toBe(200);
    // Changed meanwhile by someone else: the retry still answers what the first PATCH did, and changes nothing.
    await tenant.api.patch(path, { content: 'meanwhile' });
    const retried = await tenant.api.patch<Note>(path, { content: 'after' }, { headers });
    expect(retried.text).toBe(first.text);
    expect(replayed(retried)).toBe('true');
    expect((await tenant.api.get<Note>(path)).body.content).toBe('meanwhile');
  });

  it('answers 409 IDEMPOTENCY_KEY_IN_USE with Retry-After while the first runs, and lets a dead claim be taken over', async () => {
    const tenant = await seeder(server).tenant();
    const idempotencyKey = randomUUID();
    const headers = { 'idempotency-key': idempotencyKey };
    const path = `/tenants/${tenant.id}/notes`;
    expect((await tenant.api.post(path, { content: 'once' }, { headers })).status).toBe(201);

    await markRunning(idempotencyKey, 5);
    const running = await tenant.api.post(path, { content: 'once' }, { headers });
    expect(running.status).toBe(409);
    expect(running.body).toMatchObject({ code: 'CONFLICT', reason: 'IDEMPOTENCY_KEY_IN_USE' });
    expect(running.headers.get('retry-after')).toBe('1');
    // Another request under a running key is still another request.
    expect((await tenant.api.post(path, { content: 'other' }, { headers })).status).toBe(422);

    // No answer two minutes after it started: its process died, and the same request runs again.
    await markRunning(idempotencyKey, 120);
    const takenOver = await tenant.api.post(path, { content: 'once' }, { headers });
    expect(takenOver.status).toBe(201);
    expect(replayed(takenOver)).toBeNull();
    expect(replayed(await tenant.api.post(path, { content: 'once' }, { headers }))).toBe('true');
    expect(await server.app.db.note.count({ where: { tenantId: tenant.id } })).toBe(2);
  });

  it('treats an expired key (24 h) as new', async () => {
    const tenant = await seeder(server).tenant();
    const idempotencyKey = randomUUID();
    const headers = { 'idempotency-key': idempotencyKey };
    const path = `/tenants/${tenant.id}/notes`;
    expect((await tenant.api.post(path, { content: 'old' }, { headers })).status).toBe(201);
    await server.app.db.$executeRawUnsafe(`UPDATE idempotency_keys SET "expiresAt" = now() - interval '1 second' WHERE key = $1`, idempotencyKey);
    const fresh = await tenant.api.post(path, { content: 'new' }, { headers });
    expect(fresh.status).toBe(201);
    expect(replayed(fresh)).toBeNull();
  });

  it('counts an upload by its file: the same file again is the first invoice, another file under the key is 422', async () => {
    const tenant = await seeder(server).tenant();
    const headers = { authorization: `Bearer ${tenant.key}`, ...key() };
    const url = `${server.url}/tenants/${tenant.id}/invoices/upload`;
    const upload = async (form: FormData) => {
      const response = await fetch(url, { method: 'POST', headers, body: form });
      return { status: response.status, headers: response.headers, text: await response.text() };
    };
    const png = invoicePng();
    const first = await upload(invoiceForm(png, 'scan.png', { number: 'INV-1' }));
    expect(first.status, first.text).toBe(201);
    // A new form, with its own multipart boundary, of the same file and fields.
    const again = await upload(invoiceForm(png, 'scan.png', { number: 'INV-1' }));
    expect(again.status).toBe(201);
    expect(again.text).toBe(first.text);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    const otherFile = await upload(invoiceForm(invoicePng(['Another invoice', 'Total 12.00 EUR']), 'scan.png', { number: 'INV-1' }));
    expect(otherFile.status).toBe(422);
    expect(JSON.parse(otherFile.text)).toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED' });
    const otherField = await upload(invoiceForm(png, 'scan.png', { number: 'INV-2' }));
    expect(otherField.status).toBe(422);
    expect(await server.app.db.invoice.count({ where: { tenantId: tenant.id } })).toBe(1);
    // The replay and the refusals staged the file as it streamed in, and gave it back before any handler ran.
    const staging = path.join(server.app.platform.config.dataDir, 'files', 'staging');
    expect(fs.existsSync(staging) ? fs.readdirSync(staging) : []).toEqual([]);
  });
});

describe('a claim that ends without an answer to keep', () => {
  it('is released by a 5xx, a streamed answer or a failure, so that the retry runs again', async () => {
    const pool = new pg.Pool({ connectionString: server.databaseUrl, max: 1 });
    const idempotency = createIdempotency({ sql: { query: async (text, values) => (await pool.query(text, values as unknown[])).rows }, log: server.app.log });
    const actor = { type: 'api_key', apiKeyId: randomUUID(), tenantId: randomUUID(), name: 'k' } as const;
    try {
      const headers = key();
      for (const ending of [{ status: 500, headers: {}, body: '{}' }, { status: 200, headers: {}, body: Readable.from(['file']) }, undefined]) {
        const first = idempotency.requestOf('POST', headers, actor, server.app.log);
        expect(await first?.claim('a'.repeat(64))).toBeUndefined();
        // Meanwhile the same request is refused as running.
        await expect(idempotency.requestOf('POST', headers, actor, server.app.log)?.claim('a'.repeat(64))).rejects.toMatchObject({
          reason: 'IDEMPOTENCY_KEY_IN_USE',
        });
        await first?.settle(ending);
      }
      const stored = idempotency.requestOf('POST', headers, actor, server.app.log);
      expect(await stored?.claim('a'.repeat(64))).toBeUndefined();
      await stored?.settle({ status: 201, headers: { 'content-type': 'application/json', location: '/x', 'x-request-id': 'r1' }, body: '{"id":1}' });
      const replay = await idempotency.requestOf('POST', headers, actor, server.app.log)?.claim('a'.repeat(64));
      expect(replay).toMatchObject({ status: 201, headers: { 'content-type': 'application/json', location: '/x', 'idempotent-replayed': 'true' } });
      expect(replay?.headers['x-request-id']).toBeUndefined();
      expect(String(replay?.body)).toBe('{"id":1}');
      // Not for a GET, nor without a caller.
      expect(idempotency.requestOf('GET', headers, actor, server.app.log)).toBeUndefined();
      expect(idempotency.requestOf('POST', headers, null, server.app.log)).toBeUndefined();
    } finally {
      await idempotency.close();
      await pool.end();
    }
  });
});

describe('Idempotency-Key over GraphQL', () => {
  const createNote = 'mutation ($t: ID!, $c: String!) { createNote(tenantId: $t, input: { content: $c }) { id content } }';

  it('replays a mutation with the exact first body; another operation under the key is 422', async () => {
    const tenant = await seeder(server).tenant();
    const headers = key();
    const call = (variables: Json, options = { headers }) => tenant.api.request<Json>('POST', '/graphql', { query: createNote, variables }, options);
    const first = await call({ t: tenant.id, c: 'by graphql' });
    expect(first.status, first.text).toBe(200);
    expect(replayed(first)).toBeNull();
    // The same variables in another order are the same operation.
    const second = await call({ c: 'by graphql', t: tenant.id });
    expect(second.status).toBe(200);
    expect(second.text).toBe(first.text);
    expect(replayed(second)).toBe('true');
    expect(await server.app.db.note.count({ where: { tenantId: tenant.id } })).toBe(1);

    const other = await call({ t: tenant.id, c: 'something else' });
    expect(other.status).toBe(422);
    expect((other.body.errors as { extensions: Json }[])[0]?.extensions).toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED' });

    const badKey = await call({ t: tenant.id, c: 'x' }, { headers: { 'idempotency-key': 'a b' } });
    expect(badKey.status).toBe(400);
    expect((badKey.body.errors as { extensions: Json }[])[0]?.extensions).toMatchObject({ code: 'VALIDATION_FAILED' });
  });
});

describe('Idempotency-Key across server processes', () => {
  const processes: TallyProcess[] = [];
  afterAll(async () => {
    await Promise.all(processes.map((process) => process.stop()));
  });

  it('creates one entry for ten concurrent duplicates split over two processes; the others replay or wait', async () => {
    processes.push(...(await Promise.all([startTallyProcess('api', server.databaseUrl), startTallyProcess('api', server.databaseUrl)])));
    const { tenant, member } = await tenantWithMember();
    const headers = key();
    const path = `/tenants/${tenant.id}/entries`;
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, index) =>
        apiClient(processes[index % 2]!.url, { apiKey: tenant.key }).post<Entry & { reason?: string }>(path, entryOf(member.id, '2026-04-10'), { headers }),
      ),
    );
    const ran = answers.filter((answer) => answer.status === 201 && replayed(answer) === null);
    expect(ran).toHaveLength(1);
    for (const answer of answers) {
      if (answer.status === 201) expect(answer.text).toBe(ran[0]!.text);
      else expect(answer.body, answer.text).toMatchObject({ status: 409, reason: 'IDEMPOTENCY_KEY_IN_USE' });
    }
    expect(await countEntries(tenant.id)).toBe(1);
    // Once done, every process replays it.
    for (const process of processes) {
      const later = await apiClient(process.url, { apiKey: tenant.key }).post(path, entryOf(member.id, '2026-04-10'), { headers });
      expect(later.text).toBe(ran[0]!.text);
      expect(replayed(later)).toBe('true');
    }
  }, 120_000);
});
