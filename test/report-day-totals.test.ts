/**
 * The day and week totals behind fast summaries (entry_day_totals and
 * entry_week_totals, kept by triggers on entries), and the member and tag
 * totals (entry_dimension_week_totals and entry_dimension_day_totals, kept by the same triggers): after many
 * writers at once (creates, edits, tag changes, timers stopped, submissions
 * and approvals, deletions, one statement changing many entries, a task
 * deleted under its entries, an import) and changes of the tenant's time zone
 * and first day of the week in the middle of them, they equal a plain
 * aggregation of the entries; and summaries read from them equal those read
 * from the entries.
 */
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Entry, Project } from './generated/openapi/types.gen.js';
import { msAgo, testClock } from './helpers/clock.js';
import { eventually } from './helpers/eventually.js';
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
  // The member and tag totals against a plain GROUP BY of the entries by week (or local day) and member, and by week
  // (or day) and tag (an entry in one row per tag, '' for none).
  const heldDimensionsOf = (table: string, period: string) => {
    const dimensionKey = `"tenantId", dimension, ${period}, key, billable, status, currency`;
    return database.query(
      `SELECT ${dimensionKey}, entries, "durationMinutes"::int AS minutes, "billableAmount"::text AS billable_amount, "costAmount"::text AS cost_amount
         FROM ${table} WHERE "tenantId" = $1 AND entries <> 0 ORDER BY ${dimensionKey}`,
      [tenantId],
    );
  };
  const expectedDimensionsBy = (period: string, name: string) =>
    database.query(
      `SELECT e."tenantId", d.dimension, ${period} AS ${name}, d.key, e.billable, e.status, coalesce(e.currency, '') AS currency,
              count(*)::int AS entries, coalesce(sum(e."durationMinutes"), 0)::int AS minutes,
              coalesce(sum(e."billableAmount"), 0)::numeric(17, 3)::text AS billable_amount, coalesce(sum(e."costAmount"), 0)::numeric(17, 3)::text AS cost_amount
         FROM entries e JOIN tenants t ON t.id = e."tenantId"
         CROSS JOIN LATERAL (SELECT 'user' AS dimension, e."tenantUserId" AS key
                             UNION ALL SELECT 'tag', tag FROM unnest(CASE WHEN coalesce(cardinality(e.tags), 0) = 0 THEN ARRAY[''] ELSE e.tags END) tag) d
        WHERE e."tenantId" = $1 AND e."endedAt" IS NOT NULL
        GROUP BY 1, 2, 3, 4, 5, 6, 7 ORDER BY 1, 2, 3, 4, 5, 6, 7`,
      [tenantId],
    );
  const dimensionZeros = await database.query(
    `SELECT count(*)::int AS n FROM (SELECT entries, "durationMinutes", "billableAmount", "costAmount" FROM entry_dimension_week_totals WHERE "tenantId" = $1
                                      UNION ALL SELECT entries, "durationMinutes", "billableAmount", "costAmount" FROM entry_dimension_day_totals WHERE "tenantId" = $1) t
      WHERE entries = 0 AND ("durationMinutes" <> 0 OR "billableAmount" <> 0 OR "costAmount" <> 0)`,
    [tenantId],
  );
  return {
    held: held.rows,
    expected: (await expectedBy(local)).rows,
    heldWeeks: heldWeeks.rows,
    expectedWeeks: (await expectedBy(weekOf)).rows,
    heldDimensions: (await heldDimensionsOf('entry_dimension_week_totals', 'week')).rows,
    expectedDimensions: (await expectedDimensionsBy(weekOf, 'week')).rows,
    heldDayDimensions: (await heldDimensionsOf('entry_dimension_day_totals', 'day')).rows,
    expectedDayDimensions: (await expectedDimensionsBy(local, 'day')).rows,
    inconsistentZeros: zeros.rows[0]?.n + dimensionZeros.rows[0]?.n,
  };
}

