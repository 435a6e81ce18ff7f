/**
 * Rate limits shared by separate server processes on one database: 600
 * requests a minute per API key or session over REST, GraphQL and WebSocket
 * connects, and 30 a minute per address on sign-in, answered 429
 * RATE_LIMITED with Retry-After and RateLimit-* headers.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectWs } from './helpers/graphql-ws.js';
import { apiClient } from './helpers/http.js';
import { startTallyProcess, type TallyProcess } from './helpers/processes.js';
import { seeder, type SeededTenant } from './helpers/seed.js';
import { startTestServer, type TestServer } from './helpers/server.js';

let server: TestServer;
const processes: TallyProcess[] = [];
let tenant: SeededTenant;

beforeAll(async () => {
  // The in-process server migrates the database and seeds; two `tally serve` processes carry the limits.
  server = await startTestServer({ env: { ROLE: 'api' } });
  const limits = { RATE_LIMIT_PER_MINUTE: '600', AUTH_RATE_LIMIT_PER_MINUTE: '30' };
  processes.push(...(await Promise.all([startTallyProcess('api', server.databaseUrl, limits), startTallyProcess('api', server.databaseUrl, limits)])));
  tenant = await seeder(server).tenant();
}, 90_000);
afterAll(async () => {
  await Promise.all(processes.map((each) => each.stop()));
  await server?.stop();
});

describe('rate limits across two processes', () => {
  it('let 600 requests with one key through, then answer 429 with Retry-After on both processes, REST, GraphQL and WebSocket', async () => {
    const [first, second] = processes as [TallyProcess, TallyProcess];
    const clients = [apiClient(first.url, { apiKey: tenant.key }), apiClient(second.url, { apiKey: tenant.key })];
    const statuses: number[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: 20 }, async () => {
        while (next < 601) {
          const index = next++;
          statuses.push((await (clients[index % 2] as (typeof clients)[number]).get(`/tenants/${tenant.id}/notes`)).status);
        }
      }),
    );
    expect(statuses.filter((status) => status === 200)).toHaveLength(600);
    expect(statuses.filter((status) => status === 429)).toHaveLength(1);

    for (const client of clients) {
      const refused = await client.get<{ code: string; detail: string }>(`/tenants/${tenant.id}/notes`);
      expect(refused.status).toBe(429);
      expect(refused.headers.get('content-type')).toContain('application/problem+json');
      expect(refused.body.code).toBe('RATE_LIMITED');
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(60);
      expect(refused.headers.get('ratelimit-limit')).toBe('600');
      expect(refused.headers.get('ratelimit-remaining')).toBe('0');
      const graphql = await client.graphql('query ($t: ID!) { notes(tenantId: $t) { id } }', { t: tenant.id });
      expect(graphql.status).toBe(429);
      expect(graphql.body.errors?.[0]?.extensions?.code).toBe('RATE_LIMITED');
    }
    const socket = connectWs(first.url, { authorization: `Bearer ${tenant.key}` });
    expect(await socket.closed).toBe(4429);
    await socket.client.dispose();

    // Another key of the tenant has its own budget.
    const other = await seeder(server).tenant();
    const fresh = await apiClient(second.url, { apiKey: other.key }).get(`/tenants/${other.id}/notes`);
    expect(fresh.status).toBe(200);
    expect(fresh.headers.get('ratelimit-limit')).toBe('600');
    expect(fresh.headers.get('ratelimit-remaining')).toBe('599');
    // Every entry point admits through the one gate and answers with the budget it spent: /metrics and GraphQL too.
    const metrics = await apiClient(second.url, { apiKey: other.key }).get('/metrics');
    expect(metrics.status).toBe(200);
    expect(metrics.headers.get('ratelimit-remaining')).toBe('598');
    const graphql = await apiClient(second.url, { apiKey: other.key }).graphql('query ($t: ID!) { notes(tenantId: $t) { id } }', { t: other.id });
    expect(graphql.body.errors).toBeUndefined();
    expect(graphql.headers.get('ratelimit-remaining')).toBe('597');
  });

  it('let 30 sign-in requests a minute from one address, counted over both processes; the session check is not one of them', async () => {
    const statuses: number[] = [];
    for (let index = 0; index < 31; index += 1) {
      const target = processes[index % 2] as TallyProcess;
      // No provider is configured here: 404, but a sign-in attempt all the same.
      statuses.push((await fetch(`${target.url}/api/auth/signin/oidc`, { redirect: 'manual' })).status);
    }
    expect(statuses.slice(0, 30).every((status) => status === 404)).toBe(true);
    expect(statuses[30]).toBe(429);
    const refused = await fetch(`${(processes[1] as TallyProcess).url}/api/auth/callback/oidc?code=x&state=y`, { redirect: 'manual' });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    const session = await fetch(`${(processes[0] as TallyProcess).url}/api/auth/session`);
    expect(session.status).toBe(200);
    expect(session.headers.get('ratelimit-limit')).toBe('600');
  });

  it('write a large budget to the store in batches of a two-hundredth of it, not of ten requests', async () => {
    const large = await startTallyProcess('api', server.databaseUrl, { RATE_LIMIT_PER_MINUTE: '20000' });
    processes.push(large);
    const caller = await seeder(server).tenant();
    const database = new pg.Client({ connectionString: server.databaseUrl });
    await database.connect();
    try {
      // The store's writes of this caller's budget, counted by PostgreSQL itself.
      await database.query('CREATE TABLE rate_limit_writes (key text NOT NULL)');
      await database.query(`CREATE FUNCTION count_rate_limit_write() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN INSERT INTO rate_limit_writes VALUES (NEW.key); RETURN NEW; END $$`);
      await database.query(
        'CREATE TRIGGER count_rate_limit_write AFTER INSERT OR UPDATE ON rate_limits FOR EACH ROW EXECUTE FUNCTION count_rate_limit_write()',
      );
      const client = apiClient(large.url, { apiKey: caller.key });
      const requests = 2_000;
      let sent = 0;
      const statuses: number[] = [];
      await Promise.all(
        Array.from({ length: 16 }, async () => {
          while (sent < requests) {
            sent += 1;
            statuses.push((await client.get(`/tenants/${caller.id}/notes`, { query: { limit: 1 } })).status);
          }
        }),
      );
      expect(statuses.filter((status) => status === 200)).toHaveLength(requests);
      // What is still counted only in memory reaches the store within 250 ms.
      await new Promise((resolve) => setTimeout(resolve, 500));
      const { rows } = await database.query<{ writes: number }>('SELECT count(*)::int AS writes FROM rate_limit_writes WHERE key = $1', [
        `caller:key:${caller.apiKeyId}`,
      ]);
      // Batches of 100 (20,000 / 200), and what a pause of 250 ms sends early: far fewer than one a ten requests (200).
      expect(rows[0]?.writes).toBeGreaterThanOrEqual(requests / 100);
      expect(rows[0]?.writes).toBeLessThan(requests / 40);
      const { rows: stored } = await database.query<{ points: number }>('SELECT points FROM rate_limits WHERE key = $1', [`caller:key:${caller.apiKeyId}`]);
      expect(stored[0]?.points).toBe(requests);
    } finally {
      await database.query('DROP TRIGGER IF EXISTS count_rate_limit_write ON rate_limits');
      await database.query('DROP FUNCTION IF EXISTS count_rate_limit_write()');
      await database.query('DROP TABLE IF EXISTS rate_limit_writes');
      await database.end();
    }
  });
});
