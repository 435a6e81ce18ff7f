/**
 * Instants mean the same whatever the time zones around them. Tally runs as
 * its own process with TZ=America/New_York, on a database whose sessions are
 * in Asia/Tokyo, for a tenant in Europe/Berlin: every instant written through
 * REST and GraphQL is stored as that instant (read back by another client,
 * not only by Tally), and comes back the same through REST, GraphQL, the
 * reports (days in the tenant's zone, or the one asked for), the CSV export,
 * search and the change feed's `from`/`to`.
 *
 * The two entries sit where the zones disagree on the day: the first started
 * 23:30 UTC on 10 March (11 March in Berlin and Tokyo), the second 22:45 UTC
 * on 11 March (11 March in Berlin, 12 March in Tokyo).
 */
import { parse } from 'csv-parse/sync';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runStatement } from '../src/db/statement.js';
import { daysAgo, testClock, testClockEnvironment } from './helpers/clock.js';
import { runCli } from './helpers/cli.js';
import { createTestDatabase, type TestDatabase } from './helpers/database.js';
import { download } from './helpers/files.js';
import { apiClient, type ApiClient, type Json } from './helpers/http.js';
import { startIdentityProvider, type IdentityProvider } from './helpers/oidc.js';
import { startTallyProcess, type TallyProcess } from './helpers/processes.js';
import { uniqueSlug } from './helpers/seed.js';
import { signIn, uniqueEmail, type SignedIn } from './helpers/sessions.js';
import { testSecrets } from './helpers/server.js';

const processZone = 'America/New_York';
const databaseZone = 'Asia/Tokyo';
const tenantZone = 'Europe/Berlin';

const first = { startedAt: '2026-03-10T23:30:00.123Z', endedAt: '2026-03-11T00:15:00.123Z' };
// The second is sent with New York's offset, and GraphQL; it is 22:45 to 00:15 UTC.
const second = { startedAt: '2026-03-11T18:45:00-04:00', endedAt: '2026-03-11T20:15:00-04:00' };
const utc = (instant: string): string => new Date(instant).toISOString();

let provider: IdentityProvider;
let database: TestDatabase;
/** Another client of the database, in the database's zone: what is stored, not what Tally reads back. */
let inspector: pg.Client;
let tally: TallyProcess;
let tenantId: string;
let apiKey: string;
let admin: ApiClient;
let member: SignedIn;
let memberId: string;
const created: { first?: Json; second?: Json } = {};
/** Before and after the entries were written, by this process's clock. */
let writtenFrom: number;
let writtenTo: number;

beforeAll(async () => {
  provider = await startIdentityProvider();
  database = await createTestDatabase();
  await runStatement(database.url, `ALTER DATABASE ${pg.escapeIdentifier(database.name)} SET timezone TO '${databaseZone}'`);
  inspector = new pg.Client({ connectionString: database.url });
  await inspector.connect();

  const cliEnv = { DATABASE_URL: database.url, TZ: processZone, LOG_LEVEL: 'warn', ...testSecrets, ...testClockEnvironment() };
  const slug = uniqueSlug();
  const tenant = await runCli(['tenant', 'create', '--name', 'Zones', '--slug', slug], cliEnv);
  expect(tenant.code, tenant.output).toBe(0);
  tenantId = /\(([0-9a-f-]{36})\)/.exec(tenant.output)?.[1] as string;
  const key = await runCli(['api-key', 'create', '--tenant', slug, '--name', 'zones', '--expires-in-days', '30'], cliEnv);
  expect(key.code, key.output).toBe(0);
  const stored = await inspector.query<{ expires: string }>(
    'SELECT (extract(epoch FROM "expiresAt") * 1000)::bigint::text AS expires FROM api_keys WHERE "tenantId" = $1',
    [tenantId],
  );
  // What the CLI printed is what is stored: 30 days from now (the test clock's, which the CLI runs on), not 30 days and some hours.
  const printed = /expires (\S+)/.exec(key.output)?.[1] as string;
  expect(Number(stored.rows[0]?.expires)).toBe(Date.parse(printed));
  expect(Math.abs(Date.parse(printed) - (testClock.now().getTime() + 30 * 86_400_000))).toBeLessThan(120_000);

  tally = await startTallyProcess('api', database.url, { TZ: processZone, ...provider.env });
  apiKey = /^(svc_\S+)$/m.exec(key.output)?.[1] as string;
  admin = apiClient(tally.url, { apiKey });
  expect((await admin.patch(`/tenants/${tenantId}`, { settings: { timezone: tenantZone, approvalRequired: false } })).status).toBe(200);
  const email = uniqueEmail('zones');
  const invited = await admin.post<{ id: string }>(`/tenants/${tenantId}/users`, { email, role: 'member' });
  expect(invited.status, invited.text).toBe(201);
  memberId = invited.body.id;
  member = await signIn(tally, provider, { email });

  // The system clock's, not the test clock's: records' own times (createdAt, sessions, events) are stamped by it.
  writtenFrom = Date.now();
  const viaRest = await member.api.post(`/tenants/${tenantId}/entries`, { ...first, tags: ['zonecheck'] });
  expect(viaRest.status, viaRest.text).toBe(201);
  created.first = viaRest.body;
  const viaGraphql = await admin.graphql<{ createEntry: Json }>(
    `mutation ($t: ID!, $input: CreateEntryDto!) { createEntry(tenantId: $t, input: $input) { id startedAt endedAt createdAt updatedAt } }`,
    { t: tenantId, input: { ...second, tenantUserId: memberId, tags: ['zonecheck'] } },
  );
  expect(viaGraphql.body.errors).toBeUndefined();
  created.second = viaGraphql.body.data?.createEntry;
  writtenTo = Date.now();
}, 120_000);

