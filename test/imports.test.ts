/**
 * Imports (CONTRACT.md section 8) against a real server and its workers:
 * each fixture of test/fixtures/imports imports with the counts and minutes
 * its README states, a second import of it imports nothing, a dry run counts
 * exactly what the real run does and writes nothing, a job that fails half
 * way resumes after its last committed batch without duplicates, and bad
 * files and fields are refused with the field named.
 */
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from './helpers/eventually.js';
import { togglCsv } from './helpers/imports.js';
import { startIdentityProvider, type IdentityProvider } from './helpers/oidc.js';
import { seedTeam, seeder, type SeededTenant, type Team } from './helpers/seed.js';
import { startTestServer, type TestServer } from './helpers/server.js';

interface ImportBody {
  id: string;
  status: 'queued' | 'running' | 'done' | 'failed';
  source: string;
  dryRun: boolean;
  counts: { rows: number; imported: number; skipped: number; failed: number };
  errors: { row: number; message: string }[];
  created: { clients: number; projects: number; tasks: number; members: number };
  lastError: string | null;
  createdById: string | null;
  detail?: string;
  code?: string;
}

interface Expected {
  source: string;
  mapping?: Record<string, string>;
  rows: number;
  imported: number;
  skipped: number;
  failed: number;
  minutes: number;
  users: string[];
  clients: string[];
  projects: string[];
  failedRows: number[];
}

const fixtures = path.join(import.meta.dirname, 'fixtures', 'imports');
const expected = JSON.parse(fs.readFileSync(path.join(fixtures, 'expected.json'), 'utf8')) as Record<string, Expected>;
const byCodePoint = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

let provider: IdentityProvider;
let server: TestServer;
let pool: pg.Pool;
let team: Team;

beforeAll(async () => {
  provider = await startIdentityProvider();
  server = await startTestServer({ env: provider.env });
  pool = new pg.Pool({ connectionString: server.databaseUrl, max: 3 });
  team = await seedTeam(server, provider);
});
afterAll(async () => {
  await pool?.end();
  await server?.stop();
  await provider?.close();
});

type Caller = { key: string } | { cookie: string };
const credentials = (caller: Caller): Record<string, string> =>
  'cookie' in caller ? { cookie: caller.cookie, origin: server.url } : { authorization: `Bearer ${caller.key}` };

async function upload(caller: Caller, tenantId: string, file: Buffer | string, fields: Record<string, string>, fileName = 'export.csv') {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  form.append('file', new Blob([typeof file === 'string' ? file : new Uint8Array(file)], { type: 'text/csv' }), fileName);
  const response = await fetch(`${server.url}/tenants/${tenantId}/imports`, { method: 'POST', headers: credentials(caller), body: form });
  const text = await response.text();
  return {
    status: response.status,
    text,
    body: (text ? JSON.parse(text) : undefined) as ImportBody & { errors: { path?: string; row?: number; message: string }[] },
  };
}

async function finished(caller: Caller, tenantId: string, id: string, withinMs = 30_000): Promise<ImportBody> {
  return eventually(async () => {
    const response = await fetch(`${server.url}/tenants/${tenantId}/imports/${id}`, { headers: credentials(caller) });
    const body = (await response.json()) as ImportBody;
    expect(['done', 'failed']).toContain(body.status);
    return body;
  }, withinMs);
}

async function importFixture(tenant: SeededTenant, file: string, extra: Record<string, string> = {}): Promise<ImportBody> {
  const { source, mapping } = expected[file] as Expected;
  const started = await upload(tenant, tenant.id, fs.readFileSync(path.join(fixtures, file)), {
    source,
    timezone: 'Europe/Berlin',
    ...(mapping ? { mapping: JSON.stringify(mapping) } : {}),
    ...extra,
  });
  expect(started.status, started.text).toBe(202);
  expect(started.body).toMatchObject({ status: 'queued', source });
  return finished(tenant, tenant.id, started.body.id);
}

