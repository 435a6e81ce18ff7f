/**
 * Reports (CONTRACT.md section 8): totals and groups of a period's entries in
 * the report's time zone, the entries behind them, who sees what, bad input,
 * and every grouping pair checked against a plain SQL aggregation.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Entry, Problem, Project } from './generated/openapi/types.gen.js';
import { msAgo } from './helpers/clock.js';
import type { Json } from './helpers/http.js';
import { startIdentityProvider, type IdentityProvider } from './helpers/oidc.js';
import { seedTeam, seeder, type Team } from './helpers/seed.js';
import { startTestServer, type TestServer } from './helpers/server.js';

let provider: IdentityProvider;
let server: TestServer;

beforeAll(async () => {
  provider = await startIdentityProvider();
  server = await startTestServer({ env: provider.env });
});
afterAll(async () => {
  await server?.stop();
  await provider?.close();
});

interface Totals {
  entries: number;
  durationMinutes: number;
  billableMinutes: number;
  billableAmount: string | null;
  costAmount: string | null;
}
interface Group {
  key: string | null;
  label: string;
  totals: Totals;
  subGroups?: Group[];
}
interface Summary {
  from: string;
  to: string;
  timezone: string;
  currency: string;
  totals: Totals;
  groups: Group[];
}

const dimensions = ['project', 'client', 'user', 'task', 'tag', 'billable', 'status', 'day', 'week', 'month'] as const;
type Dimension = (typeof dimensions)[number];
/** entries, minutes, billable minutes, billable amount, cost amount. */
type Sums = [number, number, number, number, number];

/** Entry reports have no absence figures (those are absenceType's: test/absence-reports.test.ts). */
const noAbsences = { absenceDays: null, absenceMinutes: null };

const team = (settings?: Json): Promise<Team> => seedTeam(server, provider, { approvalRequired: true, ...settings });

