/**
 * How long a member's working-time violations of a year take (issue 39:
 * under 50 ms p50 with 100,000 entries in the tenant), and the team's month.
 * Not part of `npm test`: `npx tsx test/bench/working-time.ts` starts Tally on
 * an embedded database of its own (a temporary DATA_DIR), seeds one tenant
 * with BENCH_WORKING_TIME_ENTRIES (100,000) finished entries over two years
 * among BENCH_WORKING_TIME_MEMBERS (200) members (one of them with a tenth),
 * rules `de`, then times the service calls and the REST routes (one after
 * another, after a warm-up; median and p99 ms), an entry write with the
 * rules `de` against the same write with `none` (the check's cost on the
 * write path, in alternating rounds), and prints the plan of the entries
 * statement. `npm run bench` runs it as its part `working-time`.
 *
 * Tally runs here as `ROLE=api`, and the writes' outbox reactions (the
 * violations' events and the managers' notifications) in a worker process of
 * its own (`tally serve --role worker` on the same database), as a deployment
 * runs them: the reaction's statements still load the same database, but no
 * longer the API's event loop. BENCH_WORKING_TIME_ROLE=all runs both in this
 * one process instead (as `npm start` does). BENCH_WORKING_TIME_WORKER=off
 * starts no worker at all: the writes' events wait, and the ratio is the
 * request path's alone.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { systemActor } from '../../src/auth/actor.js';
import { systemAccess } from '../../src/auth/tenant-access.js';
import type { SqlClient } from '../../src/db/client.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/lib/logger.js';
import { startTally } from '../../src/main.js';
import { settingsOf } from '../../src/modules/platform/tenant/tenant.settings.js';
import { violationsOnDays } from '../../src/modules/time/working-time/working-time.days.js';

const entryCount = Number(process.env.BENCH_WORKING_TIME_ENTRIES ?? 100_000);
const memberCount = Number(process.env.BENCH_WORKING_TIME_MEMBERS ?? 200);
const runs = 50;
/** Alternating rounds of 5 writes per side (BENCH_WORKING_TIME_ROUNDS): more rounds, a steadier median on a shared machine. */
const writeRounds = Number(process.env.BENCH_WORKING_TIME_ROUNDS ?? 24);
const role = process.env.BENCH_WORKING_TIME_ROLE === 'all' ? 'all' : 'api';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tally-bench-working-time-'));
fs.chmodSync(dataDir, 0o777);
const config = loadConfig({
  NODE_ENV: 'development',
  PORT: '0',
  DATA_DIR: dataDir,
  RATE_LIMIT_PER_MINUTE: '0',
  LOG_LEVEL: 'warn',
  ROLE: role,
});
const tally = await startTally({ config, log: createLogger('warn'), bootstrap: false });
try {
  const app = tally.app;
  if (!app || !tally.url) throw new Error('no API in this process');
  const actor = systemActor('bench');
  const tenant = await app.services.tenants.create(actor, {
    name: 'Working-time bench',
    slug: `working-time-${Date.now()}`,
    settings: { timezone: 'Europe/Berlin', holidayRegion: 'DE-BY' },
  });
  const access = systemAccess(tenant, actor);
  const members = [];
  for (let index = 0; index < memberCount; index++)
    members.push(await app.services.users.invite(access, { email: `bench-${index}@example.com`, role: 'member' }));
  const [measured, heavy] = members as [(typeof members)[number], (typeof members)[number]];

  // Entries: the heavy member has a tenth of them, the others share the rest; 2026 and 2027, 07:00 UTC on, 30 to 600 minutes.
  const client = new pg.Client({ connectionString: tally.databaseUrl });
  // The server stops under it at the end (or on a failure): that is no news.
  client.on('error', () => undefined);
  await client.connect();
  const started = performance.now();
  await client.query(
    `INSERT INTO entries (id, "tenantId", "tenantUserId", "startedAt", "endedAt", "durationMinutes", "updatedAt")
     SELECT uuidv7()::text, $1, CASE WHEN n % 10 = 0 THEN $2 ELSE ($3::text[])[1 + n % ($5::int - 1)] END,
            start, start + make_interval(mins => 30 + n % 571), 30 + n % 571, now()
       FROM generate_series(1, $4::int) AS n,
            LATERAL (SELECT timestamptz '2026-01-01 07:00Z' + make_interval(days => n % 730, mins => (n / 730) % 600) AS start) AS s`,
    [
      tenant.id,
      heavy.id,
      members
        .slice(2)
        .concat([measured])
        .map((member) => member.id),
      entryCount,
      memberCount,
    ],
  );
  // Members who have signed in (the invitations above wait for it).
  await client.query(`UPDATE tenant_users SET status = 'active' WHERE "tenantId" = $1`, [tenant.id]);
  await client.query('ANALYZE entries');
  const seeded = (performance.now() - started) / 1000;
  const { key } = await app.services.apiKeys.create(access, { name: 'bench', expiresInDays: 1 });

  const stats = (samples: number[]) => {
    const sorted = [...samples].sort((a, b) => a - b);
    return `p50 ${sorted[Math.floor(sorted.length / 2)]?.toFixed(1)} ms, p99 ${sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.99) - 1)]?.toFixed(1)} ms`;
  };
  async function samplesOf(count: number, once: () => Promise<unknown>): Promise<number[]> {
    const samples: number[] = [];
    for (let index = 0; index < count; index++) {
      const begun = performance.now();
      await once();
      samples.push(performance.now() - begun);
    }
    return samples;
  }
  async function time(what: string, once: () => Promise<unknown>) {
    for (let index = 0; index < 5; index++) await once();
    console.log(`${what}: ${stats(await samplesOf(runs, once))} (${runs} runs)`);
  }

  console.log(`seeded ${entryCount} entries in ${seeded.toFixed(1)} s`);
  for (const [name, member] of [
    ['a member with a 19th of 90%', measured],
    ['a member with a tenth', heavy],
  ] as const) {
    const input = { tenantId: tenant.id, tenantUserId: member.id, from: '2027-01-01', to: '2027-12-31' };
    const result = await app.services.workingTime.member(access, input);
    await time(`service, a year's violations, ${name} (${result.days.length} days worked, ${result.violations.length} violations)`, () =>
      app.services.workingTime.member(access, input),
    );
    const url = `${tally.url}/tenants/${tenant.id}/users/${member.id}/working-time?from=2027-01-01&to=2027-12-31`;
    await time(`REST, a year's violations, ${name}`, async () => {
      const response = await fetch(url, { headers: { authorization: `Bearer ${key}` } });
      if (response.status !== 200) throw new Error(`${response.status} ${await response.text()}`);
      await response.arrayBuffer();
    });
  }
  const month = { tenantId: tenant.id, from: '2027-03-01', to: '2027-03-31', limit: 200, offset: 0 };
  await time(`service, the team's month (${memberCount} members)`, () => app.services.workingTime.violations(access, month));
  const monthUrl = `${tally.url}/tenants/${tenant.id}/working-time/violations?from=2027-03-01&to=2027-03-31&limit=200`;
  await time(`REST, the team's month (${memberCount} members, a page of 200)`, async () => {
    const response = await fetch(monthUrl, { headers: { authorization: `Bearer ${key}` } });
    if (response.status !== 200) throw new Error(`${response.status} ${await response.text()}`);
    await response.arrayBuffer();
  });

  // An entry write with the check on against the same write without it, under `de` and `none` in 24 (BENCH_WORKING_TIME_ROUNDS) alternating
  // rounds of 5 (short rounds: the shared machine's load changes by the minute, and both sides see it), one day each from 2028 on: a compliant day (8:45 with a 45-minute break) and a 9-hour day without a
  // break (it breaks §4: the answer warns, and the event and its notifications follow).
  const writer = members[2] ?? measured;
  let day = Date.UTC(2028, 0, 3);
  const writeDay = async (minutes: number, breakMinutes: number) => {
    const startedAt = new Date(day + 8 * 3600_000);
    day += 24 * 3600_000;
    // Mondays to Fridays (a five-day week of 9 hours, 45 h): a member inside the averages, whose writes the outbox
    // reaction judges from the days around them; BENCH_WORKING_TIME_EVERY_DAY=1 writes all seven (63 h a week,
    // over the averages after a few weeks: the reaction reads the 24 weeks).
    if (process.env.BENCH_WORKING_TIME_EVERY_DAY !== '1') while ([0, 6].includes(new Date(day).getUTCDay())) day += 24 * 3600_000;
    const response = await fetch(`${tally.url}/tenants/${tenant.id}/entries`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        tenantUserId: writer.id,
        startedAt: startedAt.toISOString(),
        endedAt: new Date(startedAt.getTime() + minutes * 60_000).toISOString(),
        breakMinutes,
      }),
    });
    if (response.status !== 201) throw new Error(`${response.status} ${await response.text()}`);
    await response.arrayBuffer();
  };
  const worker = role === 'api' && process.env.BENCH_WORKING_TIME_WORKER !== 'off' ? await startWorker(tally.databaseUrl) : undefined;
  const kinds = { compliant: () => writeDay(525, 45), 'without a break': () => writeDay(540, 0) };
  const median = (samples: number[]) => [...samples].sort((a, b) => a - b)[Math.floor(samples.length / 2)] as number;
  for (const [kind, write] of Object.entries(kinds)) {
    const writes: Record<'de' | 'none', number[]> = { de: [], none: [] };
    for (let round = 0; round < writeRounds; round++) {
      for (const rules of round % 2 === 0 ? (['de', 'none'] as const) : (['none', 'de'] as const)) {
        await app.services.tenants.update(access, { settings: { workingTimeRules: rules } });
        // One write after the switch is not timed: the tenant's settings just changed.
        await write();
        writes[rules].push(...(await samplesOf(5, write)));
      }
    }
    console.log(
      `REST entry POST, ${kind}, rules de: ${stats(writes.de)}; rules none: ${stats(writes.none)}; de/none at p50 ${(median(writes.de) / median(writes.none)).toFixed(2)} (${writes.de.length} writes each)`,
    );
  }
  await worker?.stop();
  // The write's two parts alone, on the writer's last day: the answer's warnings (the day rules, one statement) and
  // what the outbox reaction checks after the commit (every rule, the averages' 24 weeks of entries included).
  await app.services.tenants.update(access, { settings: { workingTimeRules: 'de' } });
  const lastDay = new Date(day - 24 * 3600_000 + 8 * 3600_000);
  const lastEntry = await app.db.entry.findFirstOrThrow({ where: { tenantUserId: writer.id, endedAt: { not: null } }, orderBy: { startedAt: 'desc' } });
  const written = { ...lastEntry, endedAt: lastEntry.endedAt as Date };
  await time("service, an entry write's warnings after the commit (the day's rules)", () => app.services.workingTime.warnings(access, written));
  const settings = settingsOf(await app.db.tenant.findUniqueOrThrow({ where: { id: tenant.id } }));
  // As the reaction reads: through Prisma, on the outbox transaction's connection.
  const outboxSql: SqlClient = { query: (text, values) => app.db.$queryRawUnsafe(text, ...(values ?? [])) };
  const writtenDays = new Map([[writer.id, new Set([lastDay.toISOString().slice(0, 10)])]]);
  await time("the outbox reaction's check of the day (every rule)", () => violationsOnDays(outboxSql, app.db, access, settings, writtenDays));
  const plan = await client.query(
    `EXPLAIN (ANALYZE, BUFFERS) SELECT e."tenantUserId", u."holidayRegion", e."startedAt", e."endedAt", e."breakMinutes"
       FROM entries e JOIN tenant_users u ON u.id = e."tenantUserId"
      WHERE e."tenantId" = $1 AND e."tenantUserId" = $2 AND e."startedAt" >= '2026-07-15T22:00Z' AND e."startedAt" < '2028-01-01T23:00Z'
        AND e."endedAt" IS NOT NULL ORDER BY e."tenantUserId", e."startedAt"`,
    [tenant.id, heavy.id],
  );
  console.log(plan.rows.map((row) => row['QUERY PLAN']).join('\n'));
  await client.end();
} catch (error) {
  console.error(error);
  process.exitCode = 1;
} finally {
  await tally.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
}

/** A worker process (`tally serve --role worker`) on the bench's database, started when it has said so. */
async function startWorker(databaseUrl: string): Promise<{ stop(): Promise<void> }> {
  // BENCH_WORKING_TIME_WORKER_NICE=10: the worker below the API's CPU priority, as background work on a shared host.
  const niceness = process.env.BENCH_WORKING_TIME_WORKER_NICE;
  const command = [process.execPath, '--import', 'tsx', 'src/cli/main.ts', 'serve', '--role', 'worker'];
  const child = spawn(niceness ? 'nice' : (command[0] as string), niceness ? ['-n', niceness, ...command] : command.slice(1), {
    env: { ...process.env, NODE_ENV: 'development', ROLE: 'worker', DATABASE_URL: databaseUrl, DATA_DIR: dataDir, LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    let output = '';
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (!output.includes('"workers started"')) return;
      child.stdout.off('data', onData);
      child.stdout.resume();
      resolve();
    };
    child.stdout.on('data', onData);
    void exited.then(() => reject(new Error(`the worker exited before it started:\n${output}`)));
  });
  return {
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}
