/**
 * What an API process keeps, phase by phase (issue 41's measurement):
 *
 *   npx tsx test/bench/memory-phases.ts
 *
 * An embedded PostgreSQL with `tally seed --tenants 2 --users 20 --entries
 * 100000` (BENCH_ENTRIES), a loopback OpenID Connect provider, and Tally as `npm start` runs
 * it (`ROLE=api`, production, the start script's Node flags, from dist/).
 * Then, signed in with a session cookie through the real sign-in: 200 REST
 * entry lists, 200 entry gets, 200 note POSTs, 200 GraphQL entry lists,
 * /docs-json, 40 searches, and 10 s idle. After each phase: resident memory
 * (VmRSS, and of it anonymous and file-backed from smaps_rollup).
 *
 *   BENCH_SKIP_BUILD=1        reuse dist/ as it is (else `npm run build` first)
 *   MEMORY_CHECKOUTS=a,b      checkouts (each with its dist/ built) run one after another on the same database,
 *                             e.g. this one and a worktree of the code before a lever (default: this checkout);
 *                             `dir@K=V --flag` runs one with environment and Node flags of its own
 *                             (`.,.@MALLOC_ARENA_MAX=2,.@--max-semi-space-size=4`); `stack` runs
 *                             test/bench/stack-floor.mjs instead (the chosen libraries serving one resource, no
 *                             Tally code) with this checkout's start flags, through the phases it can answer:
 *                             the entry lists, gets and GraphQL lists, without sign-in, POSTs, /docs-json or search
 *   MEMORY_RUNS=3             how many times each checkout runs, in turn (default 1)
 *   MEMORY_DETAIL=1           also heap used, external and array buffers after each phase, through a preloaded
 *                             probe (test/bench/memory-probe.mjs) on an IPC channel
 *   MEMORY_GC=1               with MEMORY_DETAIL: Node runs with --expose-gc and the probe collects before
 *                             reading (what is live, not what is waiting); RSS is read before that collection
 *   MEMORY_SNAPSHOTS=<dir>    with MEMORY_DETAIL: a heap snapshot after each phase (writing one grows RSS:
 *                             read the snapshots, not the later phases' RSS)
 *   MEMORY_NODE_OPTIONS=...   Node flags added for Tally (NODE_OPTIONS)
 *   MEMORY_ENV=K=V,K=V        environment added for Tally (MALLOC_ARENA_MAX=2, ...)
 *   MEMORY_CLUSTER=<dir>      keep the seeded database there and reuse it on the next run (else a scratch one)
 *   BENCH_IDLE_SECONDS=10     the idle phase
 *
 * The machine is shared: RSS moves less with load than speed does, but a
 * collection that runs or not before a reading moves it by 5 to 15 MB. Run
 * several times (MEMORY_RUNS) and compare checkouts of one run.
 */
import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { startEmbeddedPostgres } from '../../src/db/embedded-postgres.js';
import { migrateDatabase } from '../../src/db/migrations.js';
import { createLogger } from '../../src/lib/logger.js';
import { startIdentityProvider, type IdentityProvider } from '../helpers/oidc.js';
import { freePort } from '../helpers/server.js';
import { signIn } from '../helpers/sessions.js';

const projectRoot = path.resolve(import.meta.dirname, '../..');
const entryCount = Number(process.env.BENCH_ENTRIES ?? 100_000);
const idleSeconds = Number(process.env.BENCH_IDLE_SECONDS ?? 10);
const runs = Number(process.env.MEMORY_RUNS ?? 1);
const detail = process.env.MEMORY_DETAIL === '1';
const forcedGc = detail && process.env.MEMORY_GC === '1';
const snapshotDirectory = detail && process.env.MEMORY_SNAPSHOTS ? path.resolve(process.env.MEMORY_SNAPSHOTS) : undefined;
/** A checkout to run, with environment of its own (`dir@K=V K=V`: the same code with and without a lever). */
interface Variant {
  label: string;
  /** test/bench/stack-floor.mjs instead of Tally: what the libraries alone hold. */
  stackFloor: boolean;
  directory: string;
  env: Record<string, string>;
  /** Node flags after the start script's (a later V8 flag wins). */
  flags: string[];
}
const assignments = (text: string): Record<string, string> =>
  Object.fromEntries(
    text
      .split(/[\s,]+/)
      .filter((pair) => pair.includes('='))
      .map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]),
  );