describe('the summary', () => {
  it('groups by project and week with names and totals that add up, leaving running timers out, members seeing their own', async () => {
    const { tenant, member, colleague, admin } = await team({ defaultHourlyRate: '100.00' });
    const t = tenant.id;
    const alpha = (await admin.api.post<Project>(`/tenants/${t}/projects`, { name: 'Alpha' })).body;
    const post = (who: Team['member'], body: Json) => who.api.post<Entry>(`/tenants/${t}/entries`, body);
    await post(member, { startedAt: '2026-03-02T09:00:00Z', endedAt: '2026-03-02T10:00:00Z', projectId: alpha.id });
    await post(member, { startedAt: '2026-03-10T09:00:00Z', endedAt: '2026-03-10T09:30:00Z' });
    await post(colleague, { startedAt: '2026-03-03T09:00:00Z', endedAt: '2026-03-03T11:00:00Z', projectId: alpha.id, billable: false });
    await post(colleague, { startedAt: msAgo(60_000).toISOString() });
    const query = { from: '2026-03-01', to: '2026-03-31', groupBy: 'project', subGroupBy: 'week' };
    const summary = (await admin.api.get<Summary>(`/tenants/${t}/reports/summary`, { query })).body;
    expect(summary).toMatchObject({ from: '2026-03-01', to: '2026-03-31', timezone: 'UTC', currency: 'EUR' });
    expect(summary.totals).toEqual({
      entries: 3,
      durationMinutes: 210,
      billableMinutes: 90,
      billableAmount: '150.00',
      costAmount: '0.00',
      currency: 'EUR',
      ...noAbsences,
    });
    expect(summary.groups.map((group) => [group.label, group.totals.durationMinutes, group.subGroups?.map((week) => [week.label, week.key])])).toEqual([
      ['Alpha', 180, [['Week of 2026-03-02', '2026-03-02']]],
      ['No project', 30, [['Week of 2026-03-09', '2026-03-09']]],
    ]);
    // A member's report covers their own entries, without amounts.
    const own = (await member.api.get<Summary>(`/tenants/${t}/reports/summary`, { query })).body;
    expect(own.totals).toEqual({
      entries: 2,
      durationMinutes: 90,
      billableMinutes: 90,
      billableAmount: null,
      costAmount: null,
      currency: 'EUR',
      ...noAbsences,
    });
    // The tenant's API key reports on the tenant.
    expect((await tenant.api.get<Summary>(`/tenants/${t}/reports/summary`, { query })).body.totals.entries).toBe(3);
  });

  it('counts days and weeks in the time zone across a daylight-saving change, weeks starting on the tenant’s day', async () => {
    const { tenant, member, admin } = await team({ timezone: 'Europe/Berlin' });
    const t = tenant.id;
    // Berlin moves to summer time at 01:00 UTC on Sunday 29 March 2026.
    for (const [startedAt, endedAt] of [
      ['2026-03-28T23:30:00Z', '2026-03-29T00:30:00Z'], // 00:30 CET on Sunday the 29th
      ['2026-03-29T21:30:00Z', '2026-03-29T21:45:00Z'], // 23:30 CEST, still Sunday
      ['2026-03-29T22:30:00Z', '2026-03-29T23:00:00Z'], // 00:30 CEST on Monday the 30th
    ]) {
      expect((await member.api.post(`/tenants/${t}/entries`, { startedAt, endedAt })).status).toBe(201);
    }
    const summary = async (groupBy: Dimension, extra: Json = {}) =>
      (await admin.api.get<Summary>(`/tenants/${t}/reports/summary`, { query: { from: '2026-03-28', to: '2026-03-31', groupBy, ...extra } })).body;
    expect((await summary('day')).groups.map((group) => [group.key, group.totals.durationMinutes])).toEqual([
      ['2026-03-29', 75],
      ['2026-03-30', 30],
    ]);
    expect((await summary('week')).groups.map((group) => [group.label, group.totals.entries])).toEqual([
      ['Week of 2026-03-23', 2],
      ['Week of 2026-03-30', 1],
    ]);
    await admin.api.patch(`/tenants/${t}`, { settings: { weekStart: 'sunday' } });
    expect((await summary('week')).groups.map((group) => [group.key, group.totals.entries])).toEqual([['2026-03-29', 3]]);
    // In UTC, the first entry started on the 28th.
    expect((await summary('day', { timezone: 'UTC' })).groups.map((group) => group.key)).toEqual(['2026-03-28', '2026-03-29']);
    expect((await summary('day', { timezone: 'UTC' })).timezone).toBe('UTC');
    // With fillGaps, every day of the range, the empty ones with zero totals.
    expect((await summary('day', { fillGaps: true })).groups.map((group) => [group.key, group.totals.entries])).toEqual([
      ['2026-03-28', 0],
      ['2026-03-29', 2],
      ['2026-03-30', 1],
      ['2026-03-31', 0],
    ]);
    const months = (
      await admin.api.get<Summary>(`/tenants/${t}/reports/summary`, { query: { from: '2026-01-15', to: '2026-04-02', groupBy: 'month', fillGaps: true } })
    ).body;
    expect(months.groups.map((group) => [group.key, group.label, group.totals.entries])).toEqual([
      ['2026-01', 'January 2026', 0],
      ['2026-02', 'February 2026', 0],
      ['2026-03', 'March 2026', 3],
      ['2026-04', 'April 2026', 0],
    ]);
  });

  it('counts an entry with two tags under each tag, once in the totals', async () => {
    const { tenant, member, admin } = await team();
    const t = tenant.id;
    await member.api.post(`/tenants/${t}/entries`, { startedAt: '2026-04-01T09:00:00Z', endedAt: '2026-04-01T10:00:00Z', tags: ['design', 'meeting'] });
    await member.api.post(`/tenants/${t}/entries`, { startedAt: '2026-04-02T09:00:00Z', endedAt: '2026-04-02T09:30:00Z' });
    const summary = (await admin.api.get<Summary>(`/tenants/${t}/reports/summary`, { query: { from: '2026-04-01', to: '2026-04-30', groupBy: 'tag' } })).body;
    expect(summary.totals).toMatchObject({ entries: 2, durationMinutes: 90 });
    expect(summary.groups.map((group) => [group.key, group.label, group.totals.durationMinutes])).toEqual([
      ['design', 'design', 60],
      ['meeting', 'meeting', 60],
      [null, 'No tag', 30],
    ]);
  });

  it('refuses bad input with the field named, and finds nothing through another tenant’s ids', async () => {
    const { tenant, admin } = await team();
    const t = tenant.id;
    const other = await seeder(server).tenant();
    const theirs = (await other.api.post<Project>(`/tenants/${other.id}/projects`, { name: 'Theirs' })).body;
    const base = { from: '2026-01-01', to: '2026-01-31', groupBy: 'project' };
    for (const [query, field] of [
      [{ ...base, from: '2026-02-01' }, 'to'],
      [{ ...base, from: '2020-01-01', to: '2025-01-01' }, 'to'],
      [{ ...base, groupBy: 'colour' }, 'groupBy'],
      [{ ...base, subGroupBy: 'project' }, 'subGroupBy'],
      [{ ...base, timezone: 'Mars/Olympus' }, 'timezone'],
      [{ groupBy: 'project' }, 'from'],
      // A date that is not one is named, not a 500 (the range check ran on it).
      [{ ...base, from: '-1', to: '2099-12-31' }, 'from'],
      [{ ...base, from: '2026-02-30' }, 'from'],
      [{ ...base, to: 'tomorrow' }, 'to'],
    ] as const) {
      const answer = await admin.api.get<Problem>(`/tenants/${t}/reports/summary`, { query });
      expect(answer.status, field).toBe(400);
      expect(
        answer.body.errors?.map((error) => error.path),
        field,
      ).toContain(field);
    }
    for (const [query, field] of [
      [{ from: '-1', to: '2026-01-31' }, 'from'],
      [{ from: '2026-01-01', to: '2026-1-31' }, 'to'],
    ] as const) {
      const answer = await admin.api.get<Problem>(`/tenants/${t}/reports/detailed`, { query });
      expect(answer.status, field).toBe(400);
      expect(answer.body.errors?.map((error) => error.path)).toEqual([field]);
    }
    const graphql = await admin.api.graphql(
      `query ($t: ID!) { reportSummary(tenantId: $t, from: "2026-02-30", to: "2026-03-31", groupBy: project) { groupBy } }`,
      {
        t,
      },
    );
    expect(graphql.body).toMatchObject({ errors: [{ extensions: { code: 'VALIDATION_FAILED', errors: [{ path: 'from' }] } }] });
    const foreign = await admin.api.get<Summary>(`/tenants/${t}/reports/summary`, { query: { ...base, projectId: theirs.id } });
    expect(foreign.status).toBe(200);
    expect(foreign.body.totals.entries).toBe(0);
    expect(
      (await admin.api.get<unknown[]>(`/tenants/${t}/reports/detailed`, { query: { from: '2026-01-01', to: '2026-01-31', projectId: theirs.id } })).body,
    ).toEqual([]);
  });
});