/** The summary of `query` read as the tenant's time zone reads it (from the totals where they serve) and from the entries. */
async function fastAndSlow(api: Team['admin']['api'], tenantId: string, query: Record<string, string>) {
  // US/Eastern is America/New_York under another name, which a summary reads from the entries (only the tenant's own
  // zone reads the totals).
  const fast = await api.get<Json>(`/tenants/${tenantId}/reports/summary`, { query });
  const slow = await api.get<Json>(`/tenants/${tenantId}/reports/summary`, { query: { ...query, timezone: 'US/Eastern' } });
  expect([fast.status, slow.status], JSON.stringify(fast.body)).toEqual([200, 200]);
  return { fast: { ...fast.body, timezone: 'US/Eastern' }, slow: slow.body, entries: (fast.body as { totals: { entries: number } }).totals.entries };
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
    // None, one or two of three tags.
    const tagsOf = (roll: number) => (roll < 0.2 ? [] : roll < 0.5 ? ['design'] : roll < 0.8 ? ['dev', 'bug'] : ['bug']);

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
            tags: tagsOf(random()),
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
            ...(random() < 0.5 ? { tags: tagsOf(random()) } : {}),
          };
          // (404: the bulk statement below gave it to the other member.)
          check(await who.api.patch(`/tenants/${t}/entries/${id}`, change), 200, 404, 409);
        } else if (roll < 0.7) {
          const id = mine.splice(Math.floor(random() * mine.length), 1)[0] as string;
          check(await who.api.delete(`/tenants/${t}/entries/${id}`), 204, 404, 409);
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
          // Entries moved between members and their tags changed, in one statement each.
          await database.query(
            `UPDATE entries SET "tenantUserId" = CASE WHEN "tenantUserId" = $2 THEN $3 ELSE $2 END
              WHERE "tenantId" = $1 AND "tenantUserId" IN ($2, $3) AND "endedAt" IS NOT NULL AND random() < 0.3`,
            [t, member.id, colleague.id],
          );
          await database.query(
            `UPDATE entries SET tags = CASE WHEN 'bug' = ANY(tags) THEN array_remove(tags, 'bug') ELSE array_append(tags, 'bug') END
              WHERE "tenantId" = $1 AND random() < 0.4`,
            [t],
          );
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

    const { held, expected, heldWeeks, expectedWeeks, heldDimensions, expectedDimensions, heldDayDimensions, expectedDayDimensions, inconsistentZeros } =
      await compare(t);
    expect(expected.length).toBeGreaterThan(10);
    expect(expected.some((row) => row.status === 'approved')).toBe(true);
    expect(held).toEqual(expected);
    expect(heldWeeks).toEqual(expectedWeeks);
    expect(expectedDimensions.filter((row) => row.dimension === 'tag').map((row) => row.key)).toEqual(expect.arrayContaining(['', 'bug', 'design', 'dev']));
    expect(heldDimensions).toEqual(expectedDimensions);
    expect(heldDayDimensions).toEqual(expectedDayDimensions);
    expect(inconsistentZeros).toBe(0);

    // The summaries read from them equal those read from the entries. Wednesday to Wednesday: whole weeks from the
    // week (or member and tag) totals, the days at both ends from the day totals (or the entries).
    for (const [groupBy, subGroupBy] of [
      ['project', undefined],
      ['project', 'week'],
      ['week', 'billable'],
      ['status', 'day'],
      ['user', undefined],
      ['tag', undefined],
      ['user', 'week'],
      ['tag', 'status'],
      ['week', 'tag'],
      ['user', 'day'],
      ['month', 'tag'],
    ] as const) {
      const query = { from: '2026-03-04', to: '2026-04-01', groupBy, ...(subGroupBy ? { subGroupBy } : {}) };
      const { fast, slow, entries } = await fastAndSlow(admin.api, t, query);
      expect(fast, JSON.stringify(query)).toEqual(slow);
      expect(entries).toBeGreaterThan(10);
    }
  }, 120_000);

  it('keep the member and tag totals exact under a random sequence of writes, and summaries by member and by tag with any filter equal those from the entries', async () => {
    // New York: fastAndSlow reads the entries in US/Eastern, the same zone under another name.
    const team = await seedTeam(server, provider, { timezone: 'America/New_York', defaultHourlyRate: '60', approvalRequired: true });
    const { tenant, member, colleague, manager, admin } = team;
    const t = tenant.id;
    const client = (await admin.api.post<{ id: string }>(`/tenants/${t}/clients`, { name: 'Globex' })).body.id;
    const projects = [
      (await admin.api.post<Project>(`/tenants/${t}/projects`, { name: 'One', hourlyRate: '100', clientId: client })).body.id,
      (await admin.api.post<Project>(`/tenants/${t}/projects`, { name: 'Two' })).body.id,
    ];
    const people = [member, colleague, manager];
    let state = 11;
    const random = () => {
      state = (state * 48271) % 2147483647;
      return state / 2147483647;
    };
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
    const tagSets = [[], ['design'], ['dev'], ['dev', 'bug'], ['bug', 'design', 'ops']];
    // Eight weeks of February and March 2026, at any hour: the small hours in UTC are the day before in New York.
    const startOf = () => new Date(Date.UTC(2026, 1, 2 + Math.floor(random() * 56), Math.floor(random() * 24), Math.floor(random() * 4) * 15));
    const entries: { id: string; owner: (typeof people)[number] }[] = [];
    const check = (answer: { status: number; body: unknown }, ...expected: number[]) => expect(expected, JSON.stringify(answer.body)).toContain(answer.status);

    for (let step = 0; step < 90; step += 1) {
      const roll = random();
      if (entries.length < 5 || roll < 0.35) {
        const owner = pick(people);
        const startedAt = startOf();
        const body: Json = {
          tenantUserId: owner.id,
          startedAt: startedAt.toISOString(),
          endedAt: new Date(startedAt.getTime() + (15 + Math.floor(random() * 240)) * 60_000).toISOString(),
          billable: random() < 0.7,
          tags: pick(tagSets),
          ...(random() < 0.8 ? { projectId: pick(projects) } : {}),
        };
        const answer = await admin.api.post<Entry>(`/tenants/${t}/entries`, body);
        check(answer, 201);
        entries.push({ id: answer.body.id, owner });
      } else if (roll < 0.55) {
        // Moved to another week or day, project or billable flag, its tags changed: any of them, or all.
        const { id } = pick(entries);
        const moved = startOf();
        const change: Json = {
          ...(random() < 0.5 ? { startedAt: moved.toISOString(), endedAt: new Date(moved.getTime() + 95 * 60_000).toISOString() } : {}),
          ...(random() < 0.5 ? { tags: pick(tagSets) } : {}),
          ...(random() < 0.3 ? { billable: random() < 0.5 } : {}),
          ...(random() < 0.3 ? { projectId: random() < 0.3 ? null : pick(projects) } : {}),
        };
        check(await admin.api.patch(`/tenants/${t}/entries/${id}`, change), 200, 409);
      } else if (roll < 0.65) {
        const [gone] = entries.splice(Math.floor(random() * entries.length), 1);
        check(await admin.api.delete(`/tenants/${t}/entries/${gone?.id}`), 204, 409);
      } else if (roll < 0.78) {
        const { id, owner } = pick(entries);
        if ((await owner.api.post(`/tenants/${t}/entries/${id}/submit`)).status === 200) {
          const verdict =
            random() < 0.7 ? admin.api.post(`/tenants/${t}/entries/${id}/approve`) : admin.api.post(`/tenants/${t}/entries/${id}/reject`, { reason: 'No' });
          check(await verdict, 200, 409);
        }
      } else if (roll < 0.86) {
        // A running timer does not count until it is stopped.
        const owner = pick(people);
        const running = await owner.api.post<Entry>(`/tenants/${t}/entries`, { startedAt: msAgo(30 * 60_000).toISOString(), tags: ['ops'] });
        check(running, 201, 409);
        if (running.status === 201) {
          const whileRunning = await compare(t);
          expect(whileRunning.heldDimensions).toEqual(whileRunning.expectedDimensions);
          expect(whileRunning.heldDayDimensions).toEqual(whileRunning.expectedDayDimensions);
          check(await owner.api.patch(`/tenants/${t}/entries/${running.body.id}`, { endedAt: testClock.now().toISOString() }), 200);
          entries.push({ id: running.body.id, owner });
        }
      } else {
        // Bulk statements: entries moved between members and weeks, tags rewritten (a tag '' and a repeated tag,
        // which only SQL can write, among them), copies inserted, some deleted.
        const bulk = pick([
          `UPDATE entries SET "tenantUserId" = CASE WHEN "tenantUserId" = $2 THEN $3 ELSE $2 END
            WHERE "tenantId" = $1 AND "tenantUserId" IN ($2, $3) AND "endedAt" IS NOT NULL AND random() < 0.3`,
          `UPDATE entries SET "startedAt" = "startedAt" + interval '7 days', "endedAt" = "endedAt" + interval '7 days'
            WHERE "tenantId" = $1 AND "endedAt" IS NOT NULL AND random() < 0.2 AND $2::text IS NOT NULL AND $3::text IS NOT NULL`,
          `UPDATE entries SET tags = CASE WHEN random() < 0.3 THEN ARRAY['', 'dev'] WHEN random() < 0.5 THEN ARRAY['ops', 'ops'] ELSE NULL END
            WHERE "tenantId" = $1 AND random() < 0.2 AND $2::text IS NOT NULL AND $3::text IS NOT NULL`,
          `INSERT INTO entries (id, "tenantId", "tenantUserId", "projectId", "startedAt", "endedAt", "durationMinutes", billable, tags,
                                "billableAmount", "costAmount", currency, status, "updatedAt")
           SELECT gen_random_uuid()::text, "tenantId", $3, "projectId", "startedAt" - interval '3 days', "endedAt" - interval '3 days',
                  "durationMinutes", billable, tags, "billableAmount", "costAmount", currency, status, now()
             FROM entries WHERE "tenantId" = $1 AND "endedAt" IS NOT NULL AND random() < 0.2 AND $2::text IS NOT NULL`,
          `DELETE FROM entries WHERE "tenantId" = $1 AND status = 'draft' AND "clientInvoiceId" IS NULL AND random() < 0.1
              AND $2::text IS NOT NULL AND $3::text IS NOT NULL`,
        ]);
        await database.query(bulk, [t, member.id, colleague.id]);
        const { rows } = await database.query<{ id: string; tenantUserId: string }>(`SELECT id, "tenantUserId" FROM entries WHERE "tenantId" = $1`, [t]);
        entries.splice(
          0,
          entries.length,
          ...rows.flatMap((row) => people.filter((person) => person.id === row.tenantUserId).map((owner) => ({ id: row.id, owner }))),
        );
      }
      if (step % 30 === 29) {
        const now = await compare(t);
        expect(now.heldDimensions, `after step ${step}`).toEqual(now.expectedDimensions);
        expect(now.heldDayDimensions, `after step ${step}`).toEqual(now.expectedDayDimensions);
      }
    }

    // An import writes its entries (their tags among them) in bulk, as members of its own.
    const form = new FormData();
    form.append('source', 'toggl');
    form.append('timezone', 'Europe/Berlin');
    form.append('file', new Blob([fs.readFileSync(path.join(import.meta.dirname, 'fixtures', 'imports', 'toggl.csv'))], { type: 'text/csv' }), 'toggl.csv');
    const started = await fetch(`${server.url}/tenants/${t}/imports`, { method: 'POST', headers: { authorization: `Bearer ${tenant.key}` }, body: form });
    expect(started.status).toBe(202);
    const { id: importId } = (await started.json()) as { id: string };
    await eventually(async () => {
      const body = (await (await fetch(`${server.url}/tenants/${t}/imports/${importId}`, { headers: { authorization: `Bearer ${tenant.key}` } })).json()) as {
        status: string;
        counts: { imported: number };
      };
      expect(body.status).toBe('done');
      expect(body.counts.imported).toBeGreaterThan(0);
    }, 30_000);

    const { heldDimensions, expectedDimensions, heldDayDimensions, expectedDayDimensions, inconsistentZeros } = await compare(t);
    const keys = (dimension: string) => [...new Set(expectedDimensions.filter((row) => row.dimension === dimension).map((row) => row.key))];
    expect(keys('user').length).toBeGreaterThanOrEqual(4);
    expect(keys('tag')).toEqual(expect.arrayContaining(['', 'design', 'dev', 'bug', 'ops']));
    expect(heldDimensions).toEqual(expectedDimensions);
    expect(heldDayDimensions).toEqual(expectedDayDimensions);
    expect(expectedDayDimensions.length).toBeGreaterThan(expectedDimensions.length);
    expect(inconsistentZeros).toBe(0);

    // The writes above are random (PostgreSQL's random() among them), so any one filter below may have nothing left
    // to read. Every filter finds at least these: each member's billable and non-billable work on the first
    // project (the client's), tagged dev, inside both short periods, one of each approved.
    for (const person of [member, colleague]) {
      for (const [day, billable] of [
        ['2026-02-05', false],
        ['2026-03-11', true],
      ] as const) {
        const anchor = await admin.api.post<Entry>(`/tenants/${t}/entries`, {
          tenantUserId: person.id,
          startedAt: `${day}T15:00:00Z`,
          endedAt: `${day}T16:30:00Z`,
          billable,
          tags: ['dev'],
          projectId: projects[0] as string,
        });
        check(anchor, 201);
        if (billable) {
          check(await person.api.post(`/tenants/${t}/entries/${anchor.body.id}/submit`), 200);
          check(await admin.api.post(`/tenants/${t}/entries/${anchor.body.id}/approve`), 200);
        }
      }
    }

    // Summaries by member and by tag: from the member and tag totals where they serve (whole weeks, the days at the
    // ends from their day rows; by day or month, or without a whole week, the day rows alone), from the entries where
    // they do not; the same answer either way.
    const notAligned = { from: '2026-02-04', to: '2026-03-26' };
    const aligned = { from: '2026-02-02', to: '2026-03-29' };
    for (const query of [
      { ...notAligned, groupBy: 'user' },
      { ...notAligned, groupBy: 'tag' },
      { ...aligned, groupBy: 'user' },
      { ...aligned, groupBy: 'tag' },
      { ...notAligned, groupBy: 'user', subGroupBy: 'week' },
      { ...notAligned, groupBy: 'week', subGroupBy: 'user' },
      { ...notAligned, groupBy: 'tag', subGroupBy: 'billable' },
      { ...notAligned, groupBy: 'status', subGroupBy: 'tag' },
      { ...notAligned, groupBy: 'user', billable: 'true' },
      { ...notAligned, groupBy: 'tag', status: 'approved' },
      { ...notAligned, groupBy: 'status', tenantUserId: colleague.id },
      { ...notAligned, groupBy: 'user', tenantUserId: member.id, billable: 'false' },
      // Tuesday to Saturday (New York's Monday weeks): six days at each end from the day rows.
      { from: '2026-02-03', to: '2026-03-28', groupBy: 'user' },
      { from: '2026-02-03', to: '2026-03-28', groupBy: 'tag', subGroupBy: 'week' },
      // From the day rows alone.
      { ...notAligned, groupBy: 'user', subGroupBy: 'month' },
      { ...notAligned, groupBy: 'day', subGroupBy: 'tag' },
      { ...notAligned, groupBy: 'day', tenantUserId: colleague.id, status: 'approved' },
      { from: '2026-02-04', to: '2026-02-07', groupBy: 'tag' },
      { from: '2026-03-10', to: '2026-03-13', groupBy: 'user', billable: 'true' },
      // What the totals do not hold: read from the entries.
      { ...notAligned, groupBy: 'user', projectId: projects[0] as string },
      { ...notAligned, groupBy: 'tag', clientId: client },
      { ...notAligned, groupBy: 'user', tag: 'dev' },
      { ...notAligned, groupBy: 'tag', tenantUserId: member.id },
    ]) {
      const { fast, slow, entries } = await fastAndSlow(admin.api, t, query);
      expect(fast, JSON.stringify(query)).toEqual(slow);
      expect(entries, JSON.stringify(query)).toBeGreaterThan(0);
    }
  }, 120_000);

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
    expect(afterTimer.heldDimensions).toEqual(afterTimer.expectedDimensions);
    expect(afterTimer.heldDayDimensions).toEqual(afterTimer.expectedDayDimensions);
    // A rebuild (what the migrations run for existing entries) gives the same rows.
    const before = await compare(t);
    await database.query(`SELECT entry_day_totals_rebuild($1, 'Asia/Kolkata')`, [t]);
    const rebuilt = await compare(t);
    expect([rebuilt.held, rebuilt.heldWeeks, rebuilt.heldDimensions, rebuilt.heldDayDimensions]).toEqual([
      before.held,
      before.heldWeeks,
      before.heldDimensions,
      before.heldDayDimensions,
    ]);
    await database.query('DELETE FROM tenants WHERE id = $1', [t]);
    for (const table of ['entry_day_totals', 'entry_week_totals', 'entry_dimension_week_totals', 'entry_dimension_day_totals']) {
      expect((await database.query(`SELECT count(*)::int AS n FROM ${table} WHERE "tenantId" = $1`, [t])).rows[0]?.n, table).toBe(0);
    }
  });
});
