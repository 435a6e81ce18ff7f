/**
 * An external PostgreSQL (a real server of the test's own) stopped and
 * started again under a running Tally: requests in the gap answer 503
 * UNAVAILABLE within seconds, /health says so, nothing is half-written, and
 * service resumes without a restart. And a graceful stop under load: every
 * write that was acknowledged is there afterwards.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmbeddedPostgres, type RunningPostgres } from '../src/db/embedded-postgres.js';
import { createLogger } from '../src/lib/logger.js';
import { testClock } from './helpers/clock.js';
import { eventually } from './helpers/eventually.js';
import { startTallyProcess } from './helpers/processes.js';
import { seeder, type SeededTenant } from './helpers/seed.js';
import { freePort, startTestServer, type TestServer } from './helpers/server.js';
import { startTcpRelay } from './helpers/tcp-proxy.js';

const log = createLogger('silent');
let clusterDir: string;
let port: number;
let postgres: RunningPostgres;
let server: TestServer;
let tenant: SeededTenant;

const startPostgres = () => startEmbeddedPostgres({ clusterDir, log, database: 'tally', ephemeral: true, port });

beforeAll(async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'tally-outage-'));
  fs.chmodSync(root, 0o777);
  clusterDir = path.join(root, 'postgres');
  port = await freePort();
  postgres = await startPostgres();
  server = await startTestServer({ databaseUrl: postgres.url, env: { ROLE: 'api' } });
  tenant = await seeder(server).tenant();
  // Some API processes below run in production mode, on the system clock (never a pinned one): the key, made on the
  // test clock, must not have expired by the system clock either.
  const later = Math.max(Date.now(), testClock.now().getTime()) + 90 * 86_400_000;
  await server.app.db.apiKey.update({ where: { id: tenant.apiKeyId }, data: { expiresAt: new Date(later) } });
}, 90_000);
afterAll(async () => {
  await server?.stop();
  await postgres?.stop();
  fs.rmSync(path.dirname(clusterDir), { recursive: true, force: true });
});

async function timed(request: () => Promise<Response>): Promise<{ status: number; ms: number; code?: string; retryAfter: string | null }> {
  const started = performance.now();
  const response = await request();
  const text = await response.text();
  let code: string | undefined;
  try {
    code = (JSON.parse(text) as { code?: string; errors?: { extensions?: { code?: string } }[] }).code;
  } catch {
    code = undefined;
  }
  return { status: response.status, ms: performance.now() - started, ...(code ? { code } : {}), retryAfter: response.headers.get('retry-after') };
}

/** What a client got for one write: a status, or nothing at all (the server closed the socket). */
type Outcome = { content: string; status: number; retryAfter: string | null } | { content: string; noAnswer: string };

/** `writers` clients posting notes one after another until `stop()`; every outcome. */
function writeContinuously(url: string, key: string, writers: number, label: string) {
  let running = true;
  const outcomes: Outcome[] = [];
  const done = Promise.all(
    Array.from({ length: writers }, async (_, writer) => {
      for (let index = 0; running; index += 1) {
        const content = `${label} ${writer}-${index}`;
        try {
          const response = await fetch(`${url}/tenants/${tenant.id}/notes`, {
            method: 'POST',
            headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
            body: JSON.stringify({ content }),
            // Longer than any answer may take (a connection waits 3 s, then 503): no answer by then is none at all.
            signal: AbortSignal.timeout(15_000),
          });
          await response.arrayBuffer();
          outcomes.push({ content, status: response.status, retryAfter: response.headers.get('retry-after') });
          if (response.status === 503) await new Promise((resolve) => setTimeout(resolve, 50));
        } catch (error) {
          outcomes.push({ content, noAnswer: String((error as { cause?: unknown }).cause ?? error) });
        }
      }
    }),
  );
  return {
    outcomes,
    async stop() {
      running = false;
      await done;
    },
  };
}

async function storedNotes(databaseUrl: string, pattern: string): Promise<Set<string>> {
  const database = new pg.Client({ connectionString: databaseUrl });
  await database.connect();
  try {
    const { rows } = await database.query<{ content: string }>('SELECT content FROM notes WHERE "tenantId" = $1 AND content LIKE $2', [tenant.id, pattern]);
    return new Set(rows.map((row) => row.content));
  } finally {
    await database.end();
  }
}

/** Every write was answered, 201 or 503 with Retry-After; every 201 is stored. */
async function expectEveryWriteAnswered(outcomes: Outcome[], databaseUrl: string, label: string): Promise<void> {
  const unanswered = outcomes.filter((outcome) => 'noAnswer' in outcome);
  expect(unanswered).toEqual([]);
  const answered = outcomes.filter((outcome): outcome is Extract<Outcome, { status: number }> => 'status' in outcome);
  expect(answered.filter((outcome) => outcome.status !== 201 && outcome.status !== 503)).toEqual([]);
  expect(answered.some((outcome) => outcome.status === 201)).toBe(true);
  expect(answered.filter((outcome) => outcome.status === 503).every((outcome) => outcome.retryAfter === '5')).toBe(true);
  const stored = await storedNotes(databaseUrl, `${label} %`);
  expect(answered.filter((outcome) => outcome.status === 201 && !stored.has(outcome.content))).toEqual([]);
}