afterAll(async () => {
  await tally?.stop();
  await inspector?.end();
  await database?.drop();
  await provider?.close();
});

/** An instant column of a row as stored: milliseconds since the epoch, whatever the reader's zone. */
async function storedMs(table: string, column: string, id: string): Promise<number> {
  const { rows } = await inspector.query<{ ms: string }>(
    `SELECT (extract(epoch FROM ${pg.escapeIdentifier(column)}) * 1000)::bigint::text AS ms FROM ${pg.escapeIdentifier(table)} WHERE id = $1`,
    [id],
  );
  if (!rows[0]) throw new Error(`no ${table} ${id}`);
  return Number(rows[0].ms);
}

describe(`Tally with TZ=${processZone} on a database in ${databaseZone}`, () => {
  it('runs where the test says: the database answers in Tokyo time', async () => {
    expect((await inspector.query<{ TimeZone: string }>('SHOW timezone')).rows[0]?.TimeZone).toBe(databaseZone);
    const { rows } = await inspector.query<{ text: string }>('SELECT "startedAt"::text AS text FROM entries WHERE id = $1', [created.first?.id]);
    expect(rows[0]?.text).toBe('2026-03-11 08:30:00.123+09');
  });

  it('stores each instant written through REST, GraphQL and sign-in as that instant', async () => {
    const [one, two] = [created.first as Json, created.second as Json];
    expect(await storedMs('entries', 'startedAt', String(one.id))).toBe(Date.parse(first.startedAt));
    expect(await storedMs('entries', 'endedAt', String(one.id))).toBe(Date.parse(first.endedAt));
    expect(await storedMs('entries', 'startedAt', String(two.id))).toBe(Date.parse(second.startedAt));
    expect(await storedMs('entries', 'endedAt', String(two.id))).toBe(Date.parse(second.endedAt));
    // Written by the clock: the application's (Prisma's defaults) and the database's (statement defaults) alike.
    for (const entry of [one, two]) {
      for (const column of ['createdAt', 'updatedAt']) {
        const stored = await storedMs('entries', column, String(entry.id));
        expect(stored).toBe(Date.parse(String(entry[column])));
        expect(stored).toBeGreaterThanOrEqual(writtenFrom - 1000);
        expect(stored).toBeLessThanOrEqual(writtenTo + 1000);
      }
    }
    // better-auth's session, written through Prisma: a week from the sign-in, as /api/auth/session says.
    const session = member.session.session as unknown as { id: string; expiresAt: string };
    const expires = await storedMs('sessions', 'expiresAt', session.id);
    expect(expires).toBe(Date.parse(session.expiresAt));
    expect(Math.abs(expires - (writtenFrom + 7 * 86_400_000))).toBeLessThan(120_000);
  });

  it('reads them back the same through REST and GraphQL', async () => {
    const [one, two] = [created.first as Json, created.second as Json];
    expect([one.startedAt, one.endedAt, one.durationMinutes]).toEqual([first.startedAt, first.endedAt, 45]);
    expect([two.startedAt, two.endedAt]).toEqual([utc(second.startedAt), utc(second.endedAt)]);
    const got = await member.api.get<Json>(`/tenants/${tenantId}/entries/${one.id}`);
    expect([got.body.startedAt, got.body.endedAt, got.body.createdAt]).toEqual([one.startedAt, one.endedAt, one.createdAt]);
    const read = await admin.graphql<{ entry: Json }>('query ($t: ID!, $id: ID!) { entry(tenantId: $t, id: $id) { startedAt endedAt createdAt updatedAt } }', {
      t: tenantId,
      id: two.id,
    });
    expect(read.body.data?.entry).toEqual({ startedAt: two.startedAt, endedAt: two.endedAt, createdAt: two.createdAt, updatedAt: two.updatedAt });
  });

  it('filters entries by days in the tenant’s zone and by instants to the millisecond', async () => {
    const ids = async (query: Record<string, string>) =>
      (await admin.get<Json[]>(`/tenants/${tenantId}/entries`, { query })).body.map((entry) => entry.id).sort();
    const both = [created.first?.id, created.second?.id].sort();
    expect(await ids({ from: '2026-03-11', to: '2026-03-11' })).toEqual(both);
    expect(await ids({ from: '2026-03-10', to: '2026-03-10' })).toEqual([]);
    // The first entry's start, written in Berlin's offset, and a millisecond after it.
    expect(await ids({ from: '2026-03-11T00:30:00.123+01:00' })).toEqual(both);
    expect(await ids({ from: '2026-03-11T00:30:00.124+01:00' })).toEqual([created.second?.id]);
  });

  it('counts each entry on its day in the tenant’s zone, or in the zone a report asks for', async () => {
    const days = async (timezone?: string) => {
      const query = { from: '2026-03-09', to: '2026-03-13', groupBy: 'day', ...(timezone ? { timezone } : {}) };
      const summary = await admin.get<{ groups: { key: string; totals: { entries: number; durationMinutes: number } }[] }>(
        `/tenants/${tenantId}/reports/summary`,
        {
          query,
        },
      );
      expect(summary.status, summary.text).toBe(200);
      return summary.body.groups.map((group) => [group.key, group.totals.entries, group.totals.durationMinutes]);
    };
    // The tenant's own days come from the day totals the database keeps; other zones' from the entries.
    expect(await days()).toEqual([['2026-03-11', 2, 135]]);
    expect(await days(databaseZone)).toEqual([
      ['2026-03-11', 1, 45],
      ['2026-03-12', 1, 90],
    ]);
    expect(await days('UTC')).toEqual([
      ['2026-03-10', 1, 45],
      ['2026-03-11', 1, 90],
    ]);
    const graphql = await admin.graphql<{ reportSummary: { groups: { key: string }[] } }>(
      'query ($t: ID!) { reportSummary(tenantId: $t, from: "2026-03-09", to: "2026-03-13", groupBy: day) { groups { key } } }',
      { t: tenantId },
    );
    expect(graphql.body.data?.reportSummary.groups.map((group) => group.key)).toEqual(['2026-03-11']);
  });

  it('writes local times into the CSV export, and local days into search titles', async () => {
    const { response, bytes } = await download(
      tally.url,
      `/tenants/${tenantId}/reports/detailed`,
      { from: '2026-03-11', to: '2026-03-11', format: 'csv' },
      { authorization: `Bearer ${apiKey}` },
    );
    expect(response.status).toBe(200);
    const rows = parse(bytes, { columns: true }) as Record<string, string>[];
    expect(rows.map((row) => [row.Date, row.Start, row.End, row.Minutes])).toEqual([
      ['2026-03-11', '23:45', '01:15', '90'],
      ['2026-03-11', '00:30', '01:15', '45'],
    ]);
    const found = await admin.get<{ id: string; title: string }[]>(`/tenants/${tenantId}/search`, { query: { q: 'zonecheck' } });
    expect(found.status, found.text).toBe(200);
    expect(found.body.map((result) => result.title)).toEqual(['Entry of 2026-03-11', 'Entry of 2026-03-11']);
  });

  it('seeds entries at the instants the seed means: 7 to 11 in the morning UTC, on the quarter hour', async () => {
    const seeded = await runCli(['seed', '--tenants', '1', '--users', '2', '--entries', '200'], {
      DATABASE_URL: database.url,
      TZ: processZone,
      LOG_LEVEL: 'warn',
      ...testSecrets,
      ...testClockEnvironment(),
    });
    expect(seeded.code, seeded.output).toBe(0);
    const seededTenant = /^\s+seed-\S+\s+([0-9a-f-]{36})\s/m.exec(seeded.output)?.[1];
    const { rows } = await inspector.query<{ entries: number; offTheClock: number; createdNotAtEnd: number }>(
      `SELECT count(*)::int AS entries,
              count(*) FILTER (WHERE extract(hour FROM "startedAt" AT TIME ZONE 'UTC') NOT BETWEEN 7 AND 10
                                  OR extract(minute FROM "startedAt" AT TIME ZONE 'UTC') NOT IN (0, 15, 30, 45))::int AS "offTheClock",
              count(*) FILTER (WHERE "createdAt" <> "endedAt")::int AS "createdNotAtEnd"
         FROM entries WHERE "tenantId" = $1`,
      [seededTenant],
    );
    expect(rows[0]).toEqual({ entries: 200, offTheClock: 0, createdNotAtEnd: 0 });
    // Dated back from the clock's now (the test clock's, which the CLI ran on): two years of work up to it, members
    // who joined 800 days before it, and a week's vacation requested a month ahead (the tenant's zone is UTC).
    const dated = await inspector.query<{ newest: Date; oldest: Date; joined: Date; requested: string }>(
      `SELECT (SELECT max("startedAt") FROM entries WHERE "tenantId" = $1) AS newest,
              (SELECT min("startedAt") FROM entries WHERE "tenantId" = $1) AS oldest,
              (SELECT min("createdAt") FROM tenant_users WHERE "tenantId" = $1) AS joined,
              (SELECT min("startDate")::text FROM absences WHERE "tenantId" = $1 AND status = 'pending') AS requested`,
      [seededTenant],
    );
    const { newest, oldest, joined, requested } = dated.rows[0] as { newest: Date; oldest: Date; joined: Date; requested: string };
    const now = testClock.now().getTime();
    expect(newest.getTime()).toBeLessThanOrEqual(now);
    expect(newest.getTime()).toBeGreaterThan(Date.parse(daysAgo(60)));
    expect(oldest.getTime()).toBeGreaterThanOrEqual(Date.parse(daysAgo(733)));
    expect(Math.abs(joined.getTime() - (now - 800 * 86_400_000))).toBeLessThan(120_000);
    expect(requested).toBe(daysAgo(-30));
  });

  it('gives the change feed’s events their instants, and selects them by `from` and `to` in any offset', async () => {
    const feed = async (query: Record<string, string>) => {
      const page = await admin.get<{ type: string; subjectId: string; timestamp: string; id: string }[]>(`/tenants/${tenantId}/events`, {
        query: { limit: 100, types: 'entry.created', ...query },
      });
      expect(page.status, page.text).toBe(200);
      return page.body;
    };
    const all = await feed({});
    expect(all.map((event) => event.subjectId).sort()).toEqual([created.first?.id, created.second?.id].sort());
    for (const event of all) {
      expect(await storedMs('events', 'createdAt', event.id)).toBe(Date.parse(event.timestamp));
      expect(Date.parse(event.timestamp)).toBeGreaterThanOrEqual(writtenFrom - 1000);
      expect(Date.parse(event.timestamp)).toBeLessThanOrEqual(writtenTo + 1000);
    }
    const [early, late] = [...all].sort((a, b) => Date.parse(a.timestamp) - Date.parse(b.timestamp));
    const inZone = (instant: string, offsetHours: number): string => {
      const shifted = new Date(Date.parse(instant) + offsetHours * 3_600_000).toISOString().slice(0, -1);
      const sign = offsetHours < 0 ? '-' : '+';
      return `${shifted}${sign}${String(Math.abs(offsetHours)).padStart(2, '0')}:00`;
    };
    // The second event's own instant, in Tokyo's and New York's offsets: `from` includes it, `to` does not.
    const at = String(late?.timestamp);
    expect((await feed({ from: inZone(at, 9) })).map((event) => event.id)).toEqual([late?.id]);
    expect((await feed({ from: inZone(at, -4), to: inZone(at, -4) })).map((event) => event.id)).toEqual([]);
    expect((await feed({ to: inZone(at, 9) })).map((event) => event.id)).toEqual(early?.timestamp === at ? [] : [early?.id]);
  });
});