describe('the detailed report', () => {
  it('lists the entries newest first with names and amounts, amounts hidden from members, over REST and GraphQL', async () => {
    const { tenant, member, admin } = await team({ defaultHourlyRate: '60.00' });
    const t = tenant.id;
    const client = (await admin.api.post<{ id: string }>(`/tenants/${t}/clients`, { name: 'Globex' })).body;
    const project = (await admin.api.post<Project>(`/tenants/${t}/projects`, { name: 'Beta', clientId: client.id })).body;
    await member.api.post(`/tenants/${t}/entries`, { startedAt: '2026-05-04T09:00:00Z', endedAt: '2026-05-04T10:30:00Z', projectId: project.id });
    await member.api.post(`/tenants/${t}/entries`, { startedAt: '2026-05-05T09:00:00Z', endedAt: '2026-05-05T09:15:00Z' });
    const query = { from: '2026-05-01', to: '2026-05-31' };
    const rows = (await admin.api.get<Json[]>(`/tenants/${t}/reports/detailed`, { query })).body;
    expect(rows.map((row) => [row.startedAt, row.projectName, row.clientName, row.durationMinutes, row.billableAmount])).toEqual([
      ['2026-05-05T09:00:00.000Z', null, null, 15, '15.00'],
      ['2026-05-04T09:00:00.000Z', 'Beta', 'Globex', 90, '90.00'],
    ]);
    expect(rows[0]?.memberName).toBeTruthy();
    expect((await admin.api.get<Json[]>(`/tenants/${t}/reports/detailed`, { query: { ...query, clientId: client.id } })).body).toHaveLength(1);
    expect(
      (await admin.api.get<Json[]>(`/tenants/${t}/reports/detailed`, { query: { ...query, limit: 1, offset: 1 } })).body.map((row) => row.projectName),
    ).toEqual(['Beta']);
    expect((await member.api.get<Json[]>(`/tenants/${t}/reports/detailed`, { query })).body.map((row) => row.billableAmount)).toEqual([null, null]);
    const graphql = await admin.api.graphql(
      `query ($t: ID!) {
        reportSummary(tenantId: $t, from: "2026-05-01", to: "2026-05-31", groupBy: client, filter: { billable: true }) {
          totals { durationMinutes billableAmount } groups { label totals { durationMinutes } }
        }
        reportEntries(tenantId: $t, from: "2026-05-01", to: "2026-05-31", first: 1) { edges { node { durationMinutes project { name } } } }
      }`,
      { t },
    );
    expect(graphql.body).toEqual({
      data: {
        reportSummary: {
          totals: { durationMinutes: 105, billableAmount: '105.00' },
          groups: [
            { label: 'Globex', totals: { durationMinutes: 90 } },
            { label: 'No client', totals: { durationMinutes: 15 } },
          ],
        },
        reportEntries: { edges: [{ node: { durationMinutes: 15, project: null } }] },
      },
    });
  });
});