describe('a database outage', () => {
  it('answers 503 quickly while PostgreSQL is down, loses nothing, and recovers without a restart', async () => {
    const key = { authorization: `Bearer ${tenant.key}` };
    const write = (content: string) =>
      fetch(`${server.url}/tenants/${tenant.id}/notes`, {
        method: 'POST',
        headers: { ...key, 'content-type': 'application/json' },
        body: JSON.stringify({ content }),
      });
    expect((await write('before')).status).toBe(201);

    await postgres.stop();
    const read = await timed(() => fetch(`${server.url}/tenants/${tenant.id}/notes`, { headers: key }));
    const written = await timed(() => write('during'));
    const health = await timed(() => fetch(`${server.url}/health`));
    const graphql = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { ...key, 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'query ($t: ID!) { notes(tenantId: $t) { id } }', variables: { t: tenant.id } }),
    });
    for (const answer of [read, written]) {
      expect(answer.status).toBe(503);
      expect(answer.code).toBe('UNAVAILABLE');
      expect(answer.retryAfter).toBe('5');
      expect(answer.ms).toBeLessThan(5_000);
    }
    expect(health.status).toBe(503);
    expect(health.ms).toBeLessThan(5_000);
    expect([503, 200]).toContain(graphql.status);
    expect(JSON.stringify(await graphql.json())).toMatch(/UNAVAILABLE/);

    postgres = await startPostgres();
    await eventually(async () => expect((await fetch(`${server.url}/health`)).status).toBe(200), 20_000);
    expect((await write('after')).status).toBe(201);
    const notes = await fetch(`${server.url}/tenants/${tenant.id}/notes`, { headers: key });
    expect(((await notes.json()) as { content: string }[]).map((note) => note.content).sort()).toEqual(['after', 'before']);
  });

  it('answers every write while PostgreSQL stops fast and starts again under four writers (production mode): 201 or 503, nothing dropped', async () => {
    const api = await startTallyProcess('api', postgres.url, { NODE_ENV: 'production' });
    try {
      const load = writeContinuously(api.url, tenant.key, 4, 'restart');
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      // SIGINT is PostgreSQL's fast shutdown (pg_ctl stop -m fast): it ends every connection at once.
      await postgres.stop();
      await new Promise((resolve) => setTimeout(resolve, 4_000));
      postgres = await startPostgres();
      await eventually(async () => expect((await fetch(`${api.url}/health`)).status).toBe(200), 20_000);
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      await load.stop();
      await expectEveryWriteAnswered(load.outcomes, postgres.url, 'restart');
      expect(load.outcomes.some((outcome) => 'status' in outcome && outcome.status === 503)).toBe(true);
    } finally {
      await api.stop();
    }
  }, 90_000);

  it('answers 503 when the database connection is reset under writers, never a closed socket', async () => {
    // A relay between Tally and PostgreSQL that resets every connection it carries (TCP RST): ECONNRESET from the database.
    const relay = await startTcpRelay({ host: '127.0.0.1', port });
    const api = await startTallyProcess('api', relay.through(postgres.url), { NODE_ENV: 'production' });
    try {
      const load = writeContinuously(api.url, tenant.key, 4, 'reset');
      let resets = 0;
      for (let round = 0; round < 20; round += 1) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        resets += relay.resetAll();
      }
      await new Promise((resolve) => setTimeout(resolve, 500));
      await load.stop();
      expect(resets).toBeGreaterThan(0);
      await expectEveryWriteAnswered(load.outcomes, postgres.url, 'reset');
    } finally {
      await api.stop();
      await relay.close();
    }
  }, 90_000);

  it('finishes what it accepted when stopped under load: every acknowledged write is kept', async () => {
    const processTally = await startTallyProcess('api', postgres.url);
    const acknowledged: string[] = [];
    // 32 writers until the server stops listening; then every fetch fails and the writer ends.
    const writers = Array.from({ length: 32 }, async (_, writer) => {
      for (let index = 0; index < 10_000; index += 1) {
        const content = `load ${writer}-${index}`;
        try {
          const response = await fetch(`${processTally.url}/tenants/${tenant.id}/notes`, {
            method: 'POST',
            headers: { authorization: `Bearer ${tenant.key}`, 'content-type': 'application/json' },
            body: JSON.stringify({ content }),
          });
          if (response.status === 201) acknowledged.push(content);
        } catch {
          return;
        }
      }
    });
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    await processTally.stop();
    await Promise.all(writers);
    expect(acknowledged.length).toBeGreaterThan(32);
    const database = new pg.Client({ connectionString: postgres.url });
    await database.connect();
    try {
      const { rows } = await database.query<{ content: string }>('SELECT content FROM notes WHERE "tenantId" = $1 AND content LIKE $2', [tenant.id, 'load %']);
      const stored = new Set(rows.map((row) => row.content));
      expect(acknowledged.filter((content) => !stored.has(content))).toEqual([]);
    } finally {
      await database.end();
    }
  });
});