const variants: Variant[] = (process.env.MEMORY_CHECKOUTS ?? projectRoot)
  .split(',')
  .map((item) => item.trim())
  .filter((item) => item !== '')
  .map((item) => {
    const [directory = '', env = ''] = item.split('@');
    const flags = env.split(/\s+/).filter((word) => word.startsWith('--'));
    const stackFloor = directory === 'stack';
    return { label: item, stackFloor, directory: stackFloor ? projectRoot : path.resolve(directory), env: assignments(env), flags };
  });
const extraEnv = assignments(process.env.MEMORY_ENV ?? '');

interface Reading {
  phase: string;
  rssKb: number;
  anonymousKb: number;
  fileKb: number;
  heapUsed?: number;
  heapTotal?: number;
  malloced?: number;
  external?: number;
  arrayBuffers?: number;
  /** V8's heap by space: what it has reserved, what is in use, and what is resident. */
  spaces?: Record<string, HeapSpace>;
}

interface HeapSpace {
  size: number;
  used: number;
  physical: number;
}

interface Probed {
  type: 'measured';
  usage: NodeJS.MemoryUsage;
  mallocedMemory: number;
  spaces: Record<string, HeapSpace>;
}

function readKb(pid: number): { rssKb: number; anonymousKb: number; fileKb: number } {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  return { rssKb: field('VmRSS'), anonymousKb: field('RssAnon'), fileKb: field('RssFile') + field('RssShmem') };
}

/** The Node flags `npm start` gives Tally in a checkout (its package's start script). */
function startFlagsOf(directory: string): string[] {
  const start = (JSON.parse(fs.readFileSync(path.join(directory, 'package.json'), 'utf8')) as { scripts?: { start?: string } }).scripts?.start ?? '';
  return (/\bnode ((?:--\S+ )*)bin\/tally\.js\b/.exec(start)?.[1] ?? '').trim().split(' ').filter(Boolean);
}

/** `count` requests, `parallel` at a time; every answer read to its end and its status checked. */
async function requests(count: number, parallel: number, send: (index: number) => Promise<Response>, expect: number): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const index = next++;
      const response = await send(index);
      const body = await response.text();
      if (response.status !== expect) throw new Error(`request ${index}: ${response.status} (expected ${expect}): ${body.slice(0, 500)}`);
    }
  };
  await Promise.all(Array.from({ length: parallel }, worker));
}

interface Seeded {
  databaseUrl: string;
  tenantId: string;
  key: string;
}

