/**
 * Absences in reports (issue 39, part 5; CONTRACT.md section 11): the `absenceType` dimension counts approved
 * absences in days and minutes, over REST and GraphQL, in CSV, by whom the Absence scope lets see them, never
 * another tenant's; its refusals name the field; its statements do not grow with the members.
 *
 * May 2027 in Bavaria (the tenant's region), standard week of 5 x 480 minutes, figures by hand:
 * - member, Vacation Mon 3 to Mon 10: Thu 6 is Ascension, Sat 8 and Sun 9 a weekend: 5 days, 2400 min;
 * - member, Vacation Wed 12 morning: 0.5 days, 240 min;
 * - member, Sickness Fri 14 to Mon 17: Whit Monday 17 and the weekend count nothing: 1 day, 480 min;
 * - member, Vacation Mon 31 May to Wed 2 June: May 31 only inside the period: 1 day, 480 min;
 * - member, Vacation Wed 26 requested, not approved: nothing;
 * - colleague, part time (Mon-Thu 360, Fri 0): Sickness Thu 20 to Fri 21: 1 day, 360 min;
 *   Vacation Tue 25 afternoon: 0.5 days, 180 min.
 * Vacation 7 days, 3300 min; Sickness 2 days, 840 min; 9 days, 4140 min in all.
 */
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AbsenceType, Problem } from './generated/openapi/types.gen.js';
import { readSheet } from 'read-excel-file/node';
import { download, pdfText } from './helpers/files.js';
import type { Json } from './helpers/http.js';
import { startIdentityProvider, type IdentityProvider } from './helpers/oidc.js';
import { seedTeam, type SeededMember, type Team } from './helpers/seed.js';
import { startTestServer, type TestServer } from './helpers/server.js';

let provider: IdentityProvider;
let server: TestServer;
let crew: Team;
let other: Team;
interface Totals {
  entries: number;
  durationMinutes: number;
  billableAmount: string | null;
  absenceDays: number | null;
  absenceMinutes: number | null;
}
interface Group {
  key: string | null;
  label: string;
  totals: Totals;
  subGroups?: Group[];
}
interface Summary {
  totals: Totals;
  groups: Group[];
}

const may = { from: '2027-05-01', to: '2027-05-31' };
const week = (mon: number, tue: number, wed: number, thu: number, fri: number) => ({ mon, tue, wed, thu, fri, sat: 0, sun: 0 });
const base = (team: Team) => `/tenants/${team.tenant.id}`;

async function types(team: Team): Promise<Record<string, AbsenceType>> {
  const listed = await team.member.api.get<AbsenceType[]>(`${base(team)}/absence-types`);
  return Object.fromEntries(listed.body.map((type) => [type.kind, type]));
}

