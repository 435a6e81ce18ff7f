/**
 * One entry, three writers, the same values (issue 30, section 2): generated
 * entries go through the API (POST entries), an import (a generic CSV through
 * POST imports, in the tenant's zone, Europe/Berlin) and the seed's writer
 * (`writeSeedEntries`), and each path records the same minutes, rates and
 * amounts, or refuses the same entries: a zero-length one (0 worked minutes)
 * is a 400 for the API, a skipped row for an import and an error for the
 * seed; a break as long as the entry is a 400, a failed row and an error.
 * The amounts are checked against integer-cent arithmetic besides.
 * Bounded: a few fixed edges and tens of generated entries per run, two runs.
 */
import { stringify } from 'csv-stringify/sync';
import fc from 'fast-check';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeSeedEntries, type SeedEntry } from '../src/cli/seed/entries.js';
import { Prisma } from '../src/generated/prisma/client.js';
import { billableOf, type RateSources } from '../src/modules/tracking/entry/entry.values.js';
import { settingsOf } from '../src/modules/platform/tenant/tenant.settings.js';
import { eventually } from './helpers/eventually.js';
import { startIdentityProvider, type IdentityProvider } from './helpers/oidc.js';
import { seeder, type SeededMember, type SeededTenant } from './helpers/seed.js';
import { startTestServer, type TestServer } from './helpers/server.js';

const zone = 'Europe/Berlin';

let provider: IdentityProvider;
let server: TestServer;
let pool: pg.Pool;
let tenant: SeededTenant;
let people: Record<'a' | 'b', SeededMember>;
let projects: Record<ProjectName, { id: string; billable: boolean }>;

type ProjectName = 'Rated' | 'ClientPriced' | 'Unbilled';

/** The money model the tenant is given, in cents, to work out what each entry should cost by hand. */
const model = {
  tenantDefault: 7500n,
  own: { a: 10000n, b: null },
  cost: { a: 4135n, b: null },
  projectMember: { a: { Rated: 10101n }, b: {} } as Record<'a' | 'b', Partial<Record<ProjectName, bigint>>>,
  project: { Rated: 13333n, ClientPriced: null, Unbilled: null } as Record<ProjectName, bigint | null>,
  client: { Rated: 8750n, ClientPriced: 8750n, Unbilled: null } as Record<ProjectName, bigint | null>,
};

beforeAll(async () => {
  provider = await startIdentityProvider();
  server = await startTestServer({ env: provider.env });
  pool = new pg.Pool({ connectionString: server.databaseUrl, max: 2 });
  const step = seeder(server, provider).tenant();
  tenant = await step;
  const api = tenant.api;
  const t = tenant.id;
  expect((await api.patch(`/tenants/${t}`, { settings: { timezone: zone, defaultHourlyRate: '75.00' } })).status).toBe(200);
  people = { a: await step.member('member'), b: await step.member('member') };
  expect((await api.patch(`/tenants/${t}/users/${people.a.id}`, { hourlyRate: '100.00', costRate: '41.35' })).status).toBe(200);
  const acme = await api.post<{ id: string }>(`/tenants/${t}/clients`, { name: 'ACME', hourlyRate: '87.50', currency: 'USD' });
  const project = async (body: Record<string, unknown>) => {
    const created = await api.post<{ id: string; billable: boolean }>(`/tenants/${t}/projects`, body);
    expect(created.status, created.text).toBe(201);
    return { id: created.body.id, billable: created.body.billable };
  };
  projects = {
    Rated: await project({ name: 'Rated', clientId: acme.body.id, hourlyRate: '133.33' }),
    ClientPriced: await project({ name: 'ClientPriced', clientId: acme.body.id }),
    Unbilled: await project({ name: 'Unbilled', billable: false }),
  };
  expect((await api.post(`/tenants/${t}/projects/${projects.Rated.id}/members`, { tenantUserId: people.a.id, hourlyRate: '101.01' })).status).toBe(201);
});
afterAll(async () => {
  await pool?.end();
  await server?.stop();
  await provider?.close();
});

