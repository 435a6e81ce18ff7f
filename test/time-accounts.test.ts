/**
 * Time accounts (issue 39, parts 4 to 6; CONTRACT.md section 11, "Employment" and "Overtime"), over REST and GraphQL
 * by real members: employment dates and what follows them (expected time, balances, vacation pro rata, absences), and
 * the overtime account's corrections and cap.
 */
import { describe, expect, it } from 'vitest';
import type { AbsenceType, Problem } from './generated/openapi/types.gen.js';
import { testClock } from './helpers/clock.js';
import { eventually } from './helpers/eventually.js';
import type { Json } from './helpers/http.js';
import { seedTeam, type Team } from './helpers/seed.js';
import { serverWithSignIn } from './helpers/signed-in-server.js';

const started = serverWithSignIn();

/** No holiday region: every weekday of the standard week expects 480 minutes, so the sums below are plain counts. */
const team = (settings: Json = {}): Promise<Team> =>
  seedTeam(started.server, started.provider, { approvalRequired: true, timezone: 'Europe/Berlin', holidayRegion: null, ...settings });
const tenantPath = (crew: Team) => `/tenants/${crew.tenant.id}`;
/** Last year: wholly in the past whatever day TEST_CLOCK says it is. */
const lastYear = Number(testClock.today('Europe/Berlin').slice(0, 4)) - 1;

async function typeOf(crew: Team, kind: string): Promise<AbsenceType> {
  const types = await crew.member.api.get<AbsenceType[]>(`${tenantPath(crew)}/absence-types`);
  const found = types.body.find((type) => type.kind === kind);
  if (!found) throw new Error(`no ${kind} type`);
  return found;
}

/** The weekdays (Mon-Fri) from `from` to `to`, inclusive, counted by hand. */
function weekdays(from: string, to: string): number {
  let count = 0;
  for (let day = new Date(`${from}T00:00:00Z`); day.toISOString().slice(0, 10) <= to; day.setUTCDate(day.getUTCDate() + 1)) {
    if (day.getUTCDay() !== 0 && day.getUTCDay() !== 6) count++;
  }
  return count;
}

/** The first Monday of a month (`2025-04` -> `2025-04-07`). */
function firstMonday(month: string): string {
  const day = new Date(`${month}-01T00:00:00Z`);
  while (day.getUTCDay() !== 1) day.setUTCDate(day.getUTCDate() + 1);
  return day.toISOString().slice(0, 10);
}

