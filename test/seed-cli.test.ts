/**
 * `tally seed` fills a database (here an external one, DATABASE_URL) with
 * plausible work quickly, and what it writes is what the API serves: after
 * 100,000 entries, a word found in a single entry's description finds that
 * entry first, and a tenant's report adds up to what its entries read through
 * the entries API add up to, in JSON and in its files.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'csv-parse/sync';
import { readSheet } from 'read-excel-file/node';
import type { Entry, ReportControllerSummaryResponse as ReportSummary, SearchResult } from './generated/openapi/types.gen.js';
import { daysAgo, testClock, testClockEnvironment } from './helpers/clock.js';
import { runCli } from './helpers/cli.js';
import { createTestDatabase, type TestDatabase } from './helpers/database.js';
import { download, pdfText } from './helpers/files.js';
import { apiClient } from './helpers/http.js';
import { startTestServer, type TestServer } from './helpers/server.js';

let database: TestDatabase;
let server: TestServer | undefined;
/** The first tenant the seed printed, with its API key. */
let seeded: { id: string; key: string } | undefined;

beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  await server?.stop();
  await database?.drop();
});

/** A hundred thousand entries written, then read back as files: more than the default 30 s on a busy two-core machine. */
const heavyTestMs = 120_000;

describe('tally seed', () => {
  it(
    'writes 100,000 entries in two tenants well under a minute, and prints a key per tenant',
    async () => {
      const started = performance.now();
      // On the test clock: the seed dates its work back from the clock's today.
      const result = await runCli(['seed', '--tenants', '2', '--users', '20', '--entries', '100000'], {
        DATABASE_URL: database.url,
        ...testClockEnvironment(),
      });
      const seconds = (performance.now() - started) / 1000;
      expect(result.code, result.output).toBe(0);
      expect(seconds).toBeLessThan(60);
      expect(result.output).toMatch(/seeded 100000 entries in 2 tenants with 20 members each/);
      const tenants = [...result.output.matchAll(/^ {2}(seed-\S+) {2}(\S+) {2}(svc_\S+)$/gm)].map((match) => ({
        id: match[2] as string,
        key: match[3] as string,
      }));
      expect(tenants).toHaveLength(2);

      server = await startTestServer({ databaseUrl: database.url });
      const [first] = tenants as [{ id: string; key: string }];
      seeded = first;
      const api = apiClient(server.url, { apiKey: first.key });
      const counted = await server.app.db.entry.groupBy({ by: ['status'], where: { tenantId: first.id }, _count: true });
      expect(counted.reduce((sum, group) => sum + group._count, 0)).toBe(50_000);
      expect(counted.map((group) => group.status).sort()).toEqual(['approved', 'draft', 'rejected', 'submitted']);
      // The approval step is on, as for any new tenant; reviewed entries say by whom, rejections why.
      const tenant = await api.get<{ settings: { approvalRequired: boolean; timezone: string } }>(`/tenants/${first.id}`);
      expect(tenant.body.settings.approvalRequired).toBe(true);
      const reviewed = await server.app.db.entry.groupBy({
        by: ['status'],
        where: { tenantId: first.id, status: { in: ['approved', 'rejected'] }, reviewedById: null },
        _count: true,
      });
      expect(reviewed).toEqual([]);
      expect(await server.app.db.entry.count({ where: { tenantId: first.id, status: 'rejected', rejectionReason: null } })).toBe(0);
      // Money data: clients, project members at their rates, cost rates, budgets, and amounts priced as the entry service prices them.
      expect(await server.app.db.client.count({ where: { tenantId: first.id } })).toBeGreaterThanOrEqual(3);
      expect(await server.app.db.projectMember.count({ where: { tenantId: first.id } })).toBeGreaterThan(0);
      expect(await server.app.db.project.count({ where: { tenantId: first.id, clientId: null } })).toBe(0);
      // Client invoices in every state, a credit note for the void one, each invoice's entries claimed by it.
      const invoices = await server.app.db.clientInvoice.groupBy({ by: ['status'], where: { tenantId: first.id }, _count: true });
      expect(invoices.map((group) => group.status).sort()).toEqual(['draft', 'issued', 'paid', 'sent', 'void']);
      expect(await server.app.db.clientInvoice.count({ where: { tenantId: first.id, type: 'credit_note' } })).toBe(1);
      expect(await server.app.db.entry.count({ where: { tenantId: first.id, clientInvoiceId: { not: null } } })).toBeGreaterThan(0);
      // Time off: part-time schedules, absences taken and requested.
      expect(await server.app.db.workSchedule.count({ where: { tenantId: first.id } })).toBe(5);
      expect(await server.app.db.absence.groupBy({ by: ['status'], where: { tenantId: first.id }, _count: true, orderBy: { status: 'asc' } })).toEqual([
        { status: 'pending', _count: 20 },
        { status: 'approved', _count: 40 },
      ]);
      // All of it dated back from the clock's today (the test clock's, which the CLI ran on): weekdays of the two years up to
      // it, and a week's vacation requested a month ahead.
      const zone = tenant.body.settings.timezone;
      const [span] = await server.app.db.$queryRaw<{ first: Date; last: Date }[]>`
        SELECT min("startedAt") AS first, max("startedAt") AS last FROM entries WHERE "tenantId" = ${first.id}`;
      expect(span?.last.getTime()).toBeLessThanOrEqual(testClock.now().getTime());
      expect(span?.last.getTime()).toBeGreaterThan(Date.parse(daysAgo(7)));
      expect(span?.first.getTime()).toBeGreaterThanOrEqual(Date.parse(daysAgo(733)));
      const requested = await server.app.db.absence.findFirstOrThrow({ where: { tenantId: first.id, status: 'pending' } });
      expect(requested.startDate.toISOString().slice(0, 10)).toBe(daysAgo(-30, zone));
      expect(await server.app.db.project.count({ where: { tenantId: first.id, budgetPeriod: 'monthly', budgetHours: { not: null } } })).toBeGreaterThan(0);
      const [prices] = await server.app.db.$queryRaw<{ entries: bigint; mispriced: bigint; uncosted: bigint }[]>`
      SELECT count(*) AS entries,
             count(*) FILTER (WHERE "billableAmount" IS DISTINCT FROM CASE WHEN billable THEN round("durationMinutes" / 60.0 * "hourlyRate", 2) ELSE 0 END
                                 OR "costAmount" IS DISTINCT FROM round("durationMinutes" / 60.0 * "costRate", 2)) AS mispriced,
             count(*) FILTER (WHERE "costRate" IS NULL OR currency IS NULL) AS uncosted
        FROM entries WHERE "tenantId" = ${first.id}`;
      expect(prices).toEqual({ entries: 50_000n, mispriced: 0n, uncosted: 0n });
      const projects = await api.get<{ spentMinutes: number; spentAmount: string | null }[]>(`/tenants/${first.id}/projects`, { query: { limit: 200 } });
      expect(projects.body.some((project) => project.spentMinutes > 0 && Number(project.spentAmount) > 0)).toBe(true);

      const [member] = (await api.get<{ id: string }[]>(`/tenants/${first.id}/users`, { query: { role: 'member', limit: 1 } })).body;
      const unique = await api.post<{ id: string }>(`/tenants/${first.id}/entries`, {
        tenantUserId: member?.id,
        startedAt: '2025-01-06T09:00:00Z',
        endedAt: '2025-01-06T10:00:00Z',
        description: 'Calibrated the zeppelinometer for the weekly report',
      });
      expect(unique.status).toBe(201);
      const found = await api.get<SearchResult[]>(`/tenants/${first.id}/search`, { query: { q: 'zeppelinometer' } });
      expect(found.body[0]).toMatchObject({ type: 'entries', id: unique.body.id });
      // A common word finds many, still answering.
      const common = await api.get<SearchResult[]>(`/tenants/${first.id}/search`, { query: { q: 'weekly report', limit: 10 } });
      expect(common.body).toHaveLength(10);
    },
    heavyTestMs,
  );

  it(
    'reports on the seeded entries what the entries API adds up to, and as CSV, XLSX and PDF files',
    async () => {
      if (!server || !seeded) throw new Error('the seed above did not run');
      const { id, key } = seeded;
      const api = apiClient(server.url, { apiKey: key });
      // The whole seeded history: weekdays of the last two years.
      const period = { from: daysAgo(3 * 365), to: daysAgo(0) };
      const summary = (await api.get<ReportSummary>(`/tenants/${id}/reports/summary`, { query: { ...period, groupBy: 'project', subGroupBy: 'week' } })).body;

      // The same entries through the entries API, page by page, added up by project.
      const byProject = new Map<string | null, number>();
      let entries = 0;
      for (let offset = 0; ; offset += 200) {
        const page = (await api.get<Entry[]>(`/tenants/${id}/entries`, { query: { ...period, limit: 200, offset } })).body;
        for (const entry of page.filter((item) => item.endedAt !== null)) {
          entries += 1;
          byProject.set(entry.projectId ?? null, (byProject.get(entry.projectId ?? null) ?? 0) + (entry.durationMinutes ?? 0));
        }
        if (page.length < 200) break;
      }
      expect(entries).toBeGreaterThan(50_000 - 100);
      expect(summary.totals.entries).toBe(entries);
      expect(summary.totals.durationMinutes).toBe([...byProject.values()].reduce((sum, minutes) => sum + minutes, 0));
      expect(new Map(summary.groups.map((group) => [group.key, group.totals.durationMinutes]))).toEqual(byProject);
      for (const group of summary.groups) {
        expect((group.subGroups ?? []).reduce((sum, week) => sum + week.totals.durationMinutes, 0)).toBe(group.totals.durationMinutes);
      }

      const headers = { authorization: `Bearer ${key}` };
      const csv = await download(server.url, `/tenants/${id}/reports/detailed`, { ...period, format: 'csv' }, headers);
      expect(csv.response.status).toBe(200);
      const lines = parse(csv.bytes) as string[][];
      expect(lines[0]?.slice(0, 4)).toEqual(['Date', 'Start', 'End', 'Minutes']);
      expect(lines).toHaveLength(entries + 1);
      expect(lines.slice(1).reduce((sum, line) => sum + Number(line[3]), 0)).toBe(summary.totals.durationMinutes);

      const query = { ...period, groupBy: 'project', subGroupBy: 'week' };
      const xlsx = await download(server.url, `/tenants/${id}/reports/summary`, { ...query, format: 'xlsx' }, headers);
      const sheet = await readSheet(xlsx.bytes);
      const total = sheet.find((row) => row[0] === 'Total');
      expect(total?.slice(2, 4)).toEqual([summary.totals.entries, summary.totals.durationMinutes]);
      // Every figure is a number (the money cells with a number format); the last column names the currency.
      expect(total?.slice(2, -1).every((cell) => typeof cell === 'number')).toBe(true);
      expect(total?.at(-1)).toBe(summary.currency);

      const pdf = await download(server.url, `/tenants/${id}/reports/summary`, { ...query, format: 'pdf' }, headers);
      const text = await pdfText(pdf.bytes);
      // The PDF is for people: thousands grouped (12,345).
      const forPeople = (count: number) => count.toLocaleString('en-US');
      expect(text).toMatch(new RegExp(`Total\\s+${forPeople(summary.totals.entries)}\\s+${forPeople(summary.totals.durationMinutes)}\\s`));
      expect(text).toContain(`Period: ${period.from} to ${period.to}`);
    },
    heavyTestMs,
  );

  it('explains bad counts with a usage error', async () => {
    const result = await runCli(['seed', '--entries', 'many'], { DATABASE_URL: database.url });
    expect(result.code).toBe(2);
    expect(result.output).toMatch(/--entries must be a whole number/);
  });
});
