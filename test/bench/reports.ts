/**
 * The reports part of `npm run bench` (BENCH_ONLY=reports):
 *
 * - `tally seed` of one tenant with BENCH_REPORT_ENTRIES (100,000) entries,
 *   then, one client at a time (median and p99 ms): the one-year summary by
 *   project x week (from the day totals), and by user and by tag (from the
 *   entries themselves);
 * - the detailed CSV and XLSX exports of every entry of that tenant: rows/s,
 *   and how much the API process's RSS grows while it streams (sampled every
 *   20 ms; the body is read as it comes, never held whole);
 * - a second tenant with BENCH_REPORT_BIG_ENTRIES (1,000,000) entries: how
 *   long its seed took, its day, week, member and tag totals, the same
 *   summaries, those by user and by tag again from the entries (in Etc/UTC,
 *   the tenant's UTC under another name: what they read before the member
 *   and tag totals), and the EXPLAIN (ANALYZE, BUFFERS) of the summary's
 *   statement as the API builds and runs it (BENCH_REPORT_BIG_ENTRIES=0
 *   leaves this out);
 * - on that tenant, an entry POST (two tags, a project), one client at a
 *   time, in alternating rounds with the member and tag totals (week and day
 *   rows) kept and with their upserts replaced by an empty function: what
 *   keeping them costs a write (BENCH_REPORT_WRITE_ROUNDS rounds of 40 each, default 6).
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { promisify } from 'node:util';
import pg from 'pg';
import { systemActor } from '../../src/auth/actor.js';
import { systemAccess, type TenantRecord } from '../../src/auth/tenant-access.js';
import { startOfDay } from '../../src/lib/time.js';
import type { ReportDimension } from '../../src/modules/insight/report/report.contract.js';
import { summarySourceOf, summaryStatement } from '../../src/modules/insight/report/report.sql.js';
import { settingsOf } from '../../src/modules/platform/tenant/tenant.settings.js';

const entryCount = Number(process.env.BENCH_REPORT_ENTRIES ?? 100_000);
const bigEntryCount = Number(process.env.BENCH_REPORT_BIG_ENTRIES ?? 1_000_000);

interface ReportBench {
  databaseUrl: string;
  url: string;
  pid: number;
  projectRoot: string;
}

function rssKb(pid: number): number {
  return Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
}

const day = (daysAgo: number): string => new Date(Date.now() - daysAgo * 86_400_000).toISOString().slice(0, 10);
const format = (value: number, digits = 1): string => (Number.isFinite(value) ? value.toFixed(digits) : '-');

async function seedTenant({ databaseUrl, projectRoot }: ReportBench, users: number, entries: number) {
  const started = performance.now();
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['dist/cli/main.js', 'seed', '--tenants', '1', '--users', String(users), '--entries', String(entries)],
    { cwd: projectRoot, env: { PATH: process.env.PATH ?? '', DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn' }, maxBuffer: 16 * 1024 * 1024 },
  );
  const tenant = /^ {2}seed-\S+ {2}(\S+) {2}(svc_\S+)$/m.exec(stdout);
  if (!tenant) throw new Error(`tally seed printed no tenant:\n${stdout}`);
  return { tenantId: tenant[1] as string, key: tenant[2] as string, seconds: (performance.now() - started) / 1000 };
}

/** Median and p99 of `path`, one request after another, after a warm-up. */
async function latency(url: string, path: string, key: string): Promise<{ p50: number; p99: number; count: number }> {
  const headers = { authorization: `Bearer ${key}` };
  const once = async () => {
    const started = performance.now();
    const response = await fetch(`${url}${path}`, { headers });
    await response.arrayBuffer();
    if (response.status !== 200) throw new Error(`${path}: ${response.status}`);
    return performance.now() - started;
  };
  for (let warm = 0; warm < 3; warm += 1) await once();
  const times: number[] = [];
  const until = performance.now() + 3000;
  while (performance.now() < until || times.length < 20) times.push(await once());
  times.sort((a, b) => a - b);
  const at = (fraction: number) => times[Math.min(times.length - 1, Math.floor(times.length * fraction))] as number;
  return { p50: at(0.5), p99: at(0.99), count: times.length };
}

