/**
 * Report exports (CONTRACT.md section 8): format=csv, xlsx and pdf, each read
 * back with a reader that is not ours (csv-parse, read-excel-file, pdftotext)
 * and compared with the JSON of the same report; who sees amounts; bad
 * formats; and a client leaving mid-export takes its cursor and transaction
 * with it.
 */
import { parse } from 'csv-parse/sync';
import pg from 'pg';
import ExcelJS from 'exceljs';
import { readSheet } from 'read-excel-file/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Entry, Problem, Project } from './generated/openapi/types.gen.js';
import { eventually } from './helpers/eventually.js';
import { download as downloadFile, pdfText, pdfWords } from './helpers/files.js';
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
      ['2026-06-10', '14:00', '16:15', '135', json[0]?.memberName, 'Café "Zürich", GmbH', 'Ünïcode, "quoted"', 'Kaffee ☕', '225.00'],
      ['2026-06-03', '10:00', '11:00', '60', json[1]?.memberName, '', '', '', '0.00'],
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
    expect(rows[2]).toMatchObject({ Tags: 'deep, work', Billable: 'yes', Status: 'draft', 'Hourly rate': '100.00', Currency: 'EUR', Hours: '1.12' });
    // The JSON's exact decimals, with the currency's two minor units.
    expect(rows.map((row) => row['Billable amount'])).toEqual(json.map((row) => Number(row.billableAmount).toFixed(2)));
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
    expect(sheet[headerAt]).toEqual(['Group', 'Sub-group', 'Entries', 'Minutes', 'Hours', 'Billable minutes', 'Billable amount', 'Cost amount', 'Currency']);
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
          'EUR',
        ];
      }),
    );
    // Numbers, not text that looks like one.
    for (const row of body) for (const cell of row.slice(2, -1)) expect(typeof cell).toBe('number');
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
    expect(text).toMatch(/Total\s+2\s+202\s+3\.37\s+202\s+336\.67\s+0\.00\s+EUR\n/);
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