describe('employment dates', () => {
  it('are set on the member over REST and GraphQL; an end before the start is a 400 naming employmentEnd', async () => {
    const crew = await team();
    const path = `${tenantPath(crew)}/users/${crew.member.id}`;
    const set = await crew.admin.api.patch<Json>(path, { employmentStart: '2026-03-01', employmentEnd: '2026-09-30' });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ employmentStart: '2026-03-01', employmentEnd: '2026-09-30' });

    const backwards = await crew.admin.api.patch<Problem>(path, { employmentEnd: '2026-02-28' });
    expect(backwards.status).toBe(400);
    expect(backwards.headers.get('content-type')).toContain('application/problem+json');
    expect(backwards.body.errors).toEqual([{ path: 'employmentEnd', message: 'must not be before employmentStart (2026-03-01)' }]);
    const startAfterEnd = await crew.admin.api.patch<Problem>(path, { employmentStart: '2026-10-01' });
    expect(startAfterEnd.body.errors?.[0]).toMatchObject({ path: 'employmentEnd' });
    expect((await crew.admin.api.patch<Problem>(path, { employmentStart: '2026-02-30' })).body.errors?.[0]).toMatchObject({ path: 'employmentStart' });
    // Nothing of the refused writes was kept.
    expect((await crew.admin.api.get<Json>(path)).body).toMatchObject({ employmentStart: '2026-03-01', employmentEnd: '2026-09-30' });
    // Members do not change their own.
    expect((await crew.member.api.patch<Problem>(path, { employmentStart: '2020-01-01' })).status).toBe(403);

    const graphql = await crew.admin.api.graphql<{ updateUser: Json }>(
      'mutation ($t: ID!, $u: ID!) { updateUser(tenantId: $t, id: $u, input: { employmentEnd: null }) { employmentStart employmentEnd } }',
      { t: crew.tenant.id, u: crew.member.id },
    );
    expect(graphql.body.data?.updateUser).toEqual({ employmentStart: '2026-03-01', employmentEnd: null });
    const invited = await crew.admin.api.post<Json>(`${tenantPath(crew)}/users`, { email: 'joiner@example.test', employmentStart: '2026-05-04' });
    expect(invited.body).toMatchObject({ employmentStart: '2026-05-04', employmentEnd: null });
    // A former member invited again keeps the start not sent: an end before it is the same 400, never a constraint's 500.
    expect((await crew.admin.api.delete(path)).status).toBe(204);
    const again = await crew.admin.api.post<Problem>(`${tenantPath(crew)}/users`, { email: crew.member.email, employmentEnd: '2026-01-31' });
    expect(again.status).toBe(400);
    expect(again.body.errors).toEqual([{ path: 'employmentEnd', message: 'must not be before employmentStart (2026-03-01)' }]);
  });

  it('a member added in November who took vacation in April: no leftDays -1 once employmentStart says they were employed', async () => {
    const crew = await team();
    const base = tenantPath(crew);
    const member = crew.member;
    // Added in November of last year (the membership's day, from which vacation was pro rata).
    await started.server.app.db.tenantUser.update({ where: { id: member.id }, data: { createdAt: new Date(`${lastYear}-11-05T09:00:00Z`) } });
    await crew.admin.api.request('PUT', `${base}/users/${member.id}/vacation/${lastYear}`, { allowanceDays: 12 });
    const monday = firstMonday(`${lastYear}-04`);
    const tuesday = `${monday.slice(0, 8)}${String(Number(monday.slice(8)) + 1).padStart(2, '0')}`;
    const vacation = await typeOf(crew, 'vacation');
    const requested = await crew.admin.api.post<Json>(`${base}/absences`, {
      absenceTypeId: vacation.id,
      tenantUserId: member.id,
      startDate: monday,
      endDate: tuesday,
    });
    expect(requested.status).toBe(201);
    expect((await crew.manager.api.post(`${base}/absences/${requested.body.id}/approve`)).status).toBe(200);

    // As the issue found it: 12 days pro rata from November is one (December), two taken in April.
    const before = await member.api.get<Json>(`${base}/users/${member.id}/vacation/${lastYear}`);
    expect(before.body).toMatchObject({ proRataAllowanceDays: 1, takenDays: 2, leftDays: -1 });

    // Employed since March 1: ten full months, 12 x 10 / 12 = 10 days, two taken.
    await crew.admin.api.patch(`${base}/users/${member.id}`, { employmentStart: `${lastYear}-03-01` });
    const after = await member.api.get<Json>(`${base}/users/${member.id}/vacation/${lastYear}`);
    expect(after.body).toMatchObject({ proRataAllowanceDays: 10, takenDays: 2, leftDays: 8 });

    // Leaving on September 30: March to September, seven months, 7 days; leaving on September 29: August is the last full month.
    await crew.admin.api.patch(`${base}/users/${member.id}`, { employmentEnd: `${lastYear}-09-30` });
    expect((await member.api.get<Json>(`${base}/users/${member.id}/vacation/${lastYear}`)).body).toMatchObject({ proRataAllowanceDays: 7, leftDays: 5 });
    await crew.admin.api.patch(`${base}/users/${member.id}`, { employmentEnd: `${lastYear}-09-29` });
    expect((await member.api.get<Json>(`${base}/users/${member.id}/vacation/${lastYear}`)).body).toMatchObject({ proRataAllowanceDays: 6, leftDays: 4 });
    // The year after leaving: nothing.
    await crew.admin.api.request('PUT', `${base}/users/${member.id}/vacation/${lastYear + 1}`, { allowanceDays: 12 });
    expect((await member.api.get<Json>(`${base}/users/${member.id}/vacation/${lastYear + 1}`)).body).toMatchObject({ proRataAllowanceDays: 0 });
  });

  it('nothing is expected before employmentStart or after employmentEnd; an absence there is a 400 naming the date', async () => {
    const crew = await team();
    const base = tenantPath(crew);
    const member = crew.member;
    const balancePath = `${base}/users/${member.id}/time-balance`;
    const period = { from: `${lastYear}-02-01`, to: `${lastYear}-04-30`, groupBy: 'month' };
    // Without dates: as before, every weekday expects 480.
    const open = await member.api.get<{ totals: Json }>(balancePath, { query: period });
    expect(open.body.totals).toMatchObject({ expectedMinutes: 480 * weekdays(period.from, period.to) });

    await crew.admin.api.patch(`${base}/users/${member.id}`, { employmentStart: `${lastYear}-03-01`, employmentEnd: `${lastYear}-03-31` });
    const employed = await member.api.get<{ totals: Json; periods: Json[] }>(balancePath, { query: period });
    const march = 480 * weekdays(`${lastYear}-03-01`, `${lastYear}-03-31`);
    expect(employed.body.periods.map((month) => month.expectedMinutes)).toEqual([0, march, 0]);
    expect(employed.body.totals).toMatchObject({ expectedMinutes: march, balanceMinutes: -march });
    // The timesheet follows too.
    const february = await member.api.get<{ totals: Json }>(`${base}/users/${member.id}/timesheets/${lastYear}-02`);
    expect(february.body.totals).toMatchObject({ expectedMinutes: 0, balanceMinutes: 0 });

    const sickness = await typeOf(crew, 'sickness');
    const before = await member.api.post<Problem>(`${base}/absences`, {
      absenceTypeId: sickness.id,
      startDate: `${lastYear}-02-26`,
      endDate: `${lastYear}-03-02`,
    });
    expect(before.status).toBe(400);
    expect(before.body.errors).toEqual([
      { path: 'startDate', message: `${lastYear}-02-26 is before the member's employmentStart (${lastYear}-03-01): not employed that day` },
    ]);
    const after = await member.api.post<Problem>(`${base}/absences`, {
      absenceTypeId: sickness.id,
      startDate: `${lastYear}-03-31`,
      endDate: `${lastYear}-04-01`,
    });
    expect(after.body.errors).toEqual([
      { path: 'endDate', message: `${lastYear}-04-01 is after the member's employmentEnd (${lastYear}-03-31): not employed that day` },
    ]);
    const inside = await member.api.post<Json>(`${base}/absences`, {
      absenceTypeId: sickness.id,
      startDate: `${lastYear}-03-30`,
      endDate: `${lastYear}-03-31`,
    });
    expect(inside.status).toBe(201);
    expect(await started.server.app.db.absence.count({ where: { tenantUserId: member.id } })).toBe(1);
    // The sick days credit what their weekdays expect.
    const credited = await member.api.get<{ totals: Json }>(balancePath, { query: period });
    expect(credited.body.totals).toMatchObject({ expectedMinutes: march, creditedMinutes: 480 * weekdays(`${lastYear}-03-30`, `${lastYear}-03-31`) });
  });
});