/** Streams a file export to nowhere, counting lines, and the API process's RSS growth meanwhile. */
async function exportFile({ url, pid }: ReportBench, path: string, key: string) {
  const before = rssKb(pid);
  let peak = before;
  const sampler = setInterval(() => {
    peak = Math.max(peak, rssKb(pid));
  }, 20);
  const started = performance.now();
  const response = await fetch(`${url}${path}`, { headers: { authorization: `Bearer ${key}` } });
  if (response.status !== 200 || !response.body) throw new Error(`${path}: ${response.status}`);
  let bytes = 0;
  let lines = 0;
  const reader = response.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    bytes += value.byteLength;
    for (const byte of value) if (byte === 10) lines += 1;
  }
  const seconds = (performance.now() - started) / 1000;
  clearInterval(sampler);
  return { seconds, bytes, lines, rssGrowthMb: (peak - before) / 1024 };
}

/** The first `wanted` weekday (0: Sunday) from `date` on, going by `step` days. */
const weekday = (date: string, wanted: number, step: 1 | -1): string => {
  let at = Date.parse(`${date}T00:00:00Z`);
  while (new Date(at).getUTCDay() !== wanted) at += step * 86_400_000;
  return new Date(at).toISOString().slice(0, 10);
};

/** A year from a Tuesday to a Saturday: six days at each end outside whole (Monday) weeks. */
const unevenYear = { from: weekday(day(364), 2, 1), to: weekday(day(0), 6, -1) };

async function summaries(bench: ReportBench, tenantId: string, key: string, label: string, { fromEntries = false } = {}): Promise<void> {
  const period = `from=${day(364)}&to=${day(0)}`;
  const queries = [
    ['project x week', 'groupBy=project&subGroupBy=week'],
    ['user', 'groupBy=user'],
    ['tag', 'groupBy=tag'],
  ] as const;
  // The seed's tenants count in UTC: Etc/UTC is the same zone under another name, which reads the entries.
  const asked = fromEntries
    ? queries.filter(([name]) => name !== 'project x week').map(([name, query]) => [`${name}, from the entries`, `${query}&timezone=Etc/UTC`] as const)
    : queries;
  for (const [name, query] of asked) {
    const { p50, p99, count } = await latency(bench.url, `/tenants/${tenantId}/reports/summary?${period}&${query}`, key);
    process.stdout.write(
      `  ${`${label}: one-year summary by ${name}`.padEnd(52)} ${format(p50).padStart(7)} ${format(p99).padStart(7)}  (${count} requests)\n`,
    );
  }
  if (fromEntries) return;
  // The member and tag totals' worst period: from a Tuesday to a Saturday (Monday weeks), six days at each end read
  // from their day rows.
  const uneven = `from=${unevenYear.from}&to=${unevenYear.to}`;
  for (const name of ['user', 'tag'] as const) {
    const { p50, p99, count } = await latency(bench.url, `/tenants/${tenantId}/reports/summary?${uneven}&groupBy=${name}`, key);
    process.stdout.write(
      `  ${`${label}: Tuesday to Saturday, by ${name}`.padEnd(52)} ${format(p50).padStart(7)} ${format(p99).padStart(7)}  (${count} requests)\n`,
    );
  }
}

/**
 * Entry POSTs into the big tenant, one at a time, in rounds that alternate keeping the member and tag totals and not
 * keeping them (their upsert function replaced by an empty one, then put back and the tenant's rows rebuilt).
 */
