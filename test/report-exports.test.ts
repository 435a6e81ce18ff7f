/**
 * Report exports (CONTRACT.md section 8): format=csv, xlsx and pdf, each read
 * back with a reader that is not ours (csv-parse, read-excel-file, pdftotext)
 * and compared with the JSON of the same report; who sees amounts; bad
 * formats; and a client leaving mid-export takes its cursor and transaction
 * with it.
 */
import { parse } from 'csv-parse/sync';
import pg from 'pg';
import { readSheet } from 'read-excel-file/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Entry, Problem, Project } from './generated/openapi/types.gen.js';
import { eventually } from './helpers/eventually.js';
import { download as downloadFile, pdfText } from './helpers/files.js';
import type { Json } from './helpers/http.js';
import { startIdentityProvider, type IdentityProvider } from './helpers/oidc.js';
import { seedTeam, type Team } from './helpers/seed.js';
import { startTestServer, type TestServer } from './helpers/server.js';

let provider: IdentityProvider;
let server: TestServer;
let team: Team;
let database: pg.Client;

interface Totals {
  entries: number;
  durationMinutes: number;
  billableMinutes: number;
  billableAmount: string | null;
  costAmount: string | null;
}
interface Summary {
  totals: Totals;
  groups: { label: string; totals: Totals; subGroups?: { label: string; totals: Totals }[] }[];
}

const period = { from: '2026-06-01', to: '2026-06-30' };

beforeAll(async () => {
  provider = await startIdentityProvider();
  server = await startTestServer({ env: provider.env });
  database = new pg.Client({ connectionString: server.databaseUrl });
  await database.connect();
  team = await seedTeam(server, provider, { timezone: 'Europe/Berlin', defaultHourlyRate: '100' });
  const { tenant, member, colleague, admin } = team;
  const t = tenant.id;
  const client = (await admin.api.post<{ id: string }>(`/tenants/${t}/clients`, { name: 'Café "Zürich", GmbH' })).body;
  const project = (await admin.api.post<Project>(`/tenants/${t}/projects`, { name: 'Ünïcode, "quoted"', clientId: client.id })).body;
  const post = async (who: Team['member'], body: Json) => {
    const answer = await who.api.post<Entry>(`/tenants/${t}/entries`, body);
    expect(answer.status, JSON.stringify(answer.body)).toBe(201);
  };
  // 22:30 UTC on 1 June is 00:30 on 2 June in Berlin: the files say the 2nd.
  await post(member, {
    startedAt: '2026-06-01T22:30:00Z',
    endedAt: '2026-06-01T23:37:00Z',
    projectId: project.id,
    description: 'Wrote "the plan", then\nreviewed it; 50% done',
    tags: ['deep', 'work'],
  });
  await post(member, { startedAt: '2026-06-03T08:00:00Z', endedAt: '2026-06-03T09:00:00Z', billable: false });
  await post(colleague, { startedAt: '2026-06-10T12:00:00Z', endedAt: '2026-06-10T14:15:00Z', projectId: project.id, description: 'Kaffee ☕' });
});
afterAll(async () => {
  await database?.end();
  await server?.stop();
  await provider?.close();
});

const download = (route: 'summary' | 'detailed', query: Record<string, string>, headers: Record<string, string>) =>
  downloadFile(server.url, `/tenants/${team.tenant.id}/reports/${route}`, query, headers);
const asAdmin = () => ({ authorization: `Bearer ${team.tenant.key}` });
const asMember = () => ({ cookie: team.member.cookie });