async function tenantState(tenantId: string) {
  const one = async <Row>(text: string): Promise<Row[]> => (await pool.query(text, [tenantId])).rows as Row[];
  const [totals] = await one<{ entries: string; minutes: string | null }>(
    `SELECT count(*) AS entries, sum("durationMinutes") AS minutes FROM entries WHERE "tenantId" = $1`,
  );
  return {
    entries: Number(totals?.entries),
    minutes: Number(totals?.minutes ?? 0),
    clients: (await one<{ name: string }>(`SELECT name FROM clients WHERE "tenantId" = $1`)).map((row) => row.name).sort(byCodePoint),
    projects: (await one<{ name: string }>(`SELECT name FROM projects WHERE "tenantId" = $1`)).map((row) => row.name).sort(byCodePoint),
    people: await one<{ email: string; name: string | null; status: string }>(
      `SELECT u.email, u.name, u.status FROM tenant_users u WHERE u."tenantId" = $1 AND EXISTS (SELECT 1 FROM entries e WHERE e."tenantUserId" = u.id)`,
    ),
    tasks: Number((await one<{ count: string }>(`SELECT count(*) FROM tasks WHERE "tenantId" = $1`))[0]?.count),
  };
}

describe('each source imports its fixture as its README says, and a second import imports nothing', () => {
  for (const file of Object.keys(expected)) {
    it(file, async () => {
      const want = expected[file] as Expected;
      const tenant = await seeder(server, provider).tenant();
      const first = await importFixture(tenant, file);
      expect(first, JSON.stringify(first.errors)).toMatchObject({
        status: 'done',
        counts: { rows: want.rows, imported: want.imported, skipped: want.skipped, failed: want.failed },
      });
      expect(first.errors.map((error) => error.row)).toEqual(want.failedRows);
      for (const error of first.errors) expect(error.message.length).toBeGreaterThan(10);
      const state = await tenantState(tenant.id);
      expect(state.entries).toBe(want.imported);
      expect(state.minutes).toBe(want.minutes);
      expect(state.clients).toEqual(want.clients);
      expect(state.projects).toEqual(want.projects);
      const people = state.people.map((person) => (want.source === 'harvest' ? (person.name ?? '') : person.email)).sort(byCodePoint);
      expect(people).toEqual(want.users);
      // Unknown people are invited; a file without emails gives them placeholder addresses an admin can correct.
      for (const person of state.people) {
        expect(person.status).toBe('invited');
        if (want.source === 'harvest') expect(person.email).toMatch(/^[a-z0-9-]+@import\.invalid$/);
      }
      expect(first.created).toMatchObject({ clients: want.clients.length, projects: want.projects.length, members: want.users.length });

      const second = await importFixture(tenant, file);
      expect(second.counts).toEqual({ rows: want.rows, imported: 0, skipped: want.rows - want.failed, failed: want.failed });
      expect(second.created).toEqual({ clients: 0, projects: 0, tasks: 0, members: 0 });
      const after = await tenantState(tenant.id);
      expect({ entries: after.entries, minutes: after.minutes, tasks: after.tasks }).toEqual({
        entries: state.entries,
        minutes: state.minutes,
        tasks: state.tasks,
      });
    });
  }
});