/** What a person would record: who, on what, when, for how long, with what break. */
interface Case {
  who: 'a' | 'b';
  project: ProjectName | null;
  startedAt: Date;
  seconds: number;
  breakMinutes: number;
  billable: boolean | null;
  text: string;
  tags: string[];
}

// Berlin's clock, written out here rather than with src/lib/time.ts: the import reads the file with that module.
const local = new Intl.DateTimeFormat('en-CA', {
  timeZone: zone,
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  hourCycle: 'h23',
});
/** An instant as Berlin's clock shows it: a date and a time. */
function wallClock(instant: Date): { date: string; time: string } {
  const part = Object.fromEntries(local.formatToParts(instant).map((item) => [item.type, item.value]));
  return { date: `${part.year}-${part.month}-${part.day}`, time: `${part.hour}:${part.minute}:${part.second}` };
}
/** A local time the clock shows twice (the hour after 03:00 CEST on the last Sunday of October): a file cannot say which. */
const ambiguous = (instant: Date): boolean =>
  [-3_600_000, 3_600_000].some((shift) => {
    const other = wallClock(new Date(instant.getTime() + shift));
    const own = wallClock(instant);
    return other.date === own.date && other.time === own.time;
  });
const endOf = (entry: Case): Date => new Date(entry.startedAt.getTime() + entry.seconds * 1000);

const edges: Case[] = [
  // 7 minutes at 100.00 an hour: 11.666... is 11.67.
  { who: 'a', project: null, startedAt: new Date('2026-05-12T07:00:00Z'), seconds: 420, breakMinutes: 0, billable: null, text: 'seven minutes', tags: [] },
  // Zero length: no time at all, and 20 seconds (0 minutes).
  { who: 'a', project: null, startedAt: new Date('2026-05-12T08:00:00Z'), seconds: 0, breakMinutes: 0, billable: true, text: 'nothing', tags: [] },
  { who: 'b', project: 'Rated', startedAt: new Date('2026-05-12T08:10:00Z'), seconds: 20, breakMinutes: 0, billable: true, text: 'a blink', tags: [] },
  // 30 seconds is a minute.
  { who: 'b', project: null, startedAt: new Date('2026-05-12T08:20:00Z'), seconds: 30, breakMinutes: 0, billable: true, text: 'half a minute', tags: [] },
  // Breaks: one inside, one as long as the entry, one that leaves 20 seconds.
  {
    who: 'a',
    project: 'Rated',
    startedAt: new Date('2026-05-12T09:00:00Z'),
    seconds: 3 * 3600,
    breakMinutes: 30,
    billable: true,
    text: 'workshop',
    tags: ['Design', 'design', 'UI'],
  },
  {
    who: 'b',
    project: 'ClientPriced',
    startedAt: new Date('2026-05-12T13:00:00Z'),
    seconds: 1800,
    breakMinutes: 30,
    billable: null,
    text: 'all break',
    tags: [],
  },
  {
    who: 'b',
    project: 'ClientPriced',
    startedAt: new Date('2026-05-12T14:00:00Z'),
    seconds: 1820,
    breakMinutes: 30,
    billable: null,
    text: 'almost all break',
    tags: [],
  },
  // The night the clocks go back: 01:30 CEST to 03:30 CET is three hours worked.
  {
    who: 'b',
    project: 'ClientPriced',
    startedAt: new Date('2026-10-24T23:30:00Z'),
    seconds: 3 * 3600,
    breakMinutes: 0,
    billable: null,
    text: 'night shift',
    tags: ['ops'],
  },
  // A project that bills nothing by default.
  { who: 'a', project: 'Unbilled', startedAt: new Date('2026-05-13T07:00:00Z'), seconds: 5400, breakMinutes: 15, billable: null, text: 'internal', tags: [] },
];