async function runPhases(
  { directory: checkout, env: variantEnv, flags: variantFlags, stackFloor }: Variant,
  seeded: Seeded,
  provider: IdentityProvider,
  label: string,
): Promise<Reading[]> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const flags = [
    ...startFlagsOf(checkout),
    ...variantFlags,
    ...(detail ? ['--import', path.join(projectRoot, 'test/bench/memory-probe.mjs')] : []),
    ...(forcedGc ? ['--expose-gc'] : []),
  ];
  const program = stackFloor ? [path.join(projectRoot, 'test/bench/stack-floor.mjs')] : ['dist/cli/main.js', 'serve'];
  const child: ChildProcess = spawn(process.execPath, [...flags, ...program], {
    cwd: checkout,
    env: {
      PATH: process.env.PATH ?? '',
      DATABASE_URL: seeded.databaseUrl,
      POOL_SIZE: '10',
      AUTH_SECRET: randomBytes(32).toString('hex'),
      ENCRYPTION_KEY: randomBytes(32).toString('hex'),
      NODE_ENV: 'production',
      ROLE: 'api',
      LOG_LEVEL: 'warn',
      // The rate limit is on (its upsert is part of a request's cost), far above what the phases send.
      RATE_LIMIT_PER_MINUTE: '9999999',
      PORT: String(port),
      HOST: '127.0.0.1',
      BASE_URL: url,
      ...provider.env,
      ...extraEnv,
      ...variantEnv,
      ...(process.env.MEMORY_NODE_OPTIONS ? { NODE_OPTIONS: process.env.MEMORY_NODE_OPTIONS } : {}),
    },
    stdio: detail ? ['ignore', 'pipe', 'pipe', 'ipc'] : ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  // With LOG_LEVEL=debug in a variant's environment (`.@LOG_LEVEL=debug`): how long each idle collection took.
  const idleCollections: string[] = [];
  child.stdout?.on('data', (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-4000);
    for (const found of chunk.toString().matchAll(/^.*"collected garbage while idle".*$/gm)) {
      const { collections, ms } = JSON.parse(found[0]) as { collections?: number; ms: number };
      idleCollections.push(`${collections ?? 1} in ${ms} ms`);
    }
  });
  child.stderr?.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4000)));
  const pid = child.pid as number;
  const readings: Reading[] = [];
  const probe = (snapshot?: string) =>
    new Promise<Probed>((resolve) => {
      const listener = (message: Probed) => {
        if (message?.type !== 'measured') return;
        child.off('message', listener);
        resolve(message);
      };
      child.on('message', listener);
      child.send({ type: 'measure', gc: forcedGc, snapshot });
    });
  const note = async (phase: string) => {
    const reading: Reading = { phase, ...readKb(pid) };
    if (detail) {
      const snapshot = snapshotDirectory ? path.join(snapshotDirectory, `${label}-${readings.length}-${phase.replace(/\W+/g, '-')}.heapsnapshot`) : undefined;
      const { usage, mallocedMemory, spaces } = await probe(snapshot);
      Object.assign(reading, {
        spaces,
        heapUsed: usage.heapUsed,
        heapTotal: usage.heapTotal,
        malloced: mallocedMemory,
        external: usage.external,
        arrayBuffers: usage.arrayBuffers,
      });
    }
    readings.push(reading);
  };
  try {
    const deadline = Date.now() + 60_000;
    for (;;) {
      if (child.exitCode !== null || Date.now() > deadline) throw new Error(`Tally did not come up:\n${output}`);
      const up = await fetch(`${url}/health`).then(
        (response) => response.ok,
        () => false,
      );
      if (up) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await note('after start');
    if (stackFloor) return await stackFloorPhases(url, seeded, note, readings);

    const keyHeaders = { authorization: `Bearer ${seeded.key}`, 'content-type': 'application/json' };
    const email = `memory-${randomBytes(4).toString('hex')}@example.test`;
    const added = await fetch(`${url}/tenants/${seeded.tenantId}/users`, {
      method: 'POST',
      headers: keyHeaders,
      body: JSON.stringify({ email, role: 'manager', name: 'Memory' }),
    });
    if (added.status !== 201) throw new Error(`adding the member: ${added.status} ${await added.text()}`);
    const person = await signIn({ url }, provider, { email });
    const headers = { cookie: person.cookie, origin: url, 'content-type': 'application/json' };
    await note('sign-in');

    await entryListsAndGets(url, seeded, headers, note);

    await requests(
      200,
      4,
      (index) => fetch(`${url}/tenants/${seeded.tenantId}/notes`, { method: 'POST', headers, body: JSON.stringify({ content: `memory note ${index}` }) }),
      201,
    );
    await note('200 note POSTs');

    await graphqlEntryLists(url, seeded, headers, note, 'id startedAt durationMinutes description project { name }');

    await requests(1, 1, () => fetch(`${url}/docs-json`, { headers }), 200);
    await note('/docs-json');

    const words = ['meeting', 'review', 'plan', 'zeppelinometer', 'zeppel', 'call', 'design', 'report'];
    await requests(40, 2, (index) => fetch(`${url}/tenants/${seeded.tenantId}/search?q=${words[index % words.length]}`, { headers }), 200);
    await note('40 searches');

    await new Promise((resolve) => setTimeout(resolve, idleSeconds * 1000));
    await note(`${idleSeconds} s idle`);
    if (idleCollections.length > 0) process.stdout.write(`idle collections (collections in a row, and the time they took): ${idleCollections.join(', ')}\n`);
    return readings;
  } catch (error) {
    process.stderr.write(`\n--- Tally's last output ---\n${output}\n`);
    throw error;
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) => (child.exitCode === null ? child.once('exit', resolve) : resolve(undefined)));
  }
}