describe('what an import writes', () => {
  it('reads local times in the given zone, keeps the file’s amounts, and records every entry in the change feed', async () => {
    const tenant = await seeder(server, provider).tenant();
    // History is imported whatever the locked period says.
    expect((await tenant.api.patch(`/tenants/${tenant.id}`, { settings: { lockedUntil: '2026-12-31' } })).status).toBe(200);
    const done = await importFixture(tenant, 'toggl.csv');
    expect(done).toMatchObject({ status: 'done', counts: { imported: 8 } });
    const entries = await tenant.api.get<
      {
        startedAt: string;
        endedAt: string;
        description: string | null;
        billableAmount: string | null;
        hourlyRate: string | null;
        status: string;
        tags: string[];
      }[]
    >(`/tenants/${tenant.id}/entries`, { query: { limit: 200 } });
    // Row 5: 2026-03-04 23:30 to 2026-03-05 01:15 in Berlin (UTC+1 in March).
    const midnight = entries.body.find((entry) => entry.startedAt === '2026-03-04T22:30:00.000Z');
    expect(midnight, JSON.stringify(entries.body.map((entry) => entry.startedAt))).toMatchObject({ endedAt: '2026-03-05T00:15:00.000Z', status: 'approved' });
    // Row 1: 90 min for 135.00 EUR in the file: the amount is kept, the rate is what it makes per hour.
    const first = entries.body.find((entry) => entry.description === 'Homepage wireframes');
    expect(first).toMatchObject({ billableAmount: '135.00', hourlyRate: '90.00', tags: ['design', 'client'] });
    // The feed shows an event once every older transaction in the cluster has ended (other test files share it).
    const feed = await eventually(async () => {
      const read = await tenant.api.get<{ type: string; subjectId: string; data: Record<string, unknown> }[]>(`/tenants/${tenant.id}/events`, {
        query: { limit: 1000 },
      });
      expect(read.body.filter((event) => event.type === 'entry.created')).toHaveLength(done.counts.imported);
      // The import's completion is a transaction after its entries': the feed may show the entries first.
      expect(read.body.map((event) => event.type)).toContain('import.completed');
      return read;
    });
    const types = feed.body.map((event) => event.type);
    // An imported entry's event carries it as every entry event does: ISO instants, amounts as decimal strings.
    const created = feed.body.find((event) => event.type === 'entry.created' && event.data.description === 'Homepage wireframes');
    expect(created?.data).toMatchObject({
      startedAt: '2026-03-02T08:00:00.000Z',
      endedAt: '2026-03-02T09:30:00.000Z',
      billableAmount: '135.00',
      hourlyRate: '90.00',
      status: 'approved',
    });
    expect(types.filter((type) => type === 'entry.created')).toHaveLength(done.counts.imported);
    expect(types).toContain('import.completed');
    expect(types.filter((type) => type === 'client.created')).toHaveLength(2);
  });

  it('imports as drafts when asked, and tells the member who started it when it is done', async () => {
    const admin = team.admin;
    const done = await finished(
      admin,
      team.tenant.id,
      (
        await upload(admin, team.tenant.id, fs.readFileSync(path.join(fixtures, 'kimai.csv')), {
          source: 'kimai',
          entryStatus: 'draft',
          timezone: 'Europe/Berlin',
        })
      ).body.id,
    );
    expect(done).toMatchObject({ status: 'done', createdById: admin.id, counts: { imported: 8 } });
    const { rows } = await pool.query(`SELECT DISTINCT status FROM entries WHERE "tenantId" = $1 AND "importFingerprint" IS NOT NULL`, [team.tenant.id]);
    expect(rows).toEqual([{ status: 'draft' }]);
    const notifications = await eventually(async () => {
      const response = await admin.api.get<{ type: string; title: string; body: string }[]>(`/tenants/${team.tenant.id}/notifications`);
      const found = response.body.filter((notification) => notification.type === 'import.completed');
      expect(found).toHaveLength(1);
      return found;
    });
    expect(notifications[0]).toMatchObject({ title: 'Your import has finished', body: '8 imported, 0 skipped, 1 failed (export.csv)' });
  });

  it('a dry run counts exactly what the real run then does, and writes nothing', async () => {
    const tenant = await seeder(server, provider).tenant();
    const before = await tenantState(tenant.id);
    const dry = await importFixture(tenant, 'harvest.csv', { dryRun: 'true' });
    expect(dry).toMatchObject({ status: 'done', dryRun: true });
    expect(await tenantState(tenant.id)).toEqual(before);
    const { rows: members } = await pool.query(`SELECT count(*)::int AS n FROM tenant_users WHERE "tenantId" = $1`, [tenant.id]);
    expect(members[0].n).toBe(0);
    const real = await importFixture(tenant, 'harvest.csv');
    expect(real.counts).toEqual(dry.counts);
    expect(real.created).toEqual(dry.created);
    expect(real.errors).toEqual(dry.errors);
  });

  it('a file without emails invites each name once, at a placeholder address, and finds them again next time', async () => {
    const tenant = await seeder(server, provider).tenant();
    const header =
      'Date,Client,Project,Project Code,Task,Notes,Hours,Billable?,Invoiced?,Approved?,First Name,Last Name,Roles,Employee?,Billable Rate,Billable Amount,Cost Rate,Cost Amount,Currency,External Reference URL';
    const row = (day: string, first: string) => `${day},,Site,,,notes,"1,0",Yes,No,No,${first},Ng,,Yes,"100,0","100,0",,,Euro - EUR,`;
    const file = [header, row('2026-05-04', 'Zoë'), row('2026-05-05', 'Zoe'), ''].join('\n');
    const first = await finished(tenant, tenant.id, (await upload(tenant, tenant.id, file, { source: 'harvest' })).body.id);
    expect(first).toMatchObject({ status: 'done', counts: { imported: 2 }, created: { members: 1 } });
    const again = `${header}\n${row('2026-05-06', 'Zoe')}\n`;
    const second = await finished(tenant, tenant.id, (await upload(tenant, tenant.id, again, { source: 'harvest' })).body.id);
    expect(second).toMatchObject({ status: 'done', counts: { imported: 1 }, created: { members: 0 } });
    const { rows } = await pool.query(`SELECT email, name FROM tenant_users WHERE "tenantId" = $1`, [tenant.id]);
    expect(rows).toEqual([{ email: 'zoe-ng@import.invalid', name: 'Zoë Ng' }]);
  });

  it('a job that fails half way goes on after its last committed batch: no row twice, none lost', async () => {
    const tenant = await seeder(server, provider).tenant();
    const rows = Array.from({ length: 1200 }, (_, index) => {
      const day = new Date(Date.UTC(2025, 0, 1) + index * 86_400_000).toISOString().slice(0, 10);
      return [
        'Ada',
        'ada@example.com',
        'Acme',
        'Site',
        '',
        index === 700 ? 'the row the database refuses once' : `work ${index}`,
        'Yes',
        day,
        '09:00:00',
        day,
        '10:00:00',
        '01:00:00',
        '',
      ];
    });
    const file = togglCsv(rows);
    // The second batch's transaction fails, as if the database went away in the middle of it.
    await pool.query(`CREATE FUNCTION refuse_once() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.description = 'the row the database refuses once' THEN RAISE EXCEPTION 'simulated failure'; END IF; RETURN NEW; END $$`);
    await pool.query(`CREATE TRIGGER refuse_once BEFORE INSERT ON entries FOR EACH ROW EXECUTE FUNCTION refuse_once()`);
    try {
      const started = await upload(tenant, tenant.id, file, { source: 'toggl', timezone: 'UTC' });
      expect(started.status, started.text).toBe(202);
      await eventually(async () => {
        const { rows: progress } = await pool.query(`SELECT status, "rowsDone", imported, "lastError" FROM imports WHERE id = $1`, [started.body.id]);
        expect(progress[0]).toEqual({ status: 'running', rowsDone: 500, imported: 500, lastError: 'Stopped after row 500; the job retries from there' });
        // The first attempt has failed: the job waits for its retry.
        const { rows: jobs } = await pool.query(`SELECT retry_count FROM pgboss.job WHERE name = 'import.run' AND data->>'importId' = $1`, [started.body.id]);
        expect(jobs[0]?.retry_count).toBeGreaterThan(0);
      }, 20_000);
      await pool.query('DROP TRIGGER refuse_once ON entries');
      const done = await finished(tenant, tenant.id, started.body.id);
      expect(done.counts).toEqual({ rows: 1200, imported: 1200, skipped: 0, failed: 0 });
      expect(done.lastError).toBeNull();
      const state = await tenantState(tenant.id);
      expect(state.entries).toBe(1200);
      expect(state.minutes).toBe(1200 * 60);
    } finally {
      await pool.query('DROP TRIGGER IF EXISTS refuse_once ON entries');
      await pool.query('DROP FUNCTION IF EXISTS refuse_once()');
    }
  });
  it('ends failed, saying how far it got, when its job keeps failing; the same file uploaded again imports the rest', async () => {
    const tenant = await seeder(server, provider).tenant();
    const rows = Array.from({ length: 800 }, (_, index) => {
      const day = new Date(Date.UTC(2025, 0, 1) + index * 86_400_000).toISOString().slice(0, 10);
      const description = index === 600 ? 'the row the database always refuses' : `work ${index}`;
      return ['Ada', 'ada@example.com', 'Acme', 'Site', '', description, 'Yes', day, '09:00:00', day, '10:00:00', '01:00:00', ''];
    });
    const file = togglCsv(rows);
    await pool.query(`CREATE FUNCTION refuse_always() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.description = 'the row the database always refuses' THEN RAISE EXCEPTION 'simulated failure'; END IF; RETURN NEW; END $$`);
    await pool.query(`CREATE TRIGGER refuse_always BEFORE INSERT ON entries FOR EACH ROW EXECUTE FUNCTION refuse_always()`);
    try {
      const started = await upload(tenant, tenant.id, file, { source: 'toggl', timezone: 'UTC' });
      expect(started.status, started.text).toBe(202);
      // Four attempts (the job's retry limit is 3), then the abandoned queue's worker ends the import.
      const failed = await finished(tenant, tenant.id, started.body.id, 90_000);
      expect(failed).toMatchObject({
        status: 'failed',
        counts: { rows: 500, imported: 500, skipped: 0, failed: 0 },
        lastError: expect.stringMatching(/^Stopped after row 500 and gave up .*upload the file again/),
      });
      const { rows: kept } = await pool.query(`SELECT "fileKey" FROM imports WHERE id = $1`, [started.body.id]);
      expect(kept[0].fileKey).toBeNull();
      const { rows: jobs } = await pool.query(`SELECT state, retry_count FROM pgboss.job WHERE name = 'import.run' AND data->>'importId' = $1`, [
        started.body.id,
      ]);
      expect(jobs).toEqual([{ state: 'failed', retry_count: 3 }]);
      await eventually(async () => {
        const events = await tenant.api.get<{ type: string; data: { status: string } }[]>(`/tenants/${tenant.id}/events`, {
          query: { types: 'import.completed', subjectId: started.body.id },
        });
        expect(events.status, events.text).toBe(200);
        expect(events.body.map((event) => [event.type, event.data.status])).toEqual([['import.completed', 'failed']]);
      });

      await pool.query('DROP TRIGGER refuse_always ON entries');
      const again = await upload(tenant, tenant.id, file, { source: 'toggl', timezone: 'UTC' });
      expect(again.status, again.text).toBe(202);
      expect((await finished(tenant, tenant.id, again.body.id)).counts).toEqual({ rows: 800, imported: 300, skipped: 500, failed: 0 });
      expect((await tenantState(tenant.id)).entries).toBe(800);
    } finally {
      await pool.query('DROP TRIGGER IF EXISTS refuse_always ON entries');
      await pool.query('DROP FUNCTION IF EXISTS refuse_always()');
    }
  }, 120_000);
});

