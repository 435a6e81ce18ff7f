/**
 * `npm run bench`: Tally against a floor, in the same run, on the same data.
 *
 * The floor (test/bench/floor.mjs) is a hand-written node:http + pg server
 * doing the same API-key check and the same queries. Both run as their own
 * processes (Tally from its compiled dist/, as in production, ROLE=api) on one
 * PostgreSQL seeded with BENCH_NOTES notes in one tenant and a tenth of that
 * in another. Each scenario runs in rounds that alternate floor and Tally, so
 * that drift of a shared machine hits both alike; Tally's throughput is
 * reported as a ratio to the floor's. Also: SQL statements per request (from
 * pg_stat_statements), resident memory idle and under load, and whether a
 * tenant's list slows down while another tenant writes.
 *
 * PostGraphile 5 (test/bench/postgraphile.mjs, installed on first use into .data/bench) is a fourth server in the list scenarios, on the
 * same database in the same rounds: the same page of the same tenant's notes through its own GraphQL query. It
 * does less than the others (no API key, no tenant gate); its ratio to the floor is printed beside Tally's.
 *
 * Then the domain: `tally seed --tenants 2 --users 20 --entries 100000`
 * (BENCH_ENTRIES), and the median latency, one client at a time, of the
 * entries list with projects and of searches for a common and a rare word.
 * Then reports (test/bench/reports.ts): one-year summaries at 100,000 and
 * 1,000,000 entries in a tenant, CSV and XLSX exports in rows/s with the API's
 * memory meanwhile, and the summary statement's plan. Then invoices (test/bench/invoices.ts): OCR seconds per page, and the API
 * process's memory while a 20 MiB upload streams in. Then billing (test/bench/billing.ts): a client invoice from 10,000
 * entries, issuing one, and the client-invoices list beside the notes list and the floor. And events
 * (test/bench/events.ts): webhook throughput and commit-to-receipt latency,
 * and live notifications across API processes. Invoice files
 * (test/bench/invoice-files.ts, first, in this process): a 500-line client
 * invoice as each e-invoice XML format, PDF and Factur-X.
 *
 *   BENCH_SECONDS=3 BENCH_ROUNDS=6 BENCH_CONCURRENCY=32 BENCH_NOTES=100000 npm run bench
 *   BENCH_SKIP_BUILD=1  reuse dist/ as it is
 *   BENCH_ONLY=rest-list,rest-get  only these parts: the request scenarios rest-list, graphql-list, rest-get,
 *                       rest-post and postgraphile (PostGraphile in the list scenarios that run; alone, in both;
 *                       `requests` for all five), and domain, reports, invoices, billing, events,
 *                       imports, invoice-files (alone, it needs no build, server or database), time-balance,
 *                       working-time, recurring-invoices and payment-reminders (each starts a Tally of its own on a database of its own:
 *                       test/bench/<part>.ts)
 *   BENCH_BASELINE=<git ref>  also build that commit (in a scratch worktree with its own npm ci) and run it
 *                       beside Tally and the floor in the same rounds: before and after, in one table (and in the
 *                       billing part's list rounds); or the
 *                       directory of a checkout already built (its dist/), run as it is
 *   BENCH_NODE_OPTIONS=<flags>  Node flags for Tally and the baseline (not the floor) besides those of their package's
 *                       start script (which they run with, as `npm start` does), e.g. --max-semi-space-size=4
 *   BENCH_IDLE_SECONDS=10  how long a process rests before its idle memory is read
 *   BENCH_POSTGRAPHILE_KEY_CHECK=1  PostGraphile passes the floor's key check (its statement) before each request,
 *                       so that it does the work Tally and the floor do (test/bench/postgraphile.mjs)
 *   BENCH_CPU_PROFILE=<dir>  write a V8 CPU profile of each Tally process (and the baseline's) into <dir>;
 *                       `node test/bench/profile-summary.mjs <file>` lists its top frames
 */
import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { promisify } from 'node:util';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import pg from 'pg';
import { startEmbeddedPostgres } from '../../src/db/embedded-postgres.js';
import { migrateDatabase } from '../../src/db/migrations.js';
import { createLogger } from '../../src/lib/logger.js';
import { measureBilling } from './billing.js';
import { measureEvents } from './events.js';
import { measureImports } from './imports.js';
import { measureInvoiceFiles } from './invoice-files.js';
import { measureInvoices } from './invoices.js';
import { measureReports } from './reports.js';

const seconds = Number(process.env.BENCH_SECONDS ?? 3);
const rounds = Number(process.env.BENCH_ROUNDS ?? 6);
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 32);
const noteCount = Number(process.env.BENCH_NOTES ?? 100_000);
const otherNoteCount = Math.round(noteCount / 10);
const entryCount = Number(process.env.BENCH_ENTRIES ?? 100_000);
/** How long a process rests before its idle memory is read (after the warm-up, and after the request scenarios). */
const idleSeconds = Number(process.env.BENCH_IDLE_SECONDS ?? 10);
/** PostGraphile checks the floor's key before each request (one statement more: the work Tally and the floor do). */
const postgraphileKeyCheck = process.env.BENCH_POSTGRAPHILE_KEY_CHECK === '1';
const projectRoot = path.resolve(import.meta.dirname, '../..');