describe('overtime corrections', () => {
  it('admins record overtime paid out or forfeited with a reason; the balance counts them on their day and lists who, when and why', async () => {
    const crew = await team();
    const base = tenantPath(crew);
    const member = crew.member;
    const path = `${base}/users/${member.id}/time-balance/corrections`;
    const paidOut = await crew.admin.api.post<Json>(path, { minutes: -600, reason: 'Paid out with the March payroll', date: `${lastYear}-03-31` });
    expect(paidOut.status).toBe(201);
    expect(paidOut.body).toMatchObject({
      tenantUserId: member.id,
      date: `${lastYear}-03-31`,
      minutes: -600,
      reason: 'Paid out with the March payroll',
      actorType: 'user',
    });
    expect(typeof paidOut.body.actorId).toBe('string');
    const granted = await crew.admin.api.graphql<{ correctTimeBalance: Json }>(
      `mutation ($t: ID!, $u: ID!) { correctTimeBalance(tenantId: $t, tenantUserId: $u, input: { minutes: 90, reason: "Travel time agreed", date: "${lastYear}-04-02" }) { minutes date actorType } }`,
      { t: crew.tenant.id, u: member.id },
    );
    expect(granted.body.data?.correctTimeBalance).toEqual({ minutes: 90, date: `${lastYear}-04-02`, actorType: 'user' });

    // Managers read balances but do not correct them, as with vacation days; members not even their own.
    expect((await crew.manager.api.post<Problem>(path, { minutes: -60, reason: 'x' })).status).toBe(403);
    expect((await member.api.post<Problem>(path, { minutes: 60, reason: 'x' })).status).toBe(403);
    // Bad input names the field, and writes nothing.
    const zero = await crew.admin.api.post<Problem>(path, { minutes: 0, reason: 'x' });
    expect(zero.status).toBe(400);
    expect(zero.body.errors).toEqual([{ path: 'minutes', message: 'must not be 0' }]);
    expect((await crew.admin.api.post<Problem>(path, { minutes: 1.5, reason: 'x' })).body.errors?.[0]).toMatchObject({ path: 'minutes' });
    expect((await crew.admin.api.post<Problem>(path, { minutes: 60, reason: '  ' })).body.errors?.[0]).toMatchObject({ path: 'reason' });
    expect((await crew.admin.api.post<Problem>(path, { minutes: 60, reason: 'x', date: 'March' })).body.errors?.[0]).toMatchObject({ path: 'date' });
    // Another tenant's member is not found.
    const other = await team();
    expect(
      (await other.admin.api.post<Problem>(`/tenants/${other.tenant.id}/users/${member.id}/time-balance/corrections`, { minutes: 60, reason: 'x' })).status,
    ).toBe(404);
    expect(await started.server.app.db.timeBalanceCorrection.count({ where: { tenantUserId: member.id } })).toBe(2);

    // Without a date, it counts today.
    const today = testClock.today('Europe/Berlin');
    expect((await crew.admin.api.post<Json>(path, { minutes: -30, reason: 'Forfeited' })).body).toMatchObject({ date: today });

    const balance = await member.api.get<{ totals: Json; periods: Json[]; corrections: Json[] }>(`${base}/users/${member.id}/time-balance`, {
      query: { from: `${lastYear}-03-01`, to: `${lastYear}-04-30`, groupBy: 'month' },
    });
    const march = 480 * weekdays(`${lastYear}-03-01`, `${lastYear}-03-31`);
    const april = 480 * weekdays(`${lastYear}-04-01`, `${lastYear}-04-30`);
    expect(balance.body.periods).toEqual([
      expect.objectContaining({ expectedMinutes: march, correctionMinutes: -600, balanceMinutes: -march - 600, runningBalanceMinutes: -march - 600 }),
      expect.objectContaining({ expectedMinutes: april, correctionMinutes: 90, balanceMinutes: -april + 90, runningBalanceMinutes: -march - 600 - april + 90 }),
    ]);
    expect(balance.body.totals).toMatchObject({ correctionMinutes: -510, balanceMinutes: -march - april - 510 });
    expect(balance.body.corrections.map((correction) => [correction.date, correction.minutes, correction.reason])).toEqual([
      [`${lastYear}-03-31`, -600, 'Paid out with the March payroll'],
      [`${lastYear}-04-02`, 90, 'Travel time agreed'],
    ]);
    const feed = await started.server.app.db.event.findMany({ where: { tenantId: crew.tenant.id, type: 'time_balance.corrected' } });
    expect(feed.map((event) => (event.data as Json).minutes).sort()).toEqual([-30, -600, 90].sort());
  });
});