const generated: fc.Arbitrary<Case> = fc
  .record({
    who: fc.constantFrom('a' as const, 'b' as const),
    project: fc.constantFrom(null, 'Rated' as const, 'ClientPriced' as const, 'Unbilled' as const),
    // Ordinary days, and the nights the clocks change in Berlin (2026-03-29 forward, 2026-10-25 back).
    startedAt: fc
      .tuple(fc.constantFrom('2026-03-02T06:00:00Z', '2026-03-28T22:00:00Z', '2026-10-24T21:00:00Z'), fc.integer({ min: 0, max: 6 * 3600 }))
      .map(([day, offset]) => new Date(new Date(day).getTime() + offset * 1000)),
    seconds: fc.oneof(fc.integer({ min: 0, max: 120 }), fc.integer({ min: 0, max: 10 * 3600 }), fc.constant(420)),
    breakMinutes: fc.oneof({ arbitrary: fc.constant(0), weight: 3 }, { arbitrary: fc.integer({ min: 0, max: 60 }), weight: 2 }),
    billable: fc.constantFrom(true, false, null),
    text: fc.constantFrom('Review', '  Planning  ', 'Café Müller, "Kraków"', ''),
    tags: fc.array(fc.constantFrom('Design', 'design', ' UI ', 'ops', 'Łódź'), { maxLength: 4 }),
  })
  .filter((entry) => !ambiguous(entry.startedAt) && !ambiguous(endOf(entry)));

let runs = 0;

/** The values an entry was stored with, as text, whichever path wrote it. */
async function stored(where: Prisma.EntryWhereInput) {
  const rows = await server.app.db.entry.findMany({ where: { tenantId: tenant.id, ...where } });
  const money = (value: Prisma.Decimal | null) => value?.toFixed(2) ?? null;
  return new Map(
    rows.map((row) => [
      (row.description ?? '').split(' ')[0] as string,
      {
        tenantUserId: row.tenantUserId,
        projectId: row.projectId,
        startedAt: row.startedAt.toISOString(),
        endedAt: row.endedAt?.toISOString() ?? null,
        breakMinutes: row.breakMinutes,
        durationMinutes: row.durationMinutes,
        // What follows the path's marker.
        text: (row.description ?? '').replace(/^\S+/, ''),
        billable: row.billable,
        tags: row.tags,
        hourlyRate: money(row.hourlyRate),
        costRate: money(row.costRate),
        billableAmount: money(row.billableAmount),
        costAmount: money(row.costAmount),
        currency: row.currency,
      },
    ]),
  );
}

type Outcome = { kind: 'entry' } | { kind: 'zero length' } | { kind: 'refused'; path: string };

/** What the rules say of a case, worked out by hand: its outcome, and its minutes and amounts in cents. */
function expectedOf(entry: Case) {
  const ms = entry.seconds * 1000;
  const worked = ms - entry.breakMinutes * 60_000;
  const outcome: Outcome =
    ms === 0
      ? { kind: 'zero length' }
      : worked <= 0
        ? { kind: 'refused', path: 'breakMinutes' }
        : worked < 30_000
          ? { kind: 'zero length' }
          : { kind: 'entry' };
  const minutes = Math.floor((worked + 30_000) / 60_000);
  const project = entry.project;
  const rate =
    (project ? (model.projectMember[entry.who][project] ?? model.project[project] ?? model.client[project]) : null) ??
    model.own[entry.who] ??
    model.tenantDefault;
  const billable = entry.billable ?? (project ? projects[project].billable : true);
  const cents = (hourly: bigint) => (2n * BigInt(minutes) * hourly + 60n) / 120n;
  const text = (value: bigint) => `${value / 100n}.${String(value % 100n).padStart(2, '0')}`;
  const cost = model.cost[entry.who];
  return {
    outcome,
    durationMinutes: minutes,
    hourlyRate: text(rate),
    billableAmount: billable ? text(cents(rate)) : '0.00',
    costAmount: cost === null ? null : text(cents(cost)),
    currency: project && model.client[project] !== null ? 'USD' : 'EUR',
  };
}