interface RequestSpec {
  method: 'GET' | 'POST';
  paths: string[];
  headers: Record<string, string>;
  /** `%i` is replaced by the request number. */
  body?: string;
  expectStatus: number;
}

interface LoadResult {
  latencies: number[];
  errors: number;
  statuses: Record<string, number>;
}

type ServerName = 'tally' | 'floor' | 'baseline' | 'postgraphile';

interface Server {
  name: ServerName;
  url: string;
  child: ChildProcess;
  rssPeakKb: number;
  /** The process's last 4,000 characters of output: what a failed run shows of why. */
  output(): string;
}

interface Scenario {
  /** What BENCH_ONLY names it by. */
  id: string;
  name: string;
  tally: RequestSpec;
  floor: RequestSpec;
  /** What PostGraphile is asked in the scenario, when it runs (the list scenarios): it is left out of the others. */
  postgraphile?: RequestSpec | undefined;
}

const requestScenarios = ['rest-list', 'graphql-list', 'rest-get', 'rest-post', 'postgraphile'];
const parts = [
  'domain',
  'reports',
  'invoices',
  'billing',
  'events',
  'imports',
  'invoice-files',
  'time-balance',
  'working-time',
  'recurring-invoices',
  'payment-reminders',
];
/** Parts that need no build and no server of this run: they build their own data (and, but invoice-files, their own Tally). */
const inProcessParts = ['invoice-files', 'time-balance', 'working-time', 'recurring-invoices', 'payment-reminders'];
/** Parts that are scripts of their own (test/bench/<part>.ts), each starting Tally in its process on an embedded database. */
const scriptParts = ['time-balance', 'working-time', 'recurring-invoices', 'payment-reminders'];

/** Runs a script part in a process of its own (its Tally and database go with it), its output here. */
function runScriptPart(part: string): void {
  process.stdout.write(`\n${part}:\n`);
  const run = spawnSync(path.join(projectRoot, 'node_modules/.bin/tsx'), [path.join(projectRoot, 'test/bench', `${part}.ts`)], {
    cwd: projectRoot,
    stdio: 'inherit',
  });
  if (run.status !== 0) throw new Error(`the bench part ${part} failed (exit ${run.status})`);
}
/** What BENCH_ONLY asks for (everything when unset). */
const only = new Set(
  (process.env.BENCH_ONLY ?? '')
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '')
    .flatMap((part) => (part === 'requests' ? requestScenarios : [part])),
);
for (const part of only) {
  if (!requestScenarios.includes(part) && !parts.includes(part)) {
    throw new Error(`BENCH_ONLY: unknown part "${part}"; known: requests, ${[...requestScenarios, ...parts].join(', ')}`);
  }
}
// PostGraphile alone is measured in both list scenarios (it runs in no other).
if (only.has('postgraphile') && !only.has('rest-list') && !only.has('graphql-list')) for (const part of ['rest-list', 'graphql-list']) only.add(part);
const wanted = (part: string): boolean => only.size === 0 || only.has(part);
const baselineRef = process.env.BENCH_BASELINE?.trim() || undefined;

function load(url: string, spec: RequestSpec, options: { seconds: number; concurrency: number; startIndex?: number }): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL('./load.mjs', import.meta.url), { workerData: { url, ...spec, ...options } });
    worker.once('message', (result: LoadResult) => resolve(result));
    worker.once('error', reject);
  });
}

function percentile(sorted: number[], fraction: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] as number;
}

const median = (values: number[]): number =>
  percentile(
    [...values].sort((a, b) => a - b),
    0.5,
  );

function rssKb(pid: number): number {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  } catch {
    const output = spawnSync('ps', ['-o', 'rss=', '-p', String(pid)])
      .stdout.toString()
      .trim();
    return Number(output) || 0;
  }
}

async function waitForHealth(url: string, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${url} exited during start:\n${output()}`);
    try {
      if ((await fetch(`${url}/health`)).ok) return;
    } catch {
      // not up yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${url} did not come up:\n${output()}`);
}

