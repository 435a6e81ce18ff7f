/**
 * The day and week totals behind fast summaries (entry_day_totals and
 * entry_week_totals, kept by triggers on entries): after many writers at once
 * (creates, edits, timers stopped, submissions and approvals, deletions, one
 * statement changing many entries, a task deleted under its entries) and
 * changes of the tenant's time zone and first day of the week in the middle
 * of them, they equal a plain aggregation of the entries; and summaries read
 * from them equal those read from the entries.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Entry, Project } from './generated/openapi/types.gen.js';
import { msAgo, testClock } from './helpers/clock.js';
import type { Json } from './helpers/http.js';
import { startIdentityProvider, type IdentityProvider } from './helpers/oidc.js';
import { seedTeam, type Team } from './helpers/seed.js';
import { startTestServer, type TestServer } from './helpers/server.js';

let provider: IdentityProvider;
let server: TestServer;
let database: pg.Client;

beforeAll(async () => {
  provider = await startIdentityProvider();
  server = await startTestServer({ env: provider.env });
  database = new pg.Client({ connectionString: server.databaseUrl });
  await database.connect();
});
afterAll(async () => {
  await database?.end();
  await server?.stop();
  await provider?.close();
});

/** What entry_day_totals and entry_week_totals hold for the tenant (rows of zeros left out), and what the entries add up to. */
async function compare(tenantId: string) {
  const key = `"tenantId", day, "projectId", billable, status, currency`;
  const held = await database.query(
    `SELECT ${key}, entries, "durationMinutes"::int AS minutes, "billableAmount"::text AS billable_amount, "costAmount"::text AS cost_amount
       FROM entry_day_totals WHERE "tenantId" = $1 AND entries <> 0 ORDER BY ${key}`,
    [tenantId],
  );
  // The local day, and the first day of its week, written out here rather than taken from the migration.
  const local = `(e."startedAt" AT TIME ZONE coalesce(t.settings->>'timezone', 'UTC'))::date`;
  const weekOf = `${local} - CASE coalesce(t.settings->>'weekStart', 'monday')
                                WHEN 'sunday' THEN extract(dow FROM ${local})::int
                                WHEN 'saturday' THEN (extract(dow FROM ${local})::int + 1) % 7
                                ELSE extract(isodow FROM ${local})::int - 1 END`;
  const expectedBy = (period: string) =>
    database.query(
      `SELECT e."tenantId", ${period} AS day, coalesce(e."projectId", '') AS "projectId", e.billable, e.status, coalesce(e.currency, '') AS currency,
              count(*)::int AS entries, coalesce(sum(e."durationMinutes"), 0)::int AS minutes,
              coalesce(sum(e."billableAmount"), 0)::numeric(17, 3)::text AS billable_amount, coalesce(sum(e."costAmount"), 0)::numeric(17, 3)::text AS cost_amount
         FROM entries e JOIN tenants t ON t.id = e."tenantId"
        WHERE e."tenantId" = $1 AND e."endedAt" IS NOT NULL
        GROUP BY 1, 2, 3, 4, 5, 6 ORDER BY 1, 2, 3, 4, 5, 6`,
      [tenantId],
    );
  const heldWeeks = await database.query(
    `SELECT "tenantId", week AS day, "projectId", billable, status, currency, entries, "durationMinutes"::int AS minutes,
            "billableAmount"::text AS billable_amount, "costAmount"::text AS cost_amount
       FROM entry_week_totals WHERE "tenantId" = $1 AND entries <> 0 ORDER BY 1, 2, 3, 4, 5, 6`,
    [tenantId],
  );
  const zeros = await database.query(
    `SELECT count(*)::int AS n FROM (SELECT entries, "durationMinutes", "billableAmount", "costAmount" FROM entry_day_totals WHERE "tenantId" = $1
                                      UNION ALL SELECT entries, "durationMinutes", "billableAmount", "costAmount" FROM entry_week_totals WHERE "tenantId" = $1) t
      WHERE entries = 0 AND ("durationMinutes" <> 0 OR "billableAmount" <> 0 OR "costAmount" <> 0)`,
    [tenantId],
  );
  return {
    held: held.rows,
    expected: (await expectedBy(local)).rows,
    heldWeeks: heldWeeks.rows,
    expectedWeeks: (await expectedBy(weekOf)).rows,
    inconsistentZeros: zeros.rows[0]?.n,
  };
}