describe('the detailed CSV', () => {
  it('has a header and one line per entry, with local times, names and amounts, quoted where it must be', async () => {
    const { response, bytes } = await download('detailed', { ...period, format: 'csv' }, asAdmin());
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(response.headers.get('content-disposition')).toBe(
      `attachment; filename="tally-entries-2026-06-01-2026-06-30.csv"; filename*=UTF-8''tally-entries-2026-06-01-2026-06-30.csv`,
    );
    const rows = parse(bytes, { columns: true }) as Record<string, string>[];
    const json = (await team.admin.api.get<Json[]>(`/tenants/${team.tenant.id}/reports/detailed`, { query: period })).body;
    expect(rows).toHaveLength(json.length);
    expect(
      rows.map((row) => [row.Date, row.Start, row.End, row.Minutes, row.Member, row.Client, row.Project, row.Description, row['Billable amount']]),
    ).toEqual([
      ['2026-06-10', '14:00', '16:15', '135', json[0]?.memberName, 'Café "Zürich", GmbH', 'Ünïcode, "quoted"', 'Kaffee ☕', '225'],
      ['2026-06-03', '10:00', '11:00', '60', json[1]?.memberName, '', '', '', '0'],
      [
        '2026-06-02',
        '00:30',
        '01:37',
        '67',
        json[2]?.memberName,
        'Café "Zürich", GmbH',
        'Ünïcode, "quoted"',
        'Wrote "the plan", then\nreviewed it; 50% done',
        '111.67',
      ],
    ]);
    expect(rows[2]).toMatchObject({ Tags: 'deep, work', Billable: 'yes', Status: 'draft', 'Hourly rate': '100', Currency: 'EUR', Hours: '1.12' });
    expect(rows.map((row) => row['Billable amount'])).toEqual(json.map((row) => String(Number(row.billableAmount))));
  });

  it('leaves amounts out for a member, who sees their own entries only', async () => {
    const { response, bytes } = await download('detailed', { ...period, format: 'csv' }, asMember());
    expect(response.status).toBe(200);
    const rows = parse(bytes, { columns: true }) as Record<string, string>[];
    expect(rows.map((row) => [row.Date, row['Hourly rate'], row['Billable amount'], row['Cost rate'], row['Cost amount']])).toEqual([
      ['2026-06-03', '', '', '', ''],
      ['2026-06-02', '', '', '', ''],
    ]);
  });
});

describe('the summary as files', () => {
  const query = { ...period, groupBy: 'project', subGroupBy: 'week' };

  it('is a spreadsheet with the JSON’s groups and totals as numbers', async () => {
    const summary = (await team.admin.api.get<Summary>(`/tenants/${team.tenant.id}/reports/summary`, { query })).body;
    const { response, bytes } = await download('summary', { ...query, format: 'xlsx' }, asAdmin());
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
    expect(response.headers.get('content-disposition')).toContain('filename="tally-summary-2026-06-01-2026-06-30.xlsx"');
    const sheet = await readSheet(bytes);
    const headerAt = sheet.findIndex((row) => row[0] === 'Group');
    expect(sheet[0]?.[0]).toBe('Summary report');
    expect(sheet.slice(1, headerAt).map((row) => row[0])).toContain('Period: 2026-06-01 to 2026-06-30 (Europe/Berlin)');
    expect(sheet[headerAt]).toEqual(['Group', 'Sub-group', 'Entries', 'Minutes', 'Hours', 'Billable minutes', 'Billable amount', 'Cost amount']);
    const body = sheet.slice(headerAt + 1);
    const expected = summary.groups.flatMap((group) => [
      [group.label, null, group.totals],
      ...(group.subGroups ?? []).map((sub) => [group.label, sub.label, sub.totals] as const),
    ]);
    expected.push(['Total', null, summary.totals]);
    expect(body).toEqual(
      expected.map(([group, sub, totals]) => {
        const t = totals as Totals;
        return [
          group,
          sub,
          t.entries,
          t.durationMinutes,
          Math.round((t.durationMinutes / 60) * 100) / 100,
          t.billableMinutes,
          Number(t.billableAmount),
          Number(t.costAmount),
        ];
      }),
    );
    // Numbers, not text that looks like one.
    for (const row of body) for (const cell of row.slice(2)) expect(typeof cell).toBe('number');
    expect(body.at(-1)?.slice(0, 4)).toEqual(['Total', null, 3, 262]);
  });

  it('is a readable PDF with the tenant, the period, the groups, the totals and page numbers', async () => {
    const { response, bytes } = await download('summary', { ...query, format: 'pdf', billable: 'true' }, asAdmin());
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/pdf');
    const text = await pdfText(bytes);
    const summary = (await team.admin.api.get<Summary>(`/tenants/${team.tenant.id}/reports/summary`, { query: { ...query, billable: true } })).body;
    expect(summary.totals.durationMinutes).toBe(202);
    expect(text).toContain('Summary report');
    expect(text).toContain(`Tenant: ${(await team.admin.api.get<{ name: string }>(`/tenants/${team.tenant.id}`)).body.name}`);
    expect(text).toContain('Period: 2026-06-01 to 2026-06-30 (Europe/Berlin)');
    expect(text).toContain('Filters: billable = true');
    expect(text).toContain('Week of 2026-06-08');
    expect(text).toMatch(/Total\s+2\s+202\s+3\.37\s+202\s+336\.67\s+0\n/);
    expect(text).toContain('Page 1');
  });

  it('numbers every page of a long PDF', async () => {
    await database.query(
      `INSERT INTO entries (id, "tenantId", "tenantUserId", "startedAt", "endedAt", "durationMinutes", description, "updatedAt")
       SELECT gen_random_uuid()::text, $1, $2, ts, ts + interval '30 minutes', 30, 'July entry ' || n, now()
         FROM generate_series(1, 150) n, LATERAL (SELECT timestamp '2026-07-01 08:00' + n * interval '1 hour' AS ts) s`,
      [team.tenant.id, team.colleague.id],
    );
    const { response, bytes } = await download('detailed', { from: '2026-07-01', to: '2026-07-31', format: 'pdf' }, asAdmin());
    expect(response.status).toBe(200);
    const text = await pdfText(bytes);
    expect(text.match(/July entry \d+/g)).toHaveLength(150);
    const pages = text.split('\f').filter((page) => page.trim() !== '');
    expect(pages.length).toBeGreaterThanOrEqual(3);
    for (const [index, page] of pages.entries()) expect(page).toContain(`Page ${index + 1}`);
  });
});