/** An absence the admin records for `who`, approved unless `pending`. */
async function absence(team: Team, who: SeededMember, type: AbsenceType, body: Json, { pending = false } = {}): Promise<void> {
  const created = await team.admin.api.post<{ id: string; status: string }>(`${base(team)}/absences`, {
    absenceTypeId: type.id,
    tenantUserId: who.id,
    ...body,
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  if (pending || created.body.status === 'approved') return;
  const approved = await team.manager.api.post<{ status: string }>(`${base(team)}/absences/${created.body.id}/approve`);
  expect(approved.body.status).toBe('approved');
}

beforeAll(async () => {
  provider = await startIdentityProvider();
  server = await startTestServer({ env: provider.env });
  crew = await seedTeam(server, provider, { approvalRequired: true, timezone: 'Europe/Berlin', holidayRegion: 'DE-BY' });
  const { vacation, sickness } = await types(crew);
  if (!vacation || !sickness) throw new Error('no vacation or sickness type');
  const schedule = await crew.admin.api.post(`${base(crew)}/users/${crew.colleague.id}/work-schedules`, {
    validFrom: '2027-01-01',
    minutes: week(360, 360, 360, 360, 0),
  });
  expect(schedule.status, JSON.stringify(schedule.body)).toBe(201);
  await absence(crew, crew.member, vacation, { startDate: '2027-05-03', endDate: '2027-05-10' });
  await absence(crew, crew.member, vacation, { startDate: '2027-05-12', endDate: '2027-05-12', halfDay: 'am' });
  await absence(crew, crew.member, sickness, { startDate: '2027-05-14', endDate: '2027-05-17' });
  await absence(crew, crew.member, vacation, { startDate: '2027-05-31', endDate: '2027-06-02' });
  await absence(crew, crew.member, vacation, { startDate: '2027-05-26', endDate: '2027-05-26' }, { pending: true });
  await absence(crew, crew.colleague, sickness, { startDate: '2027-05-20', endDate: '2027-05-21' });
  await absence(crew, crew.colleague, vacation, { startDate: '2027-05-25', endDate: '2027-05-25', halfDay: 'pm' });
  // Another tenant's team, absent all month: none of it may show in the first tenant's reports.
  other = await seedTeam(server, provider, { approvalRequired: true, timezone: 'Europe/Berlin', holidayRegion: 'DE-BY' });
  await absence(other, other.member, (await types(other)).vacation as AbsenceType, { startDate: '2027-05-03', endDate: '2027-05-28' });
});
afterAll(async () => {
  await server?.stop();
  await provider?.close();
});

const summary = (who: SeededMember | Team['tenant'], query: Json) => who.api.get<Summary>(`${base(crew)}/reports/summary`, { query: { ...may, ...query } });
/** label, days, minutes of each group (and of its sub-groups). */
const figures = (groups: Group[]): unknown[] =>
  groups.map((group) => [group.label, group.totals.absenceDays, group.totals.absenceMinutes, ...(group.subGroups ? [figures(group.subGroups)] : [])]);

describe('the absenceType dimension', () => {
  it('gives days and minutes by type, half days half, holidays and weekends not counted, pending absences left out', async () => {
    const answer = await summary(crew.admin, { groupBy: 'absenceType' });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body.totals).toMatchObject({ entries: 0, durationMinutes: 0, billableAmount: null, absenceDays: 9, absenceMinutes: 4140 });
    expect(figures(answer.body.groups)).toEqual([
      ['Vacation', 7, 3300],
      ['Sickness', 2, 840],
    ]);
    const ids = await types(crew);
    expect(answer.body.groups.map((group) => group.key)).toEqual([ids.vacation?.id, ids.sickness?.id]);
    // Entry reports keep their shape: no absence figures there.
    const entries = await summary(crew.admin, { groupBy: 'user' });
    expect(entries.body.totals).toMatchObject({ absenceDays: null, absenceMinutes: null });
  });

  it('by member and type, and by week and type', async () => {
    const byMember = await summary(crew.admin, { groupBy: 'user', subGroupBy: 'absenceType' });
    expect(byMember.body.groups.map((group) => group.key)).toEqual([crew.member.id, crew.colleague.id]);
    expect(figures(byMember.body.groups).map((group) => (group as unknown[]).slice(1))).toEqual([
      [
        7.5,
        3600,
        [
          ['Vacation', 6.5, 3120],
          ['Sickness', 1, 480],
        ],
      ],
      [
        1.5,
        540,
        [
          ['Sickness', 1, 360],
          ['Vacation', 0.5, 180],
        ],
      ],
    ]);
    const byWeek = await summary(crew.admin, { groupBy: 'week', subGroupBy: 'absenceType' });
    expect(figures(byWeek.body.groups)).toEqual([
      ['Week of 2027-05-03', 4, 1920, [['Vacation', 4, 1920]]],
      [
        'Week of 2027-05-10',
        2.5,
        1200,
        [
          ['Vacation', 1.5, 720],
          ['Sickness', 1, 480],
        ],
      ],
      ['Week of 2027-05-17', 1, 360, [['Sickness', 1, 360]]],
      ['Week of 2027-05-24', 0.5, 180, [['Vacation', 0.5, 180]]],
      ['Week of 2027-05-31', 1, 480, [['Vacation', 1, 480]]],
    ]);
    // Filtered by member: the colleague's only.
    const colleague = await summary(crew.admin, { groupBy: 'absenceType', tenantUserId: crew.colleague.id });
    expect(colleague.body.totals).toMatchObject({ absenceDays: 1.5, absenceMinutes: 540 });
  });

  it('shows a member their own absences only, as the Absence scope says; over GraphQL too', async () => {
    const own = await summary(crew.member, { groupBy: 'absenceType' });
    expect(own.body.totals).toMatchObject({ absenceDays: 7.5, absenceMinutes: 3600 });
    expect(figures(own.body.groups)).toEqual([
      ['Vacation', 6.5, 3120],
      ['Sickness', 1, 480],
    ]);
    const graphql = await crew.colleague.api.graphql<{ reportSummary: Summary }>(
      `query ($t: ID!) { reportSummary(tenantId: $t, from: "2027-05-01", to: "2027-05-31", groupBy: absenceType) {
          totals { absenceDays absenceMinutes } groups { label totals { absenceDays absenceMinutes } } } }`,
      { t: crew.tenant.id },
    );
    expect(graphql.body.data?.reportSummary).toEqual({
      totals: { absenceDays: 1.5, absenceMinutes: 540 },
      groups: [
        { label: 'Sickness', totals: { absenceDays: 1, absenceMinutes: 360 } },
        { label: 'Vacation', totals: { absenceDays: 0.5, absenceMinutes: 180 } },
      ],
    });
  });

  it('exports CSV with days, minutes and hours, a member’s with their own only', async () => {
    const file = async (headers: Record<string, string>) => {
      const { response, bytes } = await download(server.url, `${base(crew)}/reports/summary`, { ...may, groupBy: 'absenceType', format: 'csv' }, headers);
      expect(response.status).toBe(200);
      return parse(bytes, { columns: true }) as Record<string, string>[];
    };
    expect(await file({ authorization: `Bearer ${crew.tenant.key}` })).toEqual([
      { Group: 'Vacation', 'Sub-group': '', Days: '7.00', Minutes: '3300', Hours: '55.00' },
      { Group: 'Sickness', 'Sub-group': '', Days: '2.00', Minutes: '840', Hours: '14.00' },
      { Group: 'Total', 'Sub-group': '', Days: '9.00', Minutes: '4140', Hours: '69.00' },
    ]);
    expect(await file({ cookie: crew.member.cookie })).toEqual([
      { Group: 'Vacation', 'Sub-group': '', Days: '6.50', Minutes: '3120', Hours: '52.00' },
      { Group: 'Sickness', 'Sub-group': '', Days: '1.00', Minutes: '480', Hours: '8.00' },
      { Group: 'Total', 'Sub-group': '', Days: '7.50', Minutes: '3600', Hours: '60.00' },
    ]);
    // The sheet keeps half days (two places), the PDF prints the same figures for people.
    const query = { ...may, groupBy: 'user', subGroupBy: 'absenceType' };
    const admin = { authorization: `Bearer ${crew.tenant.key}` };
    const sheet = await readSheet((await download(server.url, `${base(crew)}/reports/summary`, { ...query, format: 'xlsx' }, admin)).bytes);
    const headers = sheet.find((row) => row[0] === 'Group') as string[];
    expect(sheet.slice(sheet.indexOf(headers) + 1).map((row) => [row[1], row[2], row[3]])).toEqual([
      [null, 7.5, 3600],
      ['Vacation', 6.5, 3120],
      ['Sickness', 1, 480],
      [null, 1.5, 540],
      ['Sickness', 1, 360],
      ['Vacation', 0.5, 180],
      [null, 9, 4140],
    ]);
    const pdf = (await download(server.url, `${base(crew)}/reports/summary`, { ...query, format: 'pdf' }, admin)).bytes;
    const text = await pdfText(pdf);
    expect(text).toMatch(/Vacation\s+6\.50\s+3,120\s+52\.00/);
    expect(text).toMatch(/Total\s+9\.00\s+4,140\s+69\.00/);
  });

  it('never shows another tenant’s absences, and a member of another tenant is refused', async () => {
    const theirs = await other.admin.api.get<Summary>(`${base(other)}/reports/summary`, { query: { ...may, groupBy: 'absenceType' } });
    expect(theirs.body.totals).toMatchObject({ absenceDays: 17, absenceMinutes: 17 * 480 });
    const refused = await other.admin.api.get<Problem>(`${base(crew)}/reports/summary`, { query: { ...may, groupBy: 'absenceType' } });
    expect([403, 404]).toContain(refused.status);
    // Their member filtered for in ours: nothing.
    const filtered = await summary(crew.admin, { groupBy: 'absenceType', tenantUserId: other.member.id });
    expect(filtered.body).toMatchObject({ totals: { absenceDays: 0, absenceMinutes: 0 }, groups: [] });
  });

  it('refuses dimensions and filters absences do not have with a 400 naming the field, over REST and GraphQL', async () => {
    for (const [query, field] of [
      [{ groupBy: 'absenceType', subGroupBy: 'project' }, 'subGroupBy'],
      [{ groupBy: 'tag', subGroupBy: 'absenceType' }, 'groupBy'],
      [{ groupBy: 'absenceType', billable: 'true' }, 'billable'],
      [{ groupBy: 'user', subGroupBy: 'absenceType', projectId: crew.member.id }, 'projectId'],
    ] as const) {
      const answer = await summary(crew.admin, query);
      expect(answer.status, field).toBe(400);
      expect(answer.headers.get('content-type')).toContain('application/problem+json');
      expect((answer.body as unknown as Problem).errors?.map((error) => error.path)).toEqual([field]);
    }
    const graphql = await crew.admin.api.graphql(
      `query ($t: ID!) { reportSummary(tenantId: $t, from: "2027-05-01", to: "2027-05-31", groupBy: absenceType, filter: { status: approved }) { groupBy } }`,
      { t: crew.tenant.id },
    );
    expect(graphql.body).toMatchObject({ errors: [{ extensions: { code: 'VALIDATION_FAILED', errors: [{ path: 'filter.status' }] } }] });
  });

  it('runs as many statements for three absent members as for two', async () => {
    // A second process on the same database that serves requests only: no worker's statements among the report's.
    const statements: string[] = [];
    const apiOnly = await startTestServer({ databaseUrl: server.databaseUrl, env: { ...provider.env, ROLE: 'api' }, onQuery: (sql) => statements.push(sql) });
    try {
      const counted = async () => {
        statements.length = 0;
        const url = new URL(`${base(crew)}/reports/summary`, apiOnly.url);
        for (const [name, value] of Object.entries({ ...may, groupBy: 'user', subGroupBy: 'absenceType' })) url.searchParams.set(name, value);
        const response = await fetch(url, { headers: { authorization: `Bearer ${crew.tenant.key}` } });
        expect(response.status).toBe(200);
        return { count: statements.length, body: (await response.json()) as Summary };
      };
      const two = await counted();
      expect(two.body.groups).toHaveLength(2);
      const { sickness } = await types(crew);
      await absence(crew, crew.manager, sickness as AbsenceType, { startDate: '2027-05-04', endDate: '2027-05-04' });
      const three = await counted();
      expect(three.body.groups).toHaveLength(3);
      expect(three.body.totals).toMatchObject({ absenceDays: 10, absenceMinutes: 4620 });
      expect(three.count).toBe(two.count);
    } finally {
      await apiOnly.stop();
    }
  });
});
