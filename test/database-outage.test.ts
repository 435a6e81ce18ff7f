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
import { eventually } from './helpers/eventually.js';
import { startTallyProcess } from './helpers/processes.js';
import { seeder, type SeededTenant } from './helpers/seed.js';
import { freePort, startTestServer, type TestServer } from './helpers/server.js';

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

describe('a database outage', () => {
  it('answers 503 quickly while PostgreSQL is down, loses nothing, and recovers without a restart', async () => {
    const key = { authorization: `Bearer ${tenant.key}` };
    const write = (content: string) =>
      fetch(`${server.url}/tenants/${tenant.id}/notes`, { method: 'POST', headers: { ...key, 'content-type': 'application/json' }, body: JSON.stringify({ content }) });
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
