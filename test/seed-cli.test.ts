/**
 * `tally seed` fills a database (here an external one, DATABASE_URL) with
 * plausible work quickly, and what it writes is what the API serves: after
 * 100,000 entries, a word found in a single entry's description finds that
 * entry first.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SearchResult } from './generated/openapi/types.gen.js';
import { runCli } from './helpers/cli.js';
import { createTestDatabase, type TestDatabase } from './helpers/database.js';
import { apiClient } from './helpers/http.js';
import { startTestServer, type TestServer } from './helpers/server.js';

let database: TestDatabase;
let server: TestServer | undefined;

beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  await server?.stop();
  await database?.drop();
});

describe('tally seed', () => {
  it('writes 100,000 entries in two tenants well under a minute, and prints a key per tenant', async () => {
    const started = performance.now();
    const result = await runCli(['seed', '--tenants', '2', '--users', '20', '--entries', '100000'], { DATABASE_URL: database.url });
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
    const api = apiClient(server.url, { apiKey: first.key });
    const counted = await server.app.db.entry.groupBy({ by: ['status'], where: { tenantId: first.id }, _count: true });
    expect(counted.reduce((sum, group) => sum + group._count, 0)).toBe(50_000);
    expect(counted.map((group) => group.status).sort()).toEqual(['approved', 'draft', 'rejected', 'submitted']);
    // The approval step is on, as for any new tenant; reviewed entries say by whom, rejections why.
    const tenant = await api.get<{ settings: { approvalRequired: boolean } }>(`/tenants/${first.id}`);
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
  });

  it('explains bad counts with a usage error', async () => {
    const result = await runCli(['seed', '--entries', 'many'], { DATABASE_URL: database.url });
    expect(result.code).toBe(2);
    expect(result.output).toMatch(/--entries must be a whole number/);
  });
});