type Note = (phase: string) => Promise<void>;

/** 200 REST entry lists of 50, then 200 gets of those entries. */
async function entryListsAndGets(url: string, seeded: Seeded, headers: Record<string, string>, note: Note): Promise<void> {
  const entries = `${url}/tenants/${seeded.tenantId}/entries`;
  await requests(200, 4, () => fetch(`${entries}?limit=50`, { headers }), 200);
  await note('200 entry lists');

  const ids = ((await (await fetch(`${entries}?limit=200`, { headers })).json()) as { id: string }[]).map((entry) => entry.id);
  await requests(200, 4, (index) => fetch(`${entries}/${ids[index % ids.length]}`, { headers }), 200);
  await note('200 entry gets');
}

/** 200 GraphQL lists of 50 entries with these fields. */
async function graphqlEntryLists(url: string, seeded: Seeded, headers: Record<string, string>, note: Note, fields: string): Promise<void> {
  const query = JSON.stringify({ query: `query ($t: ID!) { entries(tenantId: $t, limit: 50) { ${fields} } }`, variables: { t: seeded.tenantId } });
  await requests(200, 4, () => fetch(`${url}/graphql`, { method: 'POST', headers, body: query }), 200);
  await note('200 GraphQL entry lists');
}

/** The phases test/bench/stack-floor.mjs can answer: Tally's entry lists, gets and GraphQL lists, then the idle rest. */
async function stackFloorPhases(url: string, seeded: Seeded, note: Note, readings: Reading[]): Promise<Reading[]> {
  const headers = { origin: url, 'content-type': 'application/json' };
  await entryListsAndGets(url, seeded, headers, note);
  // The floor's Entry has no relations and no derived fields.
  await graphqlEntryLists(url, seeded, headers, note, 'id startedAt billable description');
  await new Promise((resolve) => setTimeout(resolve, idleSeconds * 1000));
  await note(`${idleSeconds} s idle`);
  return readings;
}

const mb = (bytesOrKb: number | undefined, unit: 'kb' | 'b' = 'kb'): string =>
  bytesOrKb === undefined ? '-' : (bytesOrKb / (unit === 'kb' ? 1024 : 1024 * 1024)).toFixed(1);

function printReadings(label: string, readings: Reading[]): void {
  const header = [
    'phase',
    'RSS MB',
    '+MB',
    'anon',
    'file',
    ...(detail ? [forcedGc ? 'heap used (gc)' : 'heap used', 'heap total', 'V8 malloc', 'external', 'arrayBuffers'] : []),
  ];
  const rows = readings.map((reading, index) => [
    reading.phase,
    mb(reading.rssKb),
    index === 0 ? '' : mb(reading.rssKb - (readings[index - 1] as Reading).rssKb),
    mb(reading.anonymousKb),
    mb(reading.fileKb),
    ...(detail
      ? [mb(reading.heapUsed, 'b'), mb(reading.heapTotal, 'b'), mb(reading.malloced, 'b'), mb(reading.external, 'b'), mb(reading.arrayBuffers, 'b')]
      : []),
  ]);
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => (row[column] as string).length)));
  const line = (cells: string[]) =>
    cells.map((cell, column) => (column === 0 ? cell.padEnd(widths[column] as number) : cell.padStart(widths[column] as number))).join('  ');
  process.stdout.write(`\n${label}\n${line(header)}\n${rows.map(line).join('\n')}\n`);
  const last = readings.at(-1)?.spaces;
  if (last) {
    // Where heap total exceeds heap used: a space's reserved, used and resident MB at the last reading.
    const spaces = Object.entries(last).filter(([, space]) => space.size > 0);
    process.stdout.write(
      `V8 spaces at "${readings.at(-1)?.phase}" (size / used / resident MB): ${spaces
        .map(([name, space]) => `${name.replace(/_space$/, '')} ${mb(space.size, 'b')} / ${mb(space.used, 'b')} / ${mb(space.physical, 'b')}`)
        .join(', ')}\n`,
    );
  }
}