describe('the day and week totals', () => {
  it('stay exact under concurrent writes of every kind, with changes of the time zone and the week start among them', async () => {
    const team: Team = await seedTeam(server, provider, { timezone: 'Europe/Berlin', defaultHourlyRate: '80', approvalRequired: true });
    const { tenant, member, colleague, manager, admin } = team;
    const t = tenant.id;
    const projects = [
      (await admin.api.post<Project>(`/tenants/${t}/projects`, { name: 'One', hourlyRate: '100' })).body.id,
      (await admin.api.post<Project>(`/tenants/${t}/projects`, { name: 'Two' })).body.id,
    ];
    const list = (await admin.api.post<{ id: string }>(`/tenants/${t}/task-lists`, { name: 'List' })).body.id;
    const task = (await admin.api.post<{ id: string }>(`/tenants/${t}/task-lists/${list}/tasks`, { title: 'Doomed task' })).body.id;
    await admin.api.patch(`/tenants/${t}/users/${member.id}`, { costRate: '30' });

    let state = 7;
    const random = () => {
      state = (state * 48271) % 2147483647;
      return state / 2147483647;
    };
    // Starts around local midnight, where a time-zone change moves an entry to another day.
    const startOf = (index: number) => new Date(Date.UTC(2026, 2, 1 + (index % 40), 21 + Math.floor(random() * 5), Math.floor(random() * 4) * 15));
    const check = (answer: { status: number; body: unknown }, ...expected: number[]) => expect(expected, JSON.stringify(answer.body)).toContain(answer.status);

    /** One person's stream of writes, one request after another. */
    async function writer(who: Team['member'], seed: number) {
      const mine: string[] = [];
      for (let step = 0; step < 14; step += 1) {
        const index = seed * 100 + step;
        const startedAt = startOf(index);
        const roll = random();
        if (mine.length === 0 || roll < 0.45) {
          const body: Json = {
            startedAt: startedAt.toISOString(),
            endedAt: new Date(startedAt.getTime() + (5 + Math.floor(random() * 180)) * 60_000).toISOString(),
            billable: random() < 0.7,
            ...(random() < 0.3 ? { taskId: task } : random() < 0.8 ? { projectId: projects[index % 2] } : {}),
          };
          const answer = await who.api.post<Entry>(`/tenants/${t}/entries`, body);
          check(answer, 201);
          mine.push(answer.body.id);
        } else if (roll < 0.6) {
          const id = mine[Math.floor(random() * mine.length)] as string;
          const moved = startOf(index + 3);
          const change = {
            startedAt: moved.toISOString(),
            endedAt: new Date(moved.getTime() + 50 * 60_000).toISOString(),
            projectId: projects[(index + 1) % 2],
          };
          check(await who.api.patch(`/tenants/${t}/entries/${id}`, change), 200, 409);
        } else if (roll < 0.7) {
          const id = mine.splice(Math.floor(random() * mine.length), 1)[0] as string;
          check(await who.api.delete(`/tenants/${t}/entries/${id}`), 204, 409);
        } else if (roll < 0.85) {
          const id = mine[Math.floor(random() * mine.length)] as string;
          if ((await who.api.post(`/tenants/${t}/entries/${id}/submit`)).status === 200) {
            check(await admin.api.post(`/tenants/${t}/entries/${id}/approve`), 200, 409);
          }
        } else {
          // A timer, stopped a little later: it counts only once stopped.
          const running = await who.api.post<Entry>(`/tenants/${t}/entries`, { startedAt: msAgo(3 * 60_000).toISOString() });
          // (409 when the same person's other stream has one running.)
          check(running, 201, 409);
          if (running.status === 201) {
            check(await who.api.patch(`/tenants/${t}/entries/${running.body.id}`, { endedAt: testClock.now().toISOString() }), 200);
            mine.push(running.body.id);
          }
        }
      }
    }

    await Promise.all([
      writer(member, 1),
      writer(colleague, 2),
      writer(manager, 3),
      writer(member, 4),
      writer(colleague, 5),
      (async () => {
        // One statement changing many entries at once, twice, while the others write.
        for (let round = 0; round < 2; round += 1) {
          await new Promise((resolve) => setTimeout(resolve, 150));
          await database.query(`UPDATE entries SET billable = NOT billable WHERE "tenantId" = $1 AND status = 'draft' AND random() < 0.5`, [t]);
        }
      })(),
      (async () => {
        await new Promise((resolve) => setTimeout(resolve, 300));
        check(await admin.api.patch(`/tenants/${t}`, { settings: { timezone: 'America/New_York' } }), 200);
        await new Promise((resolve) => setTimeout(resolve, 300));
        check(await admin.api.patch(`/tenants/${t}`, { settings: { weekStart: 'sunday' } }), 200);
      })(),
    ]);
    // A task deleted under its entries (the database sets their taskId to null).
    check(await admin.api.delete(`/tenants/${t}/task-lists/${list}/tasks/${task}`), 204);

    const { held, expected, heldWeeks, expectedWeeks, inconsistentZeros } = await compare(t);
    expect(expected.length).toBeGreaterThan(10);
    expect(expected.some((row) => row.status === 'approved')).toBe(true);
    expect(held).toEqual(expected);
    expect(heldWeeks).toEqual(expectedWeeks);
    expect(inconsistentZeros).toBe(0);

    // The summaries read from them equal those read from the entries: US/Eastern is America/New_York under
    // another name, which a summary reads from the entries (only the tenant's own zone reads the totals).
    // Wednesday to Wednesday: whole weeks from the week totals, the days at both ends from the day totals.
    for (const [groupBy, subGroupBy] of [
      ['project', undefined],
      ['project', 'week'],
      ['week', 'billable'],
      ['status', 'day'],
    ] as const) {
      const query = { from: '2026-03-04', to: '2026-04-01', groupBy, ...(subGroupBy ? { subGroupBy } : {}) };
      const fast = (await admin.api.get<Json>(`/tenants/${t}/reports/summary`, { query })).body;
      const slow = (await admin.api.get<Json>(`/tenants/${t}/reports/summary`, { query: { ...query, timezone: 'US/Eastern' } })).body;
      expect({ ...fast, timezone: 'US/Eastern' }, JSON.stringify(query)).toEqual(slow);
      expect((fast as { totals: { entries: number } }).totals.entries).toBeGreaterThan(10);
    }
  });

  it('follow a tenant deleted with its entries and timers stopped in SQL, and are built for entries written before them', async () => {
    const { tenant, member } = await seedTeam(server, provider, { timezone: 'Asia/Kolkata' });
    const t = tenant.id;
    await member.api.post(`/tenants/${t}/entries`, { startedAt: '2026-05-01T18:45:00Z', endedAt: '2026-05-01T19:15:00Z' });
    // Kolkata is UTC+5:30: 18:45 UTC is 00:15 on the 2nd.
    expect((await compare(t)).held.map((row) => [row.day.toISOString().slice(0, 10), row.minutes])).toEqual([['2026-05-02', 30]]);
    // A timer stopped by hand in SQL, without durationMinutes: it counts, with 0 minutes, as reports count it.
    const timer = await member.api.post<{ id: string }>(`/tenants/${t}/entries`, { startedAt: msAgo(60_000).toISOString() });
    await database.query(`UPDATE entries SET "endedAt" = "startedAt" + interval '1 minute' WHERE id = $1`, [timer.body.id]);
    const afterTimer = await compare(t);
    expect(afterTimer.held).toEqual(afterTimer.expected);
    expect(afterTimer.held).toHaveLength(2);
    expect(afterTimer.heldWeeks).toEqual(afterTimer.expectedWeeks);
    // A rebuild (what the migrations run for existing entries) gives the same rows.
    const before = await compare(t);
    await database.query(`SELECT entry_day_totals_rebuild($1, 'Asia/Kolkata')`, [t]);
    const rebuilt = await compare(t);
    expect([rebuilt.held, rebuilt.heldWeeks]).toEqual([before.held, before.heldWeeks]);
    await database.query('DELETE FROM tenants WHERE id = $1', [t]);
    for (const table of ['entry_day_totals', 'entry_week_totals']) {
      expect((await database.query(`SELECT count(*)::int AS n FROM ${table} WHERE "tenantId" = $1`, [t])).rows[0]?.n, table).toBe(0);
    }
  });
});