/** The case through POST entries: 201, or a 400 naming the field. */
async function throughApi(marker: string, entry: Case): Promise<Outcome> {
  const answer = await tenant.api.post<{ errors?: { path: string }[] }>(`/tenants/${tenant.id}/entries`, {
    tenantUserId: people[entry.who].id,
    ...(entry.project ? { projectId: projects[entry.project].id } : {}),
    startedAt: entry.startedAt.toISOString(),
    endedAt: endOf(entry).toISOString(),
    breakMinutes: entry.breakMinutes,
    ...(entry.billable === null ? {} : { billable: entry.billable }),
    description: `${marker} ${entry.text}`,
    tags: entry.tags,
  });
  if (answer.status === 201) return { kind: 'entry' };
  expect(answer.status, answer.text).toBe(400);
  const path = answer.body.errors?.[0]?.path ?? '';
  // The API refuses a zero-length entry on its end: "0 minutes is no entry".
  return path === 'endedAt' ? { kind: 'zero length' } : { kind: 'refused', path };
}

/** All cases as one generic CSV through POST imports, read as Berlin's clock shows them. */
async function throughImport(markers: string[], cases: Case[]): Promise<Outcome[]> {
  const header = ['Day', 'Start', 'End day', 'End', 'Mail', 'Project', 'Billable', 'Break', 'Notes', 'Tags'];
  const rows = cases.map((entry, index) => {
    const start = wallClock(entry.startedAt);
    const end = wallClock(endOf(entry));
    return [
      start.date,
      start.time,
      end.date,
      end.time,
      people[entry.who].email,
      entry.project ?? '',
      entry.billable === null ? '' : entry.billable ? 'Yes' : 'no',
      entry.breakMinutes === 0 && index % 2 === 0 ? '' : String(entry.breakMinutes),
      `${markers[index]} ${entry.text}`,
      entry.tags.join(','),
    ];
  });
  const mapping = {
    date: 'Day',
    startTime: 'Start',
    endDate: 'End day',
    endTime: 'End',
    email: 'Mail',
    project: 'Project',
    billable: 'Billable',
    breakMinutes: 'Break',
    description: 'Notes',
    tags: 'Tags',
  };
  const form = new FormData();
  form.append('source', 'generic');
  form.append('mapping', JSON.stringify(mapping));
  form.append('file', new Blob([stringify([header, ...rows])], { type: 'text/csv' }), 'entries.csv');
  const started = await fetch(`${server.url}/tenants/${tenant.id}/imports`, { method: 'POST', headers: { authorization: `Bearer ${tenant.key}` }, body: form });
  const body = (await started.json()) as { id: string };
  expect(started.status, JSON.stringify(body)).toBe(202);
  const done = await eventually(async () => {
    const read = await tenant.api.get<{
      status: string;
      counts: { imported: number; skipped: number; failed: number };
      errors: { row: number; message: string }[];
    }>(`/tenants/${tenant.id}/imports/${body.id}`);
    expect(read.body.status).toBe('done');
    return read.body;
  }, 60_000);
  const imported = await stored({ importFingerprint: { not: null }, description: { startsWith: markers[0]?.split('-')[0] } });
  return cases.map((_, index): Outcome => {
    const failed = done.errors.find((error) => error.row === index + 1);
    if (failed) {
      // The row names what the API names: the break.
      expect(failed.message).toMatch(/breakMinutes/);
      return { kind: 'refused', path: 'breakMinutes' };
    }
    return imported.has(markers[index] as string) ? { kind: 'entry' } : { kind: 'zero length' };
  });
}