async function main(): Promise<void> {
  if (process.env.BENCH_SKIP_BUILD !== '1') {
    const build = spawnSync('npm', ['run', '--silent', 'build'], { cwd: projectRoot, stdio: 'inherit' });
    if (build.status !== 0) throw new Error('npm run build failed');
  }
  if (snapshotDirectory) fs.mkdirSync(snapshotDirectory, { recursive: true });
  const kept = process.env.MEMORY_CLUSTER ? path.resolve(process.env.MEMORY_CLUSTER) : undefined;
  const scratch = kept ?? fs.mkdtempSync(path.join(os.tmpdir(), 'tally-memory-'));
  fs.mkdirSync(scratch, { recursive: true });
  fs.chmodSync(scratch, 0o755);
  const log = createLogger('warn');
  const postgres = await startEmbeddedPostgres({ clusterDir: path.join(scratch, 'postgres'), database: 'tally', log, settings: ['max_connections=200'] });
  const provider = await startIdentityProvider();
  try {
    const seededFile = path.join(scratch, 'seeded.json');
    let seeded: Seeded;
    if (fs.existsSync(seededFile)) {
      seeded = { ...(JSON.parse(fs.readFileSync(seededFile, 'utf8')) as Omit<Seeded, 'databaseUrl'>), databaseUrl: postgres.url };
    } else {
      await migrateDatabase(postgres.url, log);
      // Two tenants, as the bench's domain part seeds them: one tenant's 100,000 entries made the seed's invoice
      // drafts overrun their transaction's 5 s on a busy machine.
      const { stdout } = await promisify(execFile)(
        process.execPath,
        ['dist/cli/main.js', 'seed', '--tenants', '2', '--users', '20', '--entries', String(entryCount)],
        { cwd: projectRoot, env: { PATH: process.env.PATH ?? '', DATABASE_URL: postgres.url, LOG_LEVEL: 'warn' }, maxBuffer: 16 * 1024 * 1024 },
      );
      const tenant = /^ {2}seed-\S+ {2}(\S+) {2}(svc_\S+)$/m.exec(stdout);
      if (!tenant) throw new Error(`tally seed printed no tenant:\n${stdout}`);
      seeded = { databaseUrl: postgres.url, tenantId: tenant[1] as string, key: tenant[2] as string };
      if (kept) fs.writeFileSync(seededFile, JSON.stringify({ tenantId: seeded.tenantId, key: seeded.key }));
    }
    process.stdout.write(
      `${entryCount} entries seeded; Node ${process.version}, ${os.cpus().length} CPUs, load average ${os
        .loadavg()
        .map((value) => value.toFixed(1))
        .join(' ')}\n`,
    );
    const finals = new Map<string, number[]>();
    for (let run = 1; run <= runs; run += 1) {
      for (const [index, variant] of variants.entries()) {
        const readings = await runPhases(variant, seeded, provider, `variant${index}-run${run}`);
        printReadings(`${variant.label}, run ${run} (load average ${os.loadavg()[0]?.toFixed(1)})`, readings);
        finals.set(variant.label, [...(finals.get(variant.label) ?? []), (readings.at(-1) as Reading).rssKb]);
      }
    }
    process.stdout.write('\nRSS at the end (MB), per run:\n');
    for (const [label, values] of finals) process.stdout.write(`  ${label}: ${values.map((value) => mb(value, 'kb')).join(', ')}\n`);
  } finally {
    await provider.close();
    await postgres.stop();
    if (!kept) fs.rmSync(scratch, { recursive: true, force: true });
  }
}

await main();