describe('bad input', () => {
  it('refuses format=docx with the formats it knows', async () => {
    const answer = await team.admin.api.get<Problem>(`/tenants/${team.tenant.id}/reports/summary`, {
      query: { ...period, groupBy: 'project', format: 'docx' },
    });
    expect(answer.status).toBe(400);
    const error = answer.body.errors?.find((item) => item.path === 'format');
    expect(error?.message).toMatch(/json.*csv.*xlsx.*pdf/);
  });
});

describe('a client that leaves mid-export', () => {
  it('leaves no cursor or transaction behind', async () => {
    const t = team.tenant.id;
    // Enough entries that the export outlasts the socket's buffers: the server is still reading its cursor when the client goes.
    await database.query(
      `INSERT INTO entries (id, "tenantId", "tenantUserId", "startedAt", "endedAt", "durationMinutes", description, "updatedAt")
       SELECT gen_random_uuid()::text, $1, $2, ts, ts + interval '30 minutes', 30, 'bulk entry number ' || n, now()
         FROM generate_series(1, 200000) n, LATERAL (SELECT timestamp '2025-01-01' + n * interval '1 minute' AS ts) s`,
      [t, team.member.id],
    );
    // A connection in the middle of an export: its last statement read the cursor and its transaction is open.
    const exporting = `SELECT count(*)::int AS n FROM pg_stat_activity
                        WHERE datname = current_database() AND state <> 'idle' AND query LIKE 'FETCH % FROM rows'`;
    const open = async () => (await database.query<{ n: number }>(exporting)).rows[0]?.n;
    for (const format of ['csv', 'xlsx', 'pdf']) {
      const controller = new AbortController();
      const url = new URL(`/tenants/${t}/reports/detailed?from=2025-01-01&to=2025-12-31&format=${format}`, server.url);
      const response = await fetch(url, { headers: asAdmin(), signal: controller.signal });
      expect(response.status).toBe(200);
      const reader = response.body?.getReader();
      await reader?.read();
      // The export holds its cursor while the client reads slowly...
      await eventually(async () => expect(await open(), format).toBe(1), 5_000);
      controller.abort();
      // ...and gives it back when the client goes.
      await eventually(async () => expect(await open(), format).toBe(0), 5_000);
    }
    // The pool is whole: a report still answers.
    expect((await team.admin.api.get(`/tenants/${t}/reports/summary`, { query: { ...period, groupBy: 'project' } })).status).toBe(200);
  });

  it('is cut off, not fatal, when its database connection dies mid-export', async () => {
    const t = team.tenant.id;
    const exporting = `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND state <> 'idle' AND query LIKE 'FETCH % FROM rows'`;
    const response = await fetch(new URL(`/tenants/${t}/reports/detailed?from=2025-01-01&to=2025-12-31&format=csv`, server.url), { headers: asAdmin() });
    expect(response.status).toBe(200);
    const reader = response.body?.getReader();
    await reader?.read();
    const pid = await eventually(async () => {
      const found = (await database.query<{ pid: number }>(exporting)).rows[0]?.pid;
      expect(found).toBeDefined();
      return found;
    }, 5_000);
    await database.query('SELECT pg_terminate_backend($1)', [pid]);
    // The download ends short (the server cannot finish it), and the server carries on.
    await expect(
      (async () => {
        for (;;) if ((await reader?.read())?.done) return;
      })(),
    ).rejects.toThrow();
    expect((await fetch(new URL('/health', server.url))).status).toBe(200);
    expect((await team.admin.api.get(`/tenants/${t}/reports/summary`, { query: { ...period, groupBy: 'project' } })).status).toBe(200);
  });
});