describe('every grouping pair', () => {
  it('adds up to a plain SQL aggregation of the same entries, in other time zones too', async () => {
    const { tenant, member, colleague, manager, admin } = await team({ timezone: 'America/New_York', weekStart: 'sunday' });
    const t = tenant.id;
    // A seeded generator: the same entries on every run.
    let state = 20261125;
    const random = () => {
      state = (state * 1103515245 + 12345) % 2 ** 31;
      return state / 2 ** 31;
    };
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
    const clients = [(await admin.api.post<{ id: string }>(`/tenants/${t}/clients`, { name: 'Client A', hourlyRate: '90.00' })).body.id, null];
    const projects: (string | null)[] = [null];
    for (const name of ['P1', 'P2', 'P3']) {
      const clientId = pick(clients);
      projects.push((await admin.api.post<Project>(`/tenants/${t}/projects`, { name, ...(clientId ? { clientId } : {}), hourlyRate: '70.50' })).body.id);
    }
    const list = (await admin.api.post<{ id: string }>(`/tenants/${t}/task-lists`, { name: 'List' })).body.id;
    const tasks = [null, (await admin.api.post<{ id: string }>(`/tenants/${t}/task-lists/${list}/tasks`, { title: 'Task' })).body.id];
    const people = [member, colleague, manager];
    // Cost rates, so that cost amounts add up to something (entries copy them when written).
    for (const [person, costRate] of [
      [member, '40'],
      [colleague, '33.33'],
    ] as const) {
      expect((await admin.api.patch(`/tenants/${t}/users/${person.id}`, { costRate })).status).toBe(200);
    }
    // Starts around midnights and the daylight-saving changes of New York and Berlin (8 and 29 March, 1 November).
    const anchors = ['2026-03-08T06:00:00Z', '2026-03-29T00:30:00Z', '2026-11-01T05:30:00Z', '2026-02-28T04:59:00Z', '2026-12-31T23:45:00Z'];
    for (let index = 0; index < 60; index += 1) {
      const started = new Date(
        new Date(pick(anchors)).getTime() + Math.floor(random() * 48 - 24) * 15 * 60_000 + index * 7 * 24 * 3600_000 * (random() < 0.2 ? 1 : 0),
      );
      const minutes = 1 + Math.floor(random() * 200);
      const who = pick(people);
      const taskId = pick(tasks);
      const answer = await who.api.post(`/tenants/${t}/entries`, {
        startedAt: started.toISOString(),
        endedAt: new Date(started.getTime() + minutes * 60_000).toISOString(),
        ...(taskId ? { taskId } : { projectId: pick(projects) ?? undefined }),
        billable: random() < 0.7,
        tags: [...new Set([pick(['a', 'b', 'c']), ...(random() < 0.4 ? [pick(['a', 'b', 'c'])] : [])])].filter(() => random() < 0.85),
        description: `entry ${index}`,
      });
      expect(answer.status, JSON.stringify(answer.body)).toBe(201);
    }
    // A running timer, which no report counts.
    await member.api.post(`/tenants/${t}/entries`, { startedAt: msAgo(5 * 60_000).toISOString() });

    const from = '2026-01-01';
    const to = '2027-01-31';
    for (const timezone of ['America/New_York', 'Europe/Berlin']) {
      const keyOf = (dimension: Dimension, zone: string): string => {
        const local = `("startedAt" AT TIME ZONE '${zone}')`;
        return {
          project: `e."projectId"`,
          client: `(SELECT "clientId" FROM projects WHERE id = e."projectId")`,
          user: `e."tenantUserId"`,
          task: `e."taskId"`,
          tag: 'tag',
          billable: `e.billable::text`,
          status: `e.status::text`,
          day: `to_char(${local}::date, 'YYYY-MM-DD')`,
          // Sunday weeks: the day minus its weekday number (Sunday = 0).
          week: `to_char(${local}::date - extract(dow FROM ${local})::int, 'YYYY-MM-DD')`,
          month: `to_char(${local}::date, 'YYYY-MM')`,
        }[dimension];
      };
      const sqlTotals = async (dimensionsOf: Dimension[]): Promise<Map<string, Sums>> => {
        const tagged = dimensionsOf.includes('tag');
        const keys = dimensionsOf.map((dimension) => keyOf(dimension, timezone));
        const rows = await server.app.db.$queryRawUnsafe<
          { key: string; entries: number; minutes: number; billable: number; billableAmount: string; costAmount: string }[]
        >(
          `SELECT concat_ws('|', ${keys.map((key) => `coalesce(${key}, '-')`).join(', ') || "''"}) AS key, count(*)::int AS entries,
                  sum("durationMinutes")::int AS minutes, coalesce(sum("durationMinutes") FILTER (WHERE billable), 0)::int AS billable,
                  sum("billableAmount")::text AS "billableAmount", sum("costAmount")::text AS "costAmount"
             FROM entries e ${tagged ? `LEFT JOIN LATERAL unnest(CASE WHEN cardinality(e.tags) = 0 THEN ARRAY[NULL]::text[] ELSE e.tags END) tag ON true` : ''}
            WHERE e."tenantId" = $1 AND e."endedAt" IS NOT NULL
              AND (e."startedAt" AT TIME ZONE '${timezone}')::date BETWEEN $2::date AND $3::date
            GROUP BY 1`,
          t,
          from,
          to,
        );
        return new Map(rows.map((row) => [row.key, [row.entries, row.minutes, row.billable, Number(row.billableAmount), Number(row.costAmount)]]));
      };
      const all = await sqlTotals([]);
      for (const groupBy of dimensions) {
        const expectedGroups = await sqlTotals([groupBy]);
        for (const subGroupBy of [undefined, ...dimensions.filter((dimension) => dimension !== groupBy)]) {
          const query = { from, to, timezone, groupBy, ...(subGroupBy ? { subGroupBy } : {}) };
          const answer = await admin.api.get<Summary>(`/tenants/${t}/reports/summary`, { query });
          expect(answer.status, JSON.stringify(query)).toBe(200);
          const summary = answer.body;
          const label = `${timezone} ${groupBy} x ${subGroupBy ?? '-'}`;
          // Amounts are exact decimal strings: equal decimals read as equal numbers.
          const sums = (totals: Totals): Sums => [
            totals.entries,
            totals.durationMinutes,
            totals.billableMinutes,
            Number(totals.billableAmount),
            Number(totals.costAmount),
          ];
          expect(sums(summary.totals), label).toEqual(all.get(''));
          const actualGroups = new Map(summary.groups.map((group) => [group.key ?? '-', sums(group.totals)]));
          expect(actualGroups, label).toEqual(expectedGroups);
          if (groupBy !== 'tag') {
            // The groups add up to the totals (a tag grouping counts an entry once per tag: it does not).
            const summed = summary.groups.reduce((sum, group) => sum + group.totals.durationMinutes, 0);
            expect(summed, label).toBe(summary.totals.durationMinutes);
          }
          if (subGroupBy) {
            const expectedSub = await sqlTotals([groupBy, subGroupBy]);
            const actualSub = new Map(
              summary.groups.flatMap((group) => (group.subGroups ?? []).map((sub) => [`${group.key ?? '-'}|${sub.key ?? '-'}`, sums(sub.totals)] as const)),
            );
            expect(actualSub, label).toEqual(expectedSub);
          }
        }
      }
    }
  }, 120_000);
});