async function freePort(): Promise<number> {
  const net = await import('node:net');
  return new Promise((resolve) => {
    const server = net.createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

const profileDirectory = process.env.BENCH_CPU_PROFILE?.trim() || undefined;

/** The PostGraphile the bench runs (exact): the version its figures in docs/performance.md were measured with. */
const postgraphileVersion = '5.1.5';

/**
 * PostGraphile's server script, installed on first use: npm installs PostGraphile (and this project's pg) into
 * .data/bench/postgraphile-<version>, and test/bench/postgraphile.mjs is copied beside it so that its imports
 * resolve there. Not a dev dependency: its 222 packages cost every `npm ci`, CI's included, about 15 s, for a
 * bench part alone.
 */
function postgraphileScript(): string {
  const directory = path.join(projectRoot, '.data', 'bench', `postgraphile-${postgraphileVersion}`);
  if (!fs.existsSync(path.join(directory, 'node_modules', 'postgraphile', 'package.json'))) {
    fs.mkdirSync(directory, { recursive: true });
    fs.writeFileSync(path.join(directory, 'package.json'), `${JSON.stringify({ private: true, type: 'module' })}\n`);
    const pgVersion = (JSON.parse(fs.readFileSync(path.join(projectRoot, 'package.json'), 'utf8')) as { dependencies: Record<string, string> }).dependencies.pg;
    console.log(`installing PostGraphile ${postgraphileVersion} for the bench into ${path.relative(projectRoot, directory)} ...`);
    const install = spawnSync('npm', ['install', '--no-audit', '--no-fund', '--save-exact', `postgraphile@${postgraphileVersion}`, `pg@${pgVersion}`], {
      cwd: directory,
      encoding: 'utf8',
    });
    if (install.status !== 0) throw new Error(`installing PostGraphile failed:\n${install.stderr}`);
  }
  const script = path.join(directory, 'server.mjs');
  fs.copyFileSync(path.join(projectRoot, 'test/bench/postgraphile.mjs'), script);
  return script;
}

async function startServer(name: Server['name'], command: string[], env: Record<string, string>, cwd = projectRoot): Promise<Server> {
  const port = await freePort();
  const profile =
    profileDirectory && (name === 'tally' || name === 'baseline')
      ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(profileDirectory)}`, `--cpu-prof-name=${name}-${Date.now()}.cpuprofile`]
      : [];
  const child = spawn(process.execPath, [...profile, ...command], {
    cwd,
    env: {
      PATH: process.env.PATH ?? '',
      ...env,
      // Node flags for Tally (and the baseline), not the floor or PostGraphile: BENCH_NODE_OPTIONS=--max-semi-space-size=8
      ...((name === 'tally' || name === 'baseline') && process.env.BENCH_NODE_OPTIONS ? { NODE_OPTIONS: process.env.BENCH_NODE_OPTIONS } : {}),
      PORT: String(port),
      HOST: '127.0.0.1',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4000)));
  child.stderr?.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4000)));
  const url = `http://127.0.0.1:${port}`;
  await waitForHealth(url, child, () => output);
  return { name, url, child, rssPeakKb: 0, output: () => output };
}

/** The Node flags `npm start` gives Tally in a checkout (its package's start script: `node <flags> bin/tally.js serve`). */
function startFlagsOf(directory: string): string[] {
  const start = (JSON.parse(fs.readFileSync(path.join(directory, 'package.json'), 'utf8')) as { scripts?: { start?: string } }).scripts?.start ?? '';
  return (/\bnode ((?:--\S+ )*)bin\/tally\.js\b/.exec(start)?.[1] ?? '').trim().split(' ').filter(Boolean);
}

/** Inserts rows much faster than any API would: the benchmark's data, not its subject. */
async function seed(database: pg.Client): Promise<{ tenantA: string; tenantB: string; keyA: string; keyB: string; noteIds: string[] }> {
  const tenant = async (slug: string): Promise<string> =>
    (
      await database.query<{ id: string }>(
        `INSERT INTO tenants (id, name, slug, settings, "updatedAt") VALUES (uuidv7()::text, $1, $1, '{}', now()) RETURNING id`,
        [slug],
      )
    ).rows[0]!.id;
  const key = async (tenantId: string): Promise<string> => {
    const secret = `svc_${randomBytes(30).toString('base64url').replace(/[-_]/g, 'x').slice(0, 40)}`;
    await database.query(
      `INSERT INTO api_keys (id, "tenantId", name, prefix, "keyHash", "createdByType", "expiresAt", "updatedAt")
       VALUES (uuidv7()::text, $1, 'bench', $2, $3, 'system', now() + interval '30 days', now())`,
      [tenantId, secret.slice(0, 8), createHash('sha256').update(secret).digest('hex')],
    );
    return secret;
  };
  const notes = (tenantId: string, count: number) =>
    database.query(
      `INSERT INTO notes (id, "tenantId", content, "createdAt", "updatedAt")
       SELECT uuidv7()::text, $1, 'Note ' || g || ' about the weekly plan', now(), now() FROM generate_series(1, $2::int) g`,
      [tenantId, count],
    );
  const tenantA = await tenant('bench-a');
  const tenantB = await tenant('bench-b');
  // Interleaved, so that each tenant's rows are spread across the table as they are in production.
  const batch = 10_000;
  for (let done = 0; done < noteCount; done += batch) {
    await notes(tenantA, Math.min(batch, noteCount - done));
    await notes(tenantB, Math.min(batch, noteCount - done) / 10);
  }
  await database.query('ANALYZE');
  const noteIds = (await database.query<{ id: string }>('SELECT id FROM notes WHERE "tenantId" = $1 ORDER BY random() LIMIT 1000', [tenantA])).rows.map(
    (row) => row.id,
  );
  return { tenantA, tenantB, keyA: await key(tenantA), keyB: await key(tenantB), noteIds };
}

/** SQL statements the server runs per request, as PostgreSQL counted them. */
async function statementsPerRequest(database: pg.Client, server: Server, spec: RequestSpec): Promise<number> {
  await load(server.url, spec, { seconds: 0.3, concurrency: 1 }); // warm, so that one-time work is not counted
  await database.query('SELECT pg_stat_statements_reset()');
  const { latencies } = await load(server.url, spec, { seconds: 0.5, concurrency: 1, startIndex: 5_000_000 });
  const { rows } = await database.query<{ calls: string }>(
    "SELECT coalesce(sum(calls), 0) AS calls FROM pg_stat_statements WHERE query NOT ILIKE '%pg_stat_statements%' AND dbid = (SELECT oid FROM pg_database WHERE datname = current_database())",
  );
  return Number(rows[0]?.calls ?? 0) / latencies.length;
}

interface Measured {
  perSecond: number[];
  latencies: number[];
  errors: number;
  statuses: Record<string, number>;
  /** CPU time the server process spent in its rounds (user + system), and the requests it answered then. */
  cpuMs: number;
  requests: number;
}

/** CPU time a process has used, user and system, in milliseconds (from /proc; 0 where there is none). */
function cpuMsOf(pid: number): number {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    // utime and stime are fields 14 and 15 of stat, in clock ticks (100 a second on Linux).
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return 0;
  }
}

type Servers = { tally: Server; floor: Server; baseline?: Server | undefined; postgraphile?: Server | undefined };
type ScenarioResults = Partial<Record<ServerName, Measured>>;

/** The request a server gets in a scenario (the baseline is Tally too); none when the server sits the scenario out. */
const specFor = (scenario: Scenario, name: ServerName): RequestSpec | undefined =>
  name === 'floor' ? scenario.floor : name === 'postgraphile' ? scenario.postgraphile : scenario.tally;

async function measure(scenarios: Scenario[], servers: Servers): Promise<Map<string, ScenarioResults>> {
  const results = new Map<string, ScenarioResults>();
  for (const scenario of scenarios) {
    const names = (['floor', 'tally', 'baseline', 'postgraphile'] as const).filter((name) => servers[name] && specFor(scenario, name));
    const entry: ScenarioResults = Object.fromEntries(
      names.map((name) => [name, { perSecond: [], latencies: [], errors: 0, statuses: {}, cpuMs: 0, requests: 0 }]),
    );
    for (let round = 0; round < rounds; round += 1) {
      // Rotate which goes first, so that none always follows another's load.
      const order = names.map((_, index) => names[(index + round) % names.length] as ServerName);
      for (const name of order) {
        const server = servers[name] as Server;
        const sampler = setInterval(() => (server.rssPeakKb = Math.max(server.rssPeakKb, rssKb(server.child.pid as number))), 100);
        const cpuBefore = cpuMsOf(server.child.pid as number);
        const result = await load(server.url, specFor(scenario, name) as RequestSpec, { seconds, concurrency, startIndex: round * 1_000_000 });
        clearInterval(sampler);
        const target = entry[name] as Measured;
        target.cpuMs += cpuMsOf(server.child.pid as number) - cpuBefore;
        target.requests += result.latencies.length;
        target.perSecond.push(result.latencies.length / seconds);
        target.latencies.push(...result.latencies);
        target.errors += result.errors;
        for (const [status, count] of Object.entries(result.statuses)) target.statuses[status] = (target.statuses[status] ?? 0) + count;
      }
    }
    results.set(scenario.name, entry);
  }
  return results;
}

/** Median latency of a tenant's list, one client at a time. */
async function listLatency(server: Server, spec: RequestSpec): Promise<number> {
  const { latencies } = await load(server.url, spec, { seconds: 2, concurrency: 1 });
  return median(latencies);
}

/**
 * PostGraphile's page is the floor's (the same note ids in the same order), checked once before it is measured:
 * a GraphQL error answers 200 too, so the load's status check alone would count errors as pages.
 */
async function assertSamePage(floor: Server, floorList: RequestSpec, postgraphile: Server, postgraphileList: RequestSpec): Promise<void> {
  const answer = async (server: Server, spec: RequestSpec): Promise<unknown> =>
    (await fetch(`${server.url}${spec.paths[0]}`, { method: spec.method, headers: spec.headers, body: spec.body ?? null })).json();
  const floorIds = ((await answer(floor, floorList)) as { id: string }[]).map((note) => note.id);
  const page = (await answer(postgraphile, postgraphileList)) as { data?: { allNotes?: { nodes: { id: string }[] } }; errors?: unknown };
  const ids = page.data?.allNotes?.nodes.map((note) => note.id) ?? [];
  if (ids.length === 0 || ids.join() !== floorIds.join()) {
    throw new Error(`PostGraphile's page is not the floor's: ${JSON.stringify(page).slice(0, 500)}`);
  }
}

const format = (value: number, digits = 1): string => (Number.isFinite(value) ? value.toFixed(digits) : '-');

/** `tally seed` through the real command, then what a person waits for on its data. */
async function measureDomain(databaseUrl: string, tally: Server): Promise<void> {
  const started = performance.now();
  // Not spawnSync: a blocked event loop misses the server closing an idle keep-alive connection, and the next
  // fetch is written into that closed socket ("other side closed").
  const seeded = await promisify(execFile)(process.execPath, ['dist/cli/main.js', 'seed', '--tenants', '2', '--users', '20', '--entries', String(entryCount)], {
    cwd: projectRoot,
    env: { PATH: process.env.PATH ?? '', DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn' },
    maxBuffer: 16 * 1024 * 1024,
  }).catch((error: { stdout?: string; stderr?: string; message: string }) => {
    throw new Error(`tally seed failed: ${error.message}\n${error.stdout ?? ''}${error.stderr ?? ''}`);
  });
  const seedSeconds = (performance.now() - started) / 1000;
  const output = seeded.stdout;
  const tenant = /^ {2}seed-\S+ {2}(\S+) {2}(svc_\S+)$/m.exec(output);
  if (!tenant) throw new Error(`tally seed printed no tenant:\n${output}${seeded.stderr}`);
  const [, tenantId, key] = tenant as unknown as [string, string, string];
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  const members = (await (await fetch(`${tally.url}/tenants/${tenantId}/users?role=member&limit=1`, { headers })).json()) as { id: string }[];
  await fetch(`${tally.url}/tenants/${tenantId}/entries`, {
    method: 'POST',
    headers,
    body: JSON.stringify({
      tenantUserId: members[0]?.id,
      startedAt: '2025-01-06T09:00:00Z',
      endedAt: '2025-01-06T10:00:00Z',
      description: 'Calibrated the zeppelinometer',
    }),
  });
  const graphql = (query: string): RequestSpec => ({
    method: 'POST',
    paths: ['/graphql'],
    headers,
    body: JSON.stringify({ query, variables: { t: tenantId } }),
    expectStatus: 200,
  });
  const get = (path: string): RequestSpec => ({ method: 'GET', paths: [path], headers, expectStatus: 200 });
  const cases: [string, RequestSpec][] = [
    [
      'GraphQL entries, 50, with project',
      graphql('query ($t: ID!) { entries(tenantId: $t, limit: 50) { id startedAt durationMinutes description project { name } } }'),
    ],
    ['REST entries, 50', get(`/tenants/${tenantId}/entries?limit=50`)],
    // Every project's spent minutes and amount in its budget period: one grouped statement over the tenant's entries.
    ['REST projects, all, with spent', get(`/tenants/${tenantId}/projects?limit=200`)],
    ['GraphQL project members with rates', graphql('query ($t: ID!) { projects(tenantId: $t, limit: 200) { id members { tenantUserId hourlyRate } } }')],
    ['search, common word ("meeting")', get(`/tenants/${tenantId}/search?q=meeting`)],
    ['search, rare word ("zeppelinometer")', get(`/tenants/${tenantId}/search?q=zeppelinometer`)],
    ['search, prefix while typing ("zeppel")', get(`/tenants/${tenantId}/search?q=zeppel`)],
  ];
  process.stdout.write(`\ntally seed: ${entryCount} entries in ${format(seedSeconds, 1)} s; then one client at a time (median, p99, ms):\n`);
  for (const [name, spec] of cases) {
    await load(tally.url, spec, { seconds: 0.5, concurrency: 1 });
    const { latencies, errors } = await load(tally.url, spec, { seconds: 3, concurrency: 1 });
    const sorted = [...latencies].sort((a, b) => a - b);
    process.stdout.write(
      `  ${name.padEnd(40)} ${format(percentile(sorted, 0.5)).padStart(7)} ${format(percentile(sorted, 0.99)).padStart(7)}${errors ? `  (${errors} errors)` : ''}\n`,
    );
  }
}

/**
 * BENCH_BASELINE: that commit, checked out in a scratch worktree with its own
 * dependencies (npm ci, which applies that commit's patches), built to its own dist/. Its path.
 */
function buildBaseline(ref: string, scratch: string): string {
  const directory = path.join(scratch, 'baseline');
  const git = (...args: string[]) => {
    const result = spawnSync('git', args, { cwd: projectRoot, encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`git ${args.join(' ')} failed:\n${result.stderr}`);
  };
  process.stdout.write(`building the baseline ${ref} in ${directory} ...\n`);
  git('worktree', 'add', '--detach', directory, ref);
  // Its own dependencies, with its own patches of them (postinstall): ours would give it our patches' speed.
  const install = spawnSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: directory, encoding: 'utf8' });
  if (install.status !== 0) throw new Error(`npm ci in the baseline ${ref} failed:\n${install.stderr}`);
  const build = spawnSync('npm', ['run', '--silent', 'build'], { cwd: directory, stdio: 'inherit' });
  if (build.status !== 0) throw new Error(`npm run build of ${ref} failed`);
  return directory;
}

function removeBaseline(directory: string): void {
  spawnSync('git', ['worktree', 'remove', '--force', directory], { cwd: projectRoot });
}

async function main(): Promise<void> {
  if (wanted('invoice-files')) await measureInvoiceFiles();
  for (const part of scriptParts) if (wanted(part)) runScriptPart(part);
  if (only.size > 0 && [...only].every((part) => inProcessParts.includes(part))) return;
  if (process.env.BENCH_SKIP_BUILD !== '1') {
    process.stdout.write('building dist/ ...\n');
    const build = spawnSync('npm', ['run', '--silent', 'build'], { cwd: projectRoot, stdio: 'inherit' });
    if (build.status !== 0) throw new Error('npm run build failed');
  }
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'tally-bench-'));
  fs.chmodSync(scratch, 0o755);
  // A directory is a checkout already built (its dist/ and node_modules as they are): the same code with another start
  // script, say, without a scratch worktree and npm ci.
  const baselineBuilt = baselineRef !== undefined && fs.existsSync(path.join(baselineRef, 'dist')) ? path.resolve(baselineRef) : undefined;
  const baselineDirectory = baselineBuilt ?? (baselineRef ? buildBaseline(baselineRef, scratch) : undefined);
  const log = createLogger('warn');
  const postgres = await startEmbeddedPostgres({
    clusterDir: path.join(scratch, 'postgres'),
    database: 'tally',
    log,
    settings: ['shared_preload_libraries=pg_stat_statements', 'max_connections=300'],
  });
  const servers: Partial<Record<ServerName, Server>> = {};
  const database = new pg.Client({ connectionString: postgres.url });
  try {
    await migrateDatabase(postgres.url, log);
    await database.connect();
    await database.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
    process.stdout.write(`seeding ${noteCount} notes in one tenant and ${otherNoteCount} in another ...\n`);
    const data = await seed(database);

    const env = { DATABASE_URL: postgres.url, POOL_SIZE: '10' };
    const secrets = { AUTH_SECRET: randomBytes(32).toString('hex'), ENCRYPTION_KEY: randomBytes(32).toString('hex') };
    // The rate limit is on (its upsert is part of every request's cost), set far above what the load reaches.
    const tallyEnv = { ...env, ...secrets, NODE_ENV: 'production', ROLE: 'api', LOG_LEVEL: 'warn', RATE_LIMIT_PER_MINUTE: '9999999' };
    servers.floor = await startServer('floor', ['test/bench/floor.mjs'], env);
    // Tally runs as `npm start` runs it, with the Node flags of its package's start script.
    servers.tally = await startServer('tally', [...startFlagsOf(projectRoot), 'dist/cli/main.js', 'serve'], tallyEnv);
    // The baseline migrates nothing: the database is this checkout's, a superset of what older code knows.
    if (baselineDirectory) {
      servers.baseline = await startServer('baseline', [...startFlagsOf(baselineDirectory), 'dist/cli/main.js', 'serve'], tallyEnv, baselineDirectory);
    }
    // PostGraphile as its docs deploy it: NODE_ENV=production, plain `node` (like the floor, without Tally's flags).
    if (wanted('postgraphile')) {
      servers.postgraphile = await startServer('postgraphile', [postgraphileScript()], {
        ...env,
        NODE_ENV: 'production',
        ...(postgraphileKeyCheck ? { KEY_CHECK: '1' } : {}),
      });
    }
    const { tally, floor, baseline, postgraphile } = servers as Servers;
    const running = [floor, tally, ...(baseline ? [baseline] : []), ...(postgraphile ? [postgraphile] : [])];
    const startedRss = Object.fromEntries(running.map((server) => [server.name, rssKb(server.child.pid as number)]));

    const headers = { authorization: `Bearer ${data.keyA}`, 'content-type': 'application/json' };
    const notes = `/tenants/${data.tenantA}/notes`;
    const list: RequestSpec = { method: 'GET', paths: [`${notes}?limit=50`], headers, expectStatus: 200 };
    const get: RequestSpec = { method: 'GET', paths: data.noteIds.map((id) => `${notes}/${id}`), headers, expectStatus: 200 };
    const post: RequestSpec = { method: 'POST', paths: [notes], headers, body: '{"content":"bench note %i"}', expectStatus: 201 };
    const graphqlList: RequestSpec = {
      method: 'POST',
      paths: ['/graphql'],
      headers,
      body: JSON.stringify({
        query: 'query ($t: ID!) { notes(tenantId: $t, limit: 50) { id tenantId tenantUserId content createdAt updatedAt } }',
        variables: { t: data.tenantA },
      }),
      expectStatus: 200,
    };
    // PostGraphile's page: the floor's rows (tenant, size, order, columns; its `rowId` is the column `id`), no key.
    const postgraphileList: RequestSpec = {
      method: 'POST',
      paths: ['/graphql'],
      headers: postgraphileKeyCheck ? headers : { 'content-type': 'application/json' },
      body: JSON.stringify({
        query:
          'query ($t: String!) { allNotes(first: 50, condition: { tenantId: $t }, orderBy: [CREATED_AT_DESC, ROW_ID_DESC]) ' +
          '{ nodes { id: rowId tenantId tenantUserId content createdAt updatedAt } } }',
        variables: { t: data.tenantA },
      }),
      expectStatus: 200,
    };
    if (postgraphile) await assertSamePage(floor, list, postgraphile, postgraphileList);
    const lists = postgraphile ? { postgraphile: postgraphileList } : {};
    const scenarios: Scenario[] = [
      { id: 'rest-list', name: 'REST list, 50 notes', tally: list, floor: list, ...lists },
      { id: 'graphql-list', name: 'GraphQL list, same fields', tally: graphqlList, floor: list, ...lists },
      { id: 'rest-get', name: 'REST get by id', tally: get, floor: get },
      { id: 'rest-post', name: 'REST POST', tally: post, floor: post },
    ].filter((scenario) => wanted(scenario.id));

    // Warm every server (JIT, connection pools, caches), then note what each holds at rest.
    for (const server of running) {
      for (const scenario of scenarios) {
        const spec = specFor(scenario, server.name);
        if (spec) await load(server.url, spec, { seconds: 1, concurrency: 4 });
      }
    }
    // Idle as the issue that set the goal measured it: 10 s after a warm-up.
    await new Promise((resolve) => setTimeout(resolve, idleSeconds * 1000));
    const idleRss = Object.fromEntries(running.map((server) => [server.name, rssKb(server.child.pid as number)]));

    let afterLoadRss: Record<string, number> | undefined;
    if (scenarios.length > 0) {
      const statements = new Map<string, Partial<Record<ServerName, number>>>();
      for (const scenario of scenarios) {
        const counted: Partial<Record<ServerName, number>> = {};
        for (const server of running) {
          const spec = specFor(scenario, server.name);
          if (spec) counted[server.name] = await statementsPerRequest(database, server, spec);
        }
        statements.set(scenario.name, counted);
      }

      process.stdout.write(
        `\n${rounds} rotating rounds of ${seconds} s per scenario, ${concurrency} clients, ${noteCount} + ${otherNoteCount} notes, ` +
          `Node ${process.version}, ${os.cpus().length} CPUs${baseline ? `; baseline = ${baselineRef}` : ''}\n\n`,
      );
      const results = await measure(scenarios, { tally, floor, baseline, postgraphile });
      const header = [
        'scenario',
        'Tally req/s',
        'floor req/s',
        'ratio',
        ...(baseline ? ['baseline req/s', 'baseline ratio', 'Tally/baseline'] : []),
        ...(postgraphile ? ['PostGraphile req/s', 'PostGraphile ratio', 'Tally/PostGraphile'] : []),
        'Tally p50',
        'p99',
        'floor p50',
        'p99',
        'SQL/req Tally',
        'floor',
        ...(postgraphile ? ['PostGraphile'] : []),
        'CPU ms/req Tally',
        'floor',
        ...(baseline ? ['baseline'] : []),
        ...(postgraphile ? ['PostGraphile'] : []),
        'errors',
      ];
      const rows = scenarios.map((scenario) => {
        const result = results.get(scenario.name) as ScenarioResults;
        // NaN (printed `-`) for a server that sits the scenario out.
        const rate = (name: ServerName) => (result[name] ? median(result[name].perSecond) : Number.NaN);
        const sortedT = [...(result.tally as Measured).latencies].sort((a, b) => a - b);
        const sortedF = [...(result.floor as Measured).latencies].sort((a, b) => a - b);
        const sql = statements.get(scenario.name) as Partial<Record<ServerName, number>>;
        const errors = running.map((server) => result[server.name]?.errors ?? '-').join('/');
        return [
          scenario.name,
          format(rate('tally'), 0),
          format(rate('floor'), 0),
          format(rate('tally') / rate('floor'), 2),
          ...(baseline ? [format(rate('baseline'), 0), format(rate('baseline') / rate('floor'), 2), format(rate('tally') / rate('baseline'), 2)] : []),
          ...(postgraphile
            ? [format(rate('postgraphile'), 0), format(rate('postgraphile') / rate('floor'), 2), format(rate('tally') / rate('postgraphile'), 2)]
            : []),
          format(percentile(sortedT, 0.5)),
          format(percentile(sortedT, 0.99)),
          format(percentile(sortedF, 0.5)),
          format(percentile(sortedF, 0.99)),
          format(sql.tally ?? Number.NaN, 2),
          format(sql.floor ?? Number.NaN, 2),
          ...(postgraphile ? [format(sql.postgraphile ?? Number.NaN, 2)] : []),
          ...(['tally', 'floor', ...(baseline ? ['baseline'] : []), ...(postgraphile ? ['postgraphile'] : [])] as ServerName[]).map((name) => {
            const measured = result[name];
            return measured ? format(measured.cpuMs / Math.max(1, measured.requests), 3) : '-';
          }),
          errors,
        ];
      });
      const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => (row[column] as string).length)));
      const line = (cells: string[]) =>
        cells.map((cell, column) => (column === 0 ? cell.padEnd(widths[column] as number) : cell.padStart(widths[column] as number))).join('  ');
      process.stdout.write(
        `${line(header)}\n${rows.map(line).join('\n')}\n(latencies in ms; ratio = req/s / floor req/s, measured in the same rounds; CPU ms/req = the server process's CPU time per answer, ` +
          `less sensitive to a busy machine than req/s; errors ${running.map((server) => server.name).join('/')}` +
          `${postgraphile ? `; PostGraphile runs the list scenarios only, ${postgraphileKeyCheck ? "after the floor's key check (its statement), with no tenant gate" : 'with no API key and no tenant gate'}` : ''})\n`,
      );
      await new Promise((resolve) => setTimeout(resolve, idleSeconds * 1000));
      afterLoadRss = Object.fromEntries(running.map((server) => [server.name, rssKb(server.child.pid as number)]));
    }

    if (wanted('rest-list')) {
      // A tenant's list while other tenants write: the list must use the tenant's index, not walk past their rows.
      const before = { tally: await listLatency(tally, list), floor: await listLatency(floor, list) };
      await database.query(
        `INSERT INTO notes (id, "tenantId", content, "createdAt", "updatedAt")
         SELECT uuidv7()::text, $1, 'newer note of another tenant', now(), now() FROM generate_series(1, $2::int)`,
        [data.tenantB, Math.max(20_000, otherNoteCount)],
      );
      const after = { tally: await listLatency(tally, list), floor: await listLatency(floor, list) };
      process.stdout.write(
        `\nlist p50 (1 client) before and after another tenant wrote ${Math.max(20_000, otherNoteCount)} newer notes: ` +
          `Tally ${format(before.tally, 2)} -> ${format(after.tally, 2)} ms, floor ${format(before.floor, 2)} -> ${format(after.floor, 2)} ms\n`,
      );
    }
    if (wanted('domain')) await measureDomain(postgres.url, tally);
    if (wanted('reports')) await measureReports({ databaseUrl: postgres.url, url: tally.url, pid: tally.child.pid as number, projectRoot });
    if (wanted('invoices')) await measureInvoices({ url: tally.url, pid: tally.child.pid as number, key: data.keyB, tenantId: data.tenantB });
    if (wanted('billing')) {
      const billingHeaders = { authorization: `Bearer ${data.keyB}` };
      await measureBilling({
        databaseUrl: postgres.url,
        url: tally.url,
        key: data.keyB,
        tenantId: data.tenantB,
        notesList: { tally: () => listLatency(tally, list), floor: () => listLatency(floor, list) },
        listLatency: (path) => listLatency(tally, { method: 'GET', paths: [path], headers: billingHeaders, expectStatus: 200 }),
        floorListLatency: (path) => listLatency(floor, { method: 'GET', paths: [path], headers: billingHeaders, expectStatus: 200 }),
        floorUrl: floor.url,
        ...(baseline
          ? { baselineListLatency: (path: string) => listLatency(baseline, { method: 'GET', paths: [path], headers: billingHeaders, expectStatus: 200 }) }
          : {}),
      });
    }
    if (wanted('events')) {
      // The write scenarios above left tens of thousands of events no worker has seen (Tally ran as ROLE=api):
      // the events bench measures the steady state, not that backlog.
      await database.query('UPDATE events SET "processedAt" = now() WHERE "processedAt" IS NULL');
      await measureEvents({ databaseUrl: postgres.url, secrets, tenantId: data.tenantB, key: data.keyB });
    }
    if (wanted('imports')) await measureImports({ databaseUrl: postgres.url, secrets, tenantId: data.tenantB, key: data.keyB });
    const mb = (kb: number | undefined) => format((kb ?? Number.NaN) / 1024, 0);
    for (const server of running) {
      process.stdout.write(
        `RSS ${server.name}: ${mb(startedRss[server.name])} MB after start, ${mb(idleRss[server.name])} MB idle (${idleSeconds} s after a warm-up), ` +
          `${mb(server.rssPeakKb)} MB peak under load${afterLoadRss ? `, ${mb(afterLoadRss[server.name])} MB ${idleSeconds} s after the load` : ''}\n`,
      );
    }
  } catch (error) {
    // A request that failed on a server's side: what the server said last is the first thing to read.
    for (const server of Object.values(servers)) process.stderr.write(`\n--- the last output of ${server.name} ---\n${server.output()}\n`);
    throw error;
  } finally {
    for (const server of Object.values(servers)) {
      server.child.kill('SIGTERM');
      await new Promise((resolve) => (server.child.exitCode === null ? server.child.once('exit', resolve) : resolve(undefined)));
    }
    await database.end().catch(() => undefined);
    await postgres.stop();
    if (baselineDirectory && !baselineBuilt) removeBaseline(baselineDirectory);
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

await main();