describe('bad input is refused with the field named, and nothing is written', () => {
  const toggl = () => fs.readFileSync(path.join(fixtures, 'toggl.csv'));

  it('a file with only its header is done with 0 rows', async () => {
    const tenant = await seeder(server, provider).tenant();
    const headerOnly = fs.readFileSync(path.join(fixtures, 'kimai.csv'), 'utf8').split('\n')[0] as string;
    const started = await upload(tenant, tenant.id, `${headerOnly}\n`, { source: 'kimai' });
    expect(started.status, started.text).toBe(202);
    expect(await finished(tenant, tenant.id, started.body.id)).toMatchObject({ status: 'done', counts: { rows: 0, imported: 0, skipped: 0, failed: 0 } });
  });

  it('20 MiB and one byte is 413', async () => {
    const tenant = await seeder(server, provider).tenant();
    const big = Buffer.alloc(20 * 1024 * 1024 + 1, 'a');
    const refused = await upload(tenant, tenant.id, big, { source: 'toggl' });
    expect(refused.status, refused.text).toBe(413);
    expect(refused.body.code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('a file that is not a CSV is 415; an unknown source, a mapping naming a missing column and a missing mapping are 400', async () => {
    const tenant = await seeder(server, provider).tenant();
    const pdf = await upload(
      tenant,
      tenant.id,
      Buffer.from('%PDF-1.7\n%\xE2\xE3\xCF\xD3\n1 0 obj\n<<>>\nendobj\n', 'latin1'),
      { source: 'toggl' },
      'report.pdf',
    );
    expect(pdf.status, pdf.text).toBe(415);
    const unknown = await upload(tenant, tenant.id, toggl(), { source: 'timely' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors).toEqual([
      expect.objectContaining({ path: 'source', message: expect.stringContaining('toggl, clockify, harvest, kimai, generic') }),
    ]);
    const generic = fs.readFileSync(path.join(fixtures, 'generic.csv'));
    const mapping = { ...(expected['generic.csv'] as Expected).mapping, project: 'Assignment' };
    const missingColumn = await upload(tenant, tenant.id, generic, { source: 'generic', mapping: JSON.stringify(mapping) });
    expect(missingColumn.status, missingColumn.text).toBe(400);
    expect(missingColumn.body.errors).toEqual([expect.objectContaining({ path: 'mapping', message: expect.stringContaining('Assignment') })]);
    const noMapping = await upload(tenant, tenant.id, generic, { source: 'generic' });
    expect(noMapping.status).toBe(400);
    expect(noMapping.body.errors).toEqual([expect.objectContaining({ path: 'mapping' })]);
    const wrongHeader = await upload(tenant, tenant.id, fs.readFileSync(path.join(fixtures, 'kimai.csv')), { source: 'toggl' });
    expect(wrongHeader.status, wrongHeader.text).toBe(400);
    expect(wrongHeader.body.errors).toEqual([expect.objectContaining({ path: 'file' })]);
    const badZone = await upload(tenant, tenant.id, toggl(), { source: 'toggl', timezone: 'Mars/Olympus' });
    expect(badZone.status).toBe(400);
    expect(badZone.body.errors).toEqual([expect.objectContaining({ path: 'timezone' })]);
    const { rows } = await pool.query(`SELECT count(*)::int AS n FROM imports WHERE "tenantId" = $1`, [tenant.id]);
    expect(rows[0].n).toBe(0);
    // Nothing was left in the import files' storage either.
    const stored = path.join(server.app.config.dataDir, 'import-files');
    const files = fs.existsSync(stored) ? fs.readdirSync(stored, { recursive: true }).filter((name) => /[0-9a-f]{64}$/.test(String(name))) : [];
    const waiting = (await pool.query(`SELECT count(*)::int AS n FROM imports WHERE "fileKey" IS NOT NULL`)).rows[0].n;
    expect(files.length).toBeLessThanOrEqual(waiting);
  });

  it('owners and admins import; managers and members are refused; another tenant’s import is a 404', async () => {
    const csv = toggl();
    expect((await upload(team.member, team.tenant.id, csv, { source: 'toggl' })).status).toBe(403);
    expect((await upload(team.manager, team.tenant.id, csv, { source: 'toggl' })).status).toBe(403);
    expect((await team.manager.api.get(`/tenants/${team.tenant.id}/imports`)).status).toBe(403);
    const other = await seeder(server, provider).tenant();
    const theirs = await upload(other, other.id, csv, { source: 'toggl' });
    expect(theirs.status).toBe(202);
    expect((await team.tenant.api.get(`/tenants/${team.tenant.id}/imports/${theirs.body.id}`)).status).toBe(404);
    await finished(other, other.id, theirs.body.id);
  });

  it('GraphQL lists imports with their counts', async () => {
    const tenant = await seeder(server, provider).tenant();
    const done = await importFixture(tenant, 'clockify.csv');
    const response = await tenant.api.graphql<{ imports: { id: string; counts: { imported: number }; errors: { row: number }[] }[] }>(
      'query($tenantId: ID!) { imports(tenantId: $tenantId) { id counts { imported } errors { row } } }',
      { tenantId: tenant.id },
    );
    expect(response.body.errors).toBeUndefined();
    expect(response.body.data?.imports).toEqual([{ id: done.id, counts: { imported: 8 }, errors: [{ row: 7 }] }]);
  });
});