describe('the balance cap', () => {
  it('flags balances above settings.balanceCapMinutes and notifies once per crossing of the overtime account, not per write or read', async () => {
    const crew = await team({ balanceCapMinutes: 120 });
    const base = tenantPath(crew);
    const member = crew.member;
    expect((await crew.member.api.get<{ settings: Json }>(base)).body.settings).toMatchObject({ balanceCapMinutes: 120 });
    expect((await crew.tenant.api.patch<Problem>(base, { settings: { balanceCapMinutes: -1 } })).body.errors?.[0]).toMatchObject({
      path: 'settings.balanceCapMinutes',
    });
    // Nothing expected of them, so the account is what they work and what is corrected, from the start of employment.
    await crew.admin.api.patch(`${base}/users/${member.id}`, { employmentStart: `${lastYear}-01-01` });
    await crew.admin.api.post(`${base}/users/${member.id}/work-schedules`, {
      validFrom: `${lastYear}-01-01`,
      minutes: { mon: 0, tue: 0, wed: 0, thu: 0, fri: 0, sat: 0, sun: 0 },
    });
    const correct = (minutes: number) =>
      crew.admin.api.post(`${base}/users/${member.id}/time-balance/corrections`, { minutes, reason: 'Step', date: `${lastYear}-06-01` });
    /** Waits until the dispatcher has checked the account at `balance`, then counts the crossings so far. */
    const crossingsAt = async (balance: number) => {
      await eventually(async () => {
        const state = await started.server.app.db.timeBalanceCap.findUnique({ where: { tenantUserId: member.id } });
        if (state?.balanceMinutes !== balance) throw new Error(`account at ${String(state?.balanceMinutes)}, not yet ${balance}`);
      });
      return started.server.app.db.event.count({ where: { tenantId: crew.tenant.id, type: 'time_balance.cap_exceeded' } });
    };

    await correct(100);
    expect(await crossingsAt(100)).toBe(0);
    await correct(60); // 160 > 120: crossing up
    expect(await crossingsAt(160)).toBe(1);
    await correct(30); // still above: no second notice
    expect(await crossingsAt(190)).toBe(1);
    const balance = await member.api.get<Json>(`${base}/users/${member.id}/time-balance`, {
      query: { from: `${lastYear}-01-01`, to: `${lastYear}-12-31`, groupBy: 'month' },
    });
    expect(balance.body).toMatchObject({ balanceCapMinutes: 120, overCap: true, totals: expect.objectContaining({ balanceMinutes: 190 }) });
    expect(await crossingsAt(190)).toBe(1); // reading changes nothing
    await correct(-100); // 90: back under, reset
    expect(await crossingsAt(90)).toBe(0 + 1);
    // An entry write crosses it again: a second notice.
    const entry = await member.api.post<Json>(`${base}/entries`, { startedAt: `${lastYear}-06-02T08:00:00Z`, endedAt: `${lastYear}-06-02T09:00:00Z` });
    expect(entry.status).toBe(201);
    expect(await crossingsAt(150)).toBe(2);
    const under = await member.api.get<Json>(`${base}/users/${member.id}/time-balance`, { query: { from: `${lastYear}-01-01`, to: `${lastYear}-05-31` } });
    expect(under.body).toMatchObject({ overCap: false });

    // The member and the admins are told, once per crossing; the manager is not.
    const told = await eventually(async () => {
      const mine = await member.api.get<{ type: string; title: string; body: string }[]>(`${base}/notifications`);
      const found = mine.body.filter((notification) => notification.type === 'time_balance.cap_exceeded');
      if (found.length < 2) throw new Error('not yet');
      return found;
    });
    expect(told).toHaveLength(2);
    expect(told.map((notification) => notification.body).sort()).toEqual([
      `2 h 30 min on the account, the cap is 2 h (as of ${testClock.today('Europe/Berlin')})`,
      `2 h 40 min on the account, the cap is 2 h (as of ${testClock.today('Europe/Berlin')})`,
    ]);
    const admins = await crew.admin.api.get<{ type: string }[]>(`${base}/notifications`);
    expect(admins.body.filter((notification) => notification.type === 'time_balance.cap_exceeded')).toHaveLength(2);
    const managers = await crew.manager.api.get<{ type: string }[]>(`${base}/notifications`);
    expect(managers.body.filter((notification) => notification.type === 'time_balance.cap_exceeded')).toHaveLength(0);
  });
});