async function entryWrites(bench: ReportBench, database: pg.Client, tenantId: string, key: string): Promise<void> {
  const rounds = Number(process.env.BENCH_REPORT_WRITE_ROUNDS ?? 6);
  const perRound = 40;
  const [{ definition }] = (
    await database.query(`SELECT pg_get_functiondef('entry_dimension_week_totals_apply(entries[], entries[])'::regprocedure) AS definition`)
  ).rows as [{ definition: string }];
  const [{ projectId }] = (await database.query(`SELECT id AS "projectId" FROM projects WHERE "tenantId" = $1 ORDER BY id LIMIT 1`, [tenantId])).rows as [
    { projectId: string },
  ];
  // An API key writes for a member it names.
  const [{ tenantUserId }] = (
    await database.query(`SELECT id AS "tenantUserId" FROM tenant_users WHERE "tenantId" = $1 AND status = 'active' ORDER BY id LIMIT 1`, [tenantId])
  ).rows as [{ tenantUserId: string }];
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  let written = 0;
  const post = async () => {
    // A day of the last year, at 07:00 UTC plus a minute per write: no two of them overlap for the key's member.
    written += 1;
    const startedAt = new Date(Date.parse(`${day(1 + (written % 360))}T07:00:00Z`) + written * 60_000);
    const body = JSON.stringify({
      tenantUserId,
      startedAt: startedAt.toISOString(),
      endedAt: new Date(startedAt.getTime() + 30 * 60_000).toISOString(),
      projectId,
      tags: ['bench', `tag-${written % 7}`],
    });
    const started = performance.now();
    const response = await fetch(`${bench.url}/tenants/${tenantId}/entries`, { method: 'POST', headers, body });
    const answer = await response.text();
    if (response.status !== 201) throw new Error(`entry POST: ${response.status} ${answer}`);
    return performance.now() - started;
  };
  const times = { kept: [] as number[], notKept: [] as number[] };
  try {
    for (let warm = 0; warm < 10; warm += 1) await post();
    for (let round = 0; round < 2 * rounds; round += 1) {
      const keep = round % 2 === 0;
      await database.query(
        keep
          ? definition
          : `CREATE OR REPLACE FUNCTION entry_dimension_week_totals_apply(added entries[], removed entries[]) RETURNS void LANGUAGE plpgsql AS $$ BEGIN END $$`,
      );
      for (let index = 0; index < perRound; index += 1) (keep ? times.kept : times.notKept).push(await post());
    }
  } finally {
    await database.query(definition);
    await database.query('SELECT entry_dimension_week_totals_rebuild($1)', [tenantId]);
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;
  const [kept, notKept] = [median(times.kept), median(times.notKept)];
  process.stdout.write(
    `  entry POST (2 tags), one client, ${rounds} alternating rounds of ${perRound} each way (median ms): ` +
      `member and tag totals kept ${format(kept, 2)}, not kept ${format(notKept, 2)}; ratio ${format(kept / notKept, 3)}\n`,
  );
}

export async function measureReports(bench: ReportBench): Promise<void> {
  const database = new pg.Client({ connectionString: bench.databaseUrl });
  await database.connect();
  try {
    const small = await seedTenant(bench, 50, entryCount);
    process.stdout.write(`\nreports: tally seed of ${entryCount} entries in ${format(small.seconds)} s; one client at a time (median, p99, ms):\n`);
    await summaries(bench, small.tenantId, small.key, `${entryCount / 1000}k`);

    const [{ finished }] = (
      await database.query(`SELECT count(*)::int AS finished FROM entries WHERE "tenantId" = $1 AND "endedAt" IS NOT NULL`, [small.tenantId])
    ).rows as [{ finished: number }];
    const everything = `from=${day(3 * 365)}&to=${day(0)}`;
    for (const type of ['csv', 'xlsx'] as const) {
      const result = await exportFile(bench, `/tenants/${small.tenantId}/reports/detailed?${everything}&format=${type}`, small.key);
      const rows = type === 'csv' ? result.lines - 1 : finished;
      if (type === 'csv' && rows !== finished) throw new Error(`the CSV has ${rows} rows, the tenant ${finished} finished entries`);
      process.stdout.write(
        `  detailed ${type.toUpperCase()} export: ${rows} rows in ${format(result.seconds, 2)} s = ${format(rows / result.seconds, 0)} rows/s, ` +
          `${format(result.bytes / 1024 / 1024)} MB, API RSS +${format(result.rssGrowthMb)} MB\n`,
      );
    }

    if (bigEntryCount === 0) return;
    const big = await seedTenant(bench, 200, bigEntryCount);
    process.stdout.write(`  tally seed of ${bigEntryCount} entries in one tenant: ${format(big.seconds)} s\n`);
    // A database in service has vacuumed what it wrote and written it out: without this, autovacuum and the
    // checkpointer work through the million new entries while the summaries are timed, on the same two cores.
    await database.query('VACUUM (ANALYZE)');
    await database.query('CHECKPOINT');
    const { rows: totals } = await database.query(
      `SELECT (SELECT count(*)::int FROM entry_day_totals WHERE "tenantId" = $1) AS days, (SELECT count(*)::int FROM entry_week_totals WHERE "tenantId" = $1) AS weeks,
              (SELECT count(*)::int FROM entry_dimension_week_totals WHERE "tenantId" = $1 AND dimension = 'user' AND week > $2::date - 371) AS "memberYear",
              (SELECT count(*)::int FROM entry_dimension_week_totals WHERE "tenantId" = $1 AND dimension = 'tag' AND week > $2::date - 371) AS "tagYear",
              (SELECT count(*)::int FROM entry_dimension_day_totals WHERE "tenantId" = $1) AS "dimensionDays"`,
      [big.tenantId, day(0)],
    );
    process.stdout.write(
      `  its entry_day_totals rows: ${totals[0]?.days}; entry_week_totals rows: ${totals[0]?.weeks}; ` +
        `entry_dimension_week_totals rows of the year's weeks: ${totals[0]?.memberYear} by member, ${totals[0]?.tagYear} by tag; ` +
        `entry_dimension_day_totals rows: ${totals[0]?.dimensionDays}\n`,
    );
    await summaries(bench, big.tenantId, big.key, `${bigEntryCount / 1_000_000}M`);
    await summaries(bench, big.tenantId, big.key, `${bigEntryCount / 1_000_000}M`, { fromEntries: true });

    // The plans of the grouped statements behind the 1M project x week and user summaries, built as the API builds them.
    const [tenant] = (await database.query(`SELECT id, name, slug, status, settings FROM tenants WHERE id = $1`, [big.tenantId])).rows as [TenantRecord];
    const access = systemAccess(tenant, systemActor('bench'));
    const settings = settingsOf({ settings: tenant.settings as never });
    const rangeOf = (from: string, to: string) => ({
      from,
      to,
      timezone: settings.timezone,
      fromInstant: startOfDay(from, settings.timezone),
      toInstant: startOfDay(new Date(Date.parse(`${to}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10), settings.timezone),
      settings,
    });
    for (const [dimensions, range] of [
      [['project', 'week'], rangeOf(day(364), day(0))],
      [['user'], rangeOf(day(364), day(0))],
      [['user'], rangeOf(unevenYear.from, unevenYear.to)],
    ] satisfies [ReportDimension[], ReturnType<typeof rangeOf>][]) {
      const source = summarySourceOf(access, range, dimensions, {});
      const { text, values } = summaryStatement(access, source, range, {}, dimensions, { rollUp: true });
      // As the API runs it (Sql.queryLarge): with work_mem raised for the statement, and without parallel workers over the totals.
      await database.query(`BEGIN READ ONLY; SET LOCAL work_mem = '32MB'${source.parallel ? '' : '; SET LOCAL max_parallel_workers_per_gather = 0'}`);
      const plan = await database.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS) ${text}`, values);
      await database.query('COMMIT');
      process.stdout.write(
        `  EXPLAIN (ANALYZE, BUFFERS) of the grouped statement (${dimensions.join(' x ')}, 1M, ${range.from} to ${range.to}, from ${source.reads}):\n`,
      );
      process.stdout.write(`${plan.rows.map((row) => `    ${row['QUERY PLAN']}`).join('\n')}\n`);
    }
    await entryWrites(bench, database, big.tenantId, big.key);
  } finally {
    await database.end();
  }
}