describe('what a reader sees', () => {
  it('starts the rows below a wrapped header, and right-aligns numbers under their headers, in the PDF', async () => {
    const query = { ...period, groupBy: 'project', subGroupBy: 'week' };
    const summary = (await team.admin.api.get<Summary>(`/tenants/${team.tenant.id}/reports/summary`, { query })).body;
    const rows = summary.groups.reduce((count, group) => count + 1 + (group.subGroups?.length ?? 0), 1);
    const { bytes } = await download('summary', { ...query, format: 'pdf' }, asAdmin());
    const words = (await pdfWords(bytes)).filter((word) => word.page === 1);
    const header = words.find((word) => word.text === 'Sub-group');
    // "Billable minutes" and "Billable amount" wrap: their second line is the lowest of the header.
    const secondLine = words.filter((word) => word.text === 'minutes' || word.text === 'amount');
    expect(secondLine.length).toBeGreaterThanOrEqual(2);
    const headerBottom = Math.max(...secondLine.map((word) => word.yMax));
    expect(header && header.yMax <= headerBottom).toBe(true);
    const firstRow = words.filter((word) => word.yMin > headerBottom);
    const firstRowTop = Math.min(...firstRow.map((word) => word.yMin));
    expect(firstRowTop).toBeGreaterThan(headerBottom);
    for (const title of ['Entries', 'Hours', 'amount']) {
      const edge = words.find((word) => word.text === title && word.yMax <= headerBottom)?.xMax as number;
      const column = words.filter((word) => word.yMin > headerBottom && /^[\d,]+(\.\d+)?$/.test(word.text) && Math.abs(word.xMax - edge) < 0.6);
      // One number per row, each ending where its header ends.
      expect(column.length, title).toBe(rows);
    }
  });

  it('shows money with its currency’s minor units in every format, as numbers with a number format in XLSX', async () => {
    const { tenant, admin, member } = team;
    const t = tenant.id;
    const august = { from: '2026-08-01', to: '2026-08-31' };
    for (const [name, currency, hourlyRate, startedAt] of [
      ['Tokyo KK', 'JPY', '1000', '2026-08-03T08:00:00Z'],
      ['Kuwait WLL', 'KWD', '12.5', '2026-08-04T08:00:00Z'],
    ] as const) {
      const client = (await admin.api.post<{ id: string }>(`/tenants/${t}/clients`, { name, currency, hourlyRate })).body;
      const project = (await admin.api.post<Project>(`/tenants/${t}/projects`, { name: `${name} project`, clientId: client.id })).body;
      const endedAt = new Date(Date.parse(startedAt) + 67 * 60_000).toISOString();
      expect((await member.api.post(`/tenants/${t}/entries`, { startedAt, endedAt, projectId: project.id })).status).toBe(201);
    }
    const json = (await admin.api.get<Json[]>(`/tenants/${t}/reports/detailed`, { query: august })).body;
    // Amounts are computed at the currency's scale, and every format shows them as the JSON does.
    expect(json.map((row) => [row.currency, row.hourlyRate, row.billableAmount])).toEqual([
      ['KWD', '12.500', '13.958'],
      ['JPY', '1000', '1117'],
    ]);

    const csv = parse((await download('detailed', { ...august, format: 'csv' }, asAdmin())).bytes, { columns: true }) as Record<string, string>[];
    expect(csv.map((row) => [row.Currency, row['Hourly rate'], row['Billable amount']])).toEqual([
      ['KWD', '12.500', '13.958'],
      ['JPY', '1000', '1117'],
    ]);

    const xlsx = (await download('detailed', { ...august, format: 'xlsx' }, asAdmin())).bytes;
    const sheet = await readSheet(xlsx);
    const headerAt = sheet.findIndex((row) => row[0] === 'Date');
    const headers = sheet[headerAt] as string[];
    const amountAt = headers.indexOf('Billable amount');
    expect(sheet.slice(headerAt + 1).map((row) => [row[headers.indexOf('Currency')], row[amountAt]])).toEqual([
      ['KWD', 13.958],
      ['JPY', 1117],
    ]);
    // The formats and alignment, read by exceljs's reader (read-excel-file reads values only).
    const book = new ExcelJS.Workbook();
    await book.xlsx.load(xlsx as unknown as ArrayBuffer);
    const cells = book.worksheets[0]?.getColumn(amountAt + 1);
    const styles: { numFmt: string | undefined; align: string | undefined }[] = [];
    cells?.eachCell((cell, row) => {
      if (row > headerAt + 1) styles.push({ numFmt: cell.numFmt, align: cell.alignment?.horizontal });
    });
    expect(styles).toEqual([
      { numFmt: '#,##0.000', align: 'right' },
      { numFmt: '#,##0', align: 'right' },
    ]);

    const text = await pdfText((await download('detailed', { ...august, format: 'pdf' }, asAdmin())).bytes);
    expect(text).toMatch(/13\.958\s+KWD/);
    expect(text).toMatch(/1,117\s+JPY/);
  });

  it('hides rates and amounts from a member in every format, as the JSON does', async () => {
    const query = { ...period, groupBy: 'project' };
    const json = (await team.member.api.get<Summary>(`/tenants/${team.tenant.id}/reports/summary`, { query })).body;
    expect(json.totals.billableAmount).toBeNull();
    const csv = parse((await download('summary', { ...query, format: 'csv' }, asMember())).bytes, { columns: true }) as Record<string, string>[];
    expect(csv.length).toBeGreaterThan(1);
    expect(csv.every((row) => row['Billable amount'] === '' && row['Cost amount'] === '')).toBe(true);
    const sheet = await readSheet((await download('detailed', { ...period, format: 'xlsx' }, asMember())).bytes);
    const headers = sheet.find((row) => row[0] === 'Date') as string[];
    const body = sheet.slice(sheet.indexOf(headers) + 1);
    expect(body.length).toBe(2);
    for (const name of ['Hourly rate', 'Billable amount', 'Cost rate', 'Cost amount'])
      expect(body.map((row) => row[headers.indexOf(name)])).toEqual([null, null]);
    const text = await pdfText((await download('summary', { ...query, format: 'pdf' }, asMember())).bytes);
    expect(text).toMatch(/Total\s+2\s+127\s+2\.12\s+67\s+EUR\n/);
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
  // Enough entries that the export outlasts the socket's buffers (loopback receive buffers grow to 32 MB): the server is
  // still reading its cursor when the client goes. Both tests export them. Writing 200,000 entries with their indexes
  // took 29 s of a loaded CI machine, so it is this block's fixture, with a budget of its own: inside the first test it
  // left the exports (4 s) a second or less of the test's 30 s, and that test failed 4 runs in 5.
  beforeAll(async () => {
    await database.query(
      `INSERT INTO entries (id, "tenantId", "tenantUserId", "startedAt", "endedAt", "durationMinutes", description, "updatedAt")
       SELECT gen_random_uuid()::text, $1, $2, ts, ts + interval '30 minutes', 30, 'bulk entry number ' || n, now()
         FROM generate_series(1, 200000) n, LATERAL (SELECT timestamp '2025-01-01' + n * interval '1 minute' AS ts) s`,
      [team.tenant.id, team.member.id],
    );
  }, 180_000);

  it('leaves no cursor or transaction behind', async () => {
    const t = team.tenant.id;
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
