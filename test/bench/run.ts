/**
 * `npm run bench`: throughput and latency of the main request paths against
 * the real server on a throw-away embedded PostgreSQL, plus database
 * transactions per request (constant whatever the page size: no N+1).
 *
 *   BENCH_SECONDS=5 BENCH_CONCURRENCY=16 npm run bench
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { systemActor } from '../../src/auth/actor.js';
import { systemAccess } from '../../src/auth/tenant-access.js';
import { loadConfig } from '../../src/config.js';
import { startEmbeddedPostgres } from '../../src/db/embedded-postgres.js';
import { createLogger } from '../../src/lib/logger.js';
import { startTally } from '../../src/main.js';

const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 16);

/** What test/bench/load.mjs runs. */
interface LoadSpec {
  /** Requests cycle through these URLs. */
  urls: string[];
  method: string;
  headers: Record<string, string>;
  /** `%i` in it is replaced by the request number. */
  body?: string;
  expectStatus: number;
  seconds: number;
  concurrency: number;
}

interface LoadResult {
  latencies: number[];
  errors: number;
}

interface Scenario extends Omit<LoadSpec, 'seconds' | 'concurrency'> {
  name: string;
}

interface Result {
  requests: number;
  errors: number;
  perSecond: number;
  p50: number;
  p95: number;
  p99: number;
  statementsPerRequest: number;
}

/** Counts the server's SQL statements while `counting` is set. */
const statements = { counting: false, count: 0 };

function percentile(sorted: number[], fraction: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] as number;
}

function load(spec: LoadSpec): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL('./load.mjs', import.meta.url), { workerData: spec });
    worker.once('message', (result: LoadResult) => resolve(result));
    worker.once('error', reject);
  });
}

async function measure(scenario: Scenario): Promise<Result> {
  // SQL statements per request, from a few requests with nothing else running.
  statements.count = 0;
  statements.counting = true;
  await load({ ...scenario, seconds: 0.2, concurrency: 1 }).then(({ latencies }) => (statements.count /= latencies.length));
  statements.counting = false;
  const perRequest = statements.count;

  const { latencies, errors } = await load({ ...scenario, seconds, concurrency });
  latencies.sort((a, b) => a - b);
  return {
    requests: latencies.length,
    errors,
    perSecond: Math.round(latencies.length / seconds),
    p50: percentile(latencies, 0.5),
    p95: percentile(latencies, 0.95),
    p99: percentile(latencies, 0.99),
    statementsPerRequest: perRequest,
  };
}

async function main(): Promise<void> {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'tally-bench-'));
  fs.chmodSync(scratch, 0o755);
  const log = createLogger('warn');
  const database = await startEmbeddedPostgres({ clusterDir: path.join(scratch, 'postgres'), database: 'tally', log });
  const config = loadConfig({ NODE_ENV: 'test', DATABASE_URL: database.url, PORT: '0', DATA_DIR: scratch, LOG_LEVEL: 'warn' });
  const tally = await startTally({
    config,
    log: createLogger('warn'),
    bootstrap: false,
    onQuery: () => {
      if (statements.counting) statements.count += 1;
    },
  });
  try {
    const base = tally.url as string;
    const actor = systemActor('bench');
    const tenant = await tally.app.services.tenants.create(actor, { name: 'Bench', slug: 'bench' });
    const { key } = await tally.app.services.apiKeys.create(systemAccess(tenant, actor), { name: 'bench', expiresInDays: 30 });
    const access = systemAccess(tenant, actor);
    const noteIds: string[] = [];
    for (let index = 0; index < 1000; index += 1) {
      noteIds.push((await tally.app.services.notes.create(access, { content: `note ${index}` })).id);
    }
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const notes = `${base}/tenants/${tenant.id}/notes`;
    const get = (urls: string[]) => ({ method: 'GET', urls, headers, expectStatus: 200 });
    const scenarios: Scenario[] = [
      { name: 'REST GET /notes?limit=50', ...get([`${notes}?limit=50`]) },
      { name: 'REST GET /notes?limit=200', ...get([`${notes}?limit=200`]) },
      { name: 'REST GET /notes/{id}', ...get(noteIds.map((id) => `${notes}/${id}`)) },
      { name: 'REST POST /notes', method: 'POST', urls: [notes], headers, body: '{"content":"bench %i"}', expectStatus: 201 },
      {
        name: 'GraphQL notes(limit: 50)',
        method: 'POST',
        urls: [`${base}/graphql`],
        headers,
        body: JSON.stringify({
          query: 'query ($t: ID!) { notes(tenantId: $t, limit: 50) { id content createdAt } }',
          variables: { t: tenant.id },
        }),
        expectStatus: 200,
      },
      { name: 'GET /health (no auth)', method: 'GET', urls: [`${base}/health`], headers: {}, expectStatus: 200 },
    ];
    process.stdout.write(`\n${seconds}s per scenario, ${concurrency} concurrent clients, Node ${process.version}, ${os.cpus().length} CPUs\n\n`);
    process.stdout.write('scenario                        req/s    p50 ms   p95 ms   p99 ms  errors   SQL/req\n');
    for (const scenario of scenarios) {
      const result = await measure(scenario);
      process.stdout.write(
        `${scenario.name.padEnd(30)} ${String(result.perSecond).padStart(6)} ${result.p50.toFixed(1).padStart(8)} ${result.p95
          .toFixed(1)
          .padStart(8)} ${result.p99.toFixed(1).padStart(8)} ${String(result.errors).padStart(7)} ${result.statementsPerRequest
          .toFixed(2)
          .padStart(9)}\n`,
      );
    }
  } finally {
    await tally.stop();
    await database.stop();
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

await main();