/** The case through the seed's writer, with the rates the seed would know it gave. */
async function throughSeed(marker: string, entry: Case, id: string): Promise<Outcome> {
  const project = entry.project;
  const sources: RateSources = {
    memberRate: project ? decimal(model.projectMember[entry.who][project] ?? null) : null,
    projectRate: project ? decimal(model.project[project]) : null,
    clientRate: project ? decimal(model.client[project]) : null,
    ownRate: decimal(model.own[entry.who]),
    costRate: decimal(model.cost[entry.who]),
    currency: project && model.client[project] !== null ? 'USD' : null,
  };
  const row: SeedEntry = {
    id,
    tenantUserId: people[entry.who].id,
    projectId: project ? projects[project].id : null,
    taskId: null,
    vehicleId: null,
    distanceKm: null,
    startedAt: entry.startedAt,
    endedAt: endOf(entry),
    breakMinutes: entry.breakMinutes,
    description: `${marker} ${entry.text}`,
    billable: billableOf(entry.billable, project ? projects[project] : null),
    tags: entry.tags,
    rateSources: sources,
    status: 'draft',
    submittedAt: null,
    reviewedById: null,
    reviewedAt: null,
    rejectionReason: null,
    createdAt: new Date(),
    updatedAt: new Date(),
  };
  const settings = settingsOf(await server.app.db.tenant.findUniqueOrThrow({ where: { id: tenant.id } }));
  const sql = {
    query: async <Row extends Record<string, unknown>>(text: string, values: readonly unknown[] = []) => (await pool.query<Row>(text, [...values])).rows,
  };
  try {
    await writeSeedEntries(sql, { id: tenant.id, settings }, [row]);
    return { kind: 'entry' };
  } catch (error) {
    const message = (error as Error).message;
    expect(message).toMatch(/^seed: /);
    return message.includes('breakMinutes') ? { kind: 'refused', path: 'breakMinutes' } : { kind: 'zero length' };
  }
}

const decimal = (cents: bigint | null) => (cents === null ? null : new Prisma.Decimal(`${cents / 100n}.${String(cents % 100n).padStart(2, '0')}`));

async function checkPaths(cases: Case[]): Promise<void> {
  runs += 1;
  const markers = cases.map((_, index) => `r${runs}-${index + 1}`);
  const api = await Promise.all(cases.map((entry, index) => throughApi(`${markers[index]}-api`, entry)));
  const imported = await throughImport(
    markers.map((marker) => `${marker}-import`),
    cases,
  );
  const seeded: Outcome[] = [];
  for (const [index, entry] of cases.entries()) seeded.push(await throughSeed(`${markers[index]}-seed`, entry, crypto.randomUUID()));
  const written = await stored({ description: { startsWith: `r${runs}-` } });
  let compared = 0;
  for (const [index, entry] of cases.entries()) {
    const marker = markers[index] as string;
    const want = expectedOf(entry);
    const what = `case ${marker}: ${JSON.stringify(entry)}`;
    expect({ api: api[index], import: imported[index], seed: seeded[index] }, what).toEqual({ api: want.outcome, import: want.outcome, seed: want.outcome });
    if (want.outcome.kind !== 'entry') continue;
    const [viaApi, viaImport, viaSeed] = ['api', 'import', 'seed'].map((path) => written.get(`${marker}-${path}`));
    if (!viaApi) throw new Error(`${what}: the API's entry is not stored`);
    expect(viaImport, what).toEqual(viaApi);
    expect(viaSeed, what).toEqual(viaApi);
    expect(viaApi.text, what).toBe(` ${entry.text}`.trimEnd());
    expect(
      {
        durationMinutes: viaApi.durationMinutes,
        hourlyRate: viaApi.hourlyRate,
        billableAmount: viaApi.billableAmount,
        costAmount: viaApi.costAmount,
        currency: viaApi.currency,
      },
      what,
    ).toEqual({
      durationMinutes: want.durationMinutes,
      hourlyRate: want.hourlyRate,
      billableAmount: want.billableAmount,
      costAmount: want.costAmount,
      currency: want.currency,
    });
    compared += 1;
  }
  expect(compared).toBe(cases.filter((entry) => expectedOf(entry).outcome.kind === 'entry').length);
  expect(written.size).toBe(3 * compared);
}

describe('an entry’s values are the same through the API, an import and the seed', () => {
  it('for the edges: 7 minutes at 100.00, zero length, breaks, the night the clocks go back', async () => {
    await checkPaths(edges);
  });

  it('for generated entries', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(generated, { minLength: 15, maxLength: 25 }), (cases) => checkPaths(cases)),
      { numRuns: 2, endOnFailure: true },
    );
  });
});
