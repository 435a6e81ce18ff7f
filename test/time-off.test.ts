/**
 * Time off and working time (CONTRACT.md section 10) over REST and GraphQL,
 * by real members: work schedules, holidays, absence types, absences and
 * their approval, vacation allowances and the time balance, and bad input
 * with the field named.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Absence, AbsenceType, Holiday, Problem, WorkSchedule } from './generated/openapi/types.gen.js';
import { parse } from 'csv-parse/sync';
import ICAL from 'ical.js';
import { readSheet } from 'read-excel-file/node';
import { createLogger } from '../src/lib/logger.js';
import { localDate } from '../src/lib/time.js';
import { msAgo, testClock } from './helpers/clock.js';
import { eventually } from './helpers/eventually.js';
import { download, pdfText } from './helpers/files.js';
import { startReceiver } from './helpers/receiver.js';
import type { Json } from './helpers/http.js';
import { startIdentityProvider, type IdentityProvider } from './helpers/oidc.js';
import { seedTeam, type SeededMember, type Team } from './helpers/seed.js';
import { startTestServer, type TestServer } from './helpers/server.js';

let provider: IdentityProvider;
let server: TestServer;
/** What the server logged: a calendar feed's token must never be among it. */
const logged: string[] = [];

beforeAll(async () => {
  provider = await startIdentityProvider();
  server = await startTestServer({
    env: { ...provider.env, WEBHOOK_ALLOW_PRIVATE_URLS: 'true' },
    log: createLogger('info', {}, { write: (line: string) => void logged.push(line) }),
  });
});
afterAll(async () => {
  await server?.stop();
  await provider?.close();
});

const team = (settings: Json = {}): Promise<Team> =>
  seedTeam(server, provider, { approvalRequired: true, timezone: 'Europe/Berlin', holidayRegion: 'DE-BY', ...settings });
const tenantPath = (crew: Team) => `/tenants/${crew.tenant.id}`;
const week = (mon: number, tue: number, wed: number, thu: number, fri: number, sat = 0, sun = 0) => ({ mon, tue, wed, thu, fri, sat, sun });

async function typeOf(crew: Team, kind: string): Promise<AbsenceType> {
  const types = await crew.member.api.get<AbsenceType[]>(`${tenantPath(crew)}/absence-types`);
  const found = types.body.find((type) => type.kind === kind);
  if (!found) throw new Error(`no ${kind} type`);
  return found;
}

/** The day a membership began, in the tenant's zone: stamped by the clock when the member was invited. */
async function joinedOn(tenantUserId: string): Promise<string> {
  const membership = await server.app.db.tenantUser.findUniqueOrThrow({ where: { id: tenantUserId } });
  return localDate(membership.createdAt, 'Europe/Berlin');
}

/**
 * By hand: a year's days in the year a member joined are a twelfth per full month after joining (the month they joined
 * in counts only from its first day), rounded up to a half day; all of them in later years, none before.
 */
function proRata(allowanceDays: number, year: number, joined: string): number {
  const [joinYear, month, day] = joined.split('-').map(Number) as [number, number, number];
  if (joinYear !== year) return joinYear < year ? allowanceDays : 0;
  const months = day === 1 ? 13 - month : 12 - month;
  return Math.ceil(((allowanceDays * months) / 12) * 2) / 2;
}

async function events(subjectId: string): Promise<string[]> {
  return (await server.app.db.event.findMany({ where: { subjectId }, orderBy: { id: 'asc' } })).map((event) => event.type);
}

describe('work schedules', () => {
  it('keep their history; admins manage them, members read their own; more than 24 h a day is refused naming the day', async () => {
    const crew = await team();
    const path = `${tenantPath(crew)}/users/${crew.member.id}/work-schedules`;
    const first = await crew.admin.api.post<WorkSchedule>(path, { validFrom: '2026-01-01', minutes: week(480, 480, 480, 480, 0) });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ tenantUserId: crew.member.id, validFrom: '2026-01-01', minutes: week(480, 480, 480, 480, 0) });
    const later = await crew.admin.api.post<WorkSchedule>(path, { validFrom: '2099-01-01', minutes: week(360, 360, 360, 360, 0) });
    expect(later.status).toBe(201);

    expect((await crew.member.api.get<WorkSchedule[]>(path)).body.map((schedule) => schedule.validFrom)).toEqual(['2099-01-01', '2026-01-01']);
    expect((await crew.colleague.api.get<Problem>(path)).status).toBe(403);
    expect((await crew.manager.api.get(path)).status).toBe(200);
    expect((await crew.manager.api.post<Problem>(path, { validFrom: '2027-01-01', minutes: week(1, 1, 1, 1, 1) })).status).toBe(403);

    const tooLong = await crew.admin.api.post<Problem>(path, { validFrom: '2027-01-01', minutes: week(480, 1441, 480, 480, 480) });
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.errors).toEqual([{ path: 'minutes.tue', message: 'must be at most 1440' }]);
    const sameDay = await crew.admin.api.post<Problem>(path, { validFrom: '2026-01-01', minutes: week(1, 1, 1, 1, 1) });
    expect(sameDay.body).toMatchObject({ status: 409, reason: 'SCHEDULE_DATE_TAKEN' });

    // The past is not rewritten: a schedule in effect stays; one not yet in effect may go.
    expect((await crew.admin.api.delete<Problem>(`${path}/${first.body.id}`)).body).toMatchObject({ status: 409, reason: 'SCHEDULE_IN_EFFECT' });
    expect((await crew.admin.api.delete(`${path}/${later.body.id}`)).status).toBe(204);
    expect(await events(later.body.id)).toEqual(['work_schedule.created', 'work_schedule.deleted']);
  });

  it("the tenant's default schedule and holiday region are settings; an unknown region is refused naming it", async () => {
    const crew = await team();
    const tenant = await crew.tenant.api.get<{ settings: Json }>(tenantPath(crew));
    expect(tenant.body.settings).toMatchObject({ holidayRegion: 'DE-BY', defaultWorkSchedule: week(480, 480, 480, 480, 480) });
    for (const region of ['DE-XX', 'ZZ', 'de-by']) {
      const refused = await crew.tenant.api.patch<Problem>(tenantPath(crew), { settings: { holidayRegion: region } });
      expect(refused.status).toBe(400);
      expect(refused.body.errors?.[0]).toMatchObject({ path: 'settings.holidayRegion' });
    }
    const overlong = await crew.tenant.api.patch<Problem>(tenantPath(crew), { settings: { defaultWorkSchedule: week(480, 480, 480, 480, 480, 1500) } });
    expect(overlong.body.errors).toEqual([{ path: 'settings.defaultWorkSchedule.sat', message: 'must be at most 1440' }]);
  });
});

describe('holidays', () => {
  it("are the region's public ones and the tenant's own, whole or half days; admins add them", async () => {
    const crew = await team();
    const path = `${tenantPath(crew)}/holidays`;
    const added = await crew.admin.api.post<Holiday>(path, { date: '2027-12-24', name: 'Christmas Eve', fraction: 0.5 });
    expect(added.status).toBe(201);
    expect(added.body).toMatchObject({ date: '2027-12-24', fraction: 0.5, source: 'tenant' });
    expect((await crew.member.api.post<Problem>(path, { date: '2027-12-31', name: 'x' })).status).toBe(403);
    expect((await crew.admin.api.post<Problem>(path, { date: '2027-12-31', name: 'x', fraction: 0.25 })).body.errors).toEqual([
      { path: 'fraction', message: 'must be 1 (a whole day) or 0.5 (a half day)' },
    ]);

    const listed = await crew.member.api.get<Holiday[]>(path, { query: { from: '2027-03-01', to: '2027-12-31' } });
    expect(listed.body.filter((day) => day.date < '2027-04-01')).toEqual([
      expect.objectContaining({ date: '2027-03-26', name: 'Good Friday', fraction: 1, source: 'public', region: 'DE-BY', id: null }),
      expect.objectContaining({ date: '2027-03-29', name: 'Easter Monday', source: 'public' }),
    ]);
    expect(listed.body.find((day) => day.date === '2027-12-24')).toMatchObject({ date: '2027-12-24', fraction: 0.5, source: 'tenant' });
    const tooLong = await crew.member.api.get<Problem>(path, { query: { from: '2020-01-01', to: '2026-01-01' } });
    expect(tooLong.body.errors).toEqual([{ path: 'to', message: 'must be less than 5 years after from' }]);
    expect((await crew.admin.api.delete(`${path}/${added.body.id}`)).status).toBe(204);

    // A member in North Rhine-Westphalia has their own region: no Epiphany there.
    const user = `${tenantPath(crew)}/users/${crew.colleague.id}`;
    expect((await crew.admin.api.patch<Problem>(user, { holidayRegion: 'DE-XX' })).body.errors?.[0]).toMatchObject({ path: 'holidayRegion' });
    expect((await crew.admin.api.patch<Json>(user, { holidayRegion: 'DE-NW' })).body.holidayRegion).toBe('DE-NW');
    const january = { from: '2027-01-01', to: '2027-01-31' };
    expect((await crew.member.api.get<Holiday[]>(path, { query: { ...january, tenantUserId: crew.colleague.id } })).body.map((day) => day.date)).toEqual([
      '2027-01-01',
    ]);
    expect((await crew.member.api.get<Holiday[]>(path, { query: january })).body.map((day) => day.date)).toEqual(['2027-01-01', '2027-01-06']);
    // Without a period: this year's, by the clock in the tenant's zone, from New Year's Day to Boxing Day.
    const thisYear = testClock.today('Europe/Berlin').slice(0, 4);
    const ofThisYear = (await crew.member.api.get<Holiday[]>(path)).body.map((day) => day.date);
    expect(ofThisYear.every((date) => date.startsWith(`${thisYear}-`))).toBe(true);
    expect(ofThisYear).toEqual(expect.arrayContaining([`${thisYear}-01-01`, `${thisYear}-12-26`]));
  });
});

describe('absences', () => {
  it('every tenant starts with vacation, sickness, overtime compensation and unpaid', async () => {
    const crew = await team();
    const types = await crew.member.api.get<AbsenceType[]>(`${tenantPath(crew)}/absence-types`);
    expect(
      types.body.map(({ name, kind, countsAsWork, deductsVacation, needsApproval }) => ({ name, kind, countsAsWork, deductsVacation, needsApproval })),
    ).toEqual([
      { name: 'Vacation', kind: 'vacation', countsAsWork: true, deductsVacation: true, needsApproval: true },
      { name: 'Sickness', kind: 'sickness', countsAsWork: true, deductsVacation: false, needsApproval: false },
      { name: 'Overtime compensation', kind: 'overtime', countsAsWork: false, deductsVacation: false, needsApproval: true },
      { name: 'Unpaid', kind: 'unpaid', countsAsWork: false, deductsVacation: false, needsApproval: true },
    ]);
    expect(
      (
        await crew.member.api.post(`${tenantPath(crew)}/absence-types`, {
          name: 'x',
          kind: 'other',
          countsAsWork: true,
          deductsVacation: false,
          needsApproval: true,
        })
      ).status,
    ).toBe(403);
  });

  it('are requested, rejected, approved and cancelled with the approval vocabulary; events and notifications follow', async () => {
    const crew = await team();
    const path = `${tenantPath(crew)}/absences`;
    const vacation = await typeOf(crew, 'vacation');
    const requested = await crew.member.api.post<Absence>(path, { absenceTypeId: vacation.id, startDate: '2099-08-03', endDate: '2099-08-14', note: 'Summer' });
    expect(requested.status).toBe(201);
    expect(requested.body).toMatchObject({ status: 'pending', tenantUserId: crew.member.id, startDate: '2099-08-03', endDate: '2099-08-14', halfDay: null });
    const id = requested.body.id;

    // The approvers are told; the member is not their own approver.
    const told = await eventually(async () => {
      const mine = await crew.manager.api.get<{ type: string; data: Json }[]>(`${tenantPath(crew)}/notifications`);
      const found = mine.body.find((notification) => notification.type === 'absence.requested');
      if (!found) throw new Error('not yet');
      return found;
    });
    expect(told.data).toMatchObject({ absenceId: id });

    expect((await crew.member.api.post<Problem>(`${path}/${id}/approve`)).status).toBe(403);
    const rejected = await crew.manager.api.post<Absence>(`${path}/${id}/reject`, { reason: 'Team offsite that week' });
    expect(rejected.body).toMatchObject({ status: 'rejected', rejectionReason: 'Team offsite that week', reviewedById: crew.manager.id });
    expect((await crew.manager.api.post<Problem>(`${path}/${id}/approve`)).body).toMatchObject({ status: 409, reason: 'WRONG_STATUS' });

    const again = await crew.member.api.post<Absence>(path, { absenceTypeId: vacation.id, startDate: '2099-08-10', endDate: '2099-08-21' });
    expect(again.body.status).toBe('pending');
    const moved = await crew.member.api.patch<Absence>(`${path}/${again.body.id}`, { endDate: '2099-08-20' });
    expect(moved.body.endDate).toBe('2099-08-20');
    // Cancelled meanwhile: approving it is a conflict.
    expect((await crew.member.api.post<Absence>(`${path}/${again.body.id}/cancel`)).body.status).toBe('cancelled');
    expect((await crew.manager.api.post<Problem>(`${path}/${again.body.id}/approve`)).body).toMatchObject({
      status: 409,
      code: 'INVALID_STATE',
      reason: 'WRONG_STATUS',
    });

    const third = await crew.member.api.post<Absence>(path, { absenceTypeId: vacation.id, startDate: '2099-09-01', endDate: '2099-09-04' });
    const approved = await crew.manager.api.post<Absence>(`${path}/${third.body.id}/approve`);
    expect(approved.body).toMatchObject({ status: 'approved', reviewedById: crew.manager.id });
    // Approved and not yet begun: the member cannot take it back alone; a manager can.
    expect((await crew.member.api.post<Problem>(`${path}/${third.body.id}/cancel`)).status).toBe(403);
    expect((await crew.member.api.patch<Problem>(`${path}/${third.body.id}`, { note: 'x' })).body).toMatchObject({ status: 409, reason: 'WRONG_STATUS' });
    expect((await crew.manager.api.post<Absence>(`${path}/${third.body.id}/cancel`)).body.status).toBe('cancelled');

    expect(await events(id)).toEqual(['absence.requested', 'absence.rejected']);
    expect(await events(third.body.id)).toEqual(['absence.requested', 'absence.approved', 'absence.cancelled']);
    await eventually(async () => {
      const mine = await crew.member.api.get<{ type: string }[]>(`${tenantPath(crew)}/notifications`);
      expect(mine.body.map((notification) => notification.type).sort()).toEqual(['absence.approved', 'absence.rejected']);
    });

    // Managers do not approve their own.
    const own = await crew.manager.api.post<Absence>(path, { absenceTypeId: vacation.id, startDate: '2099-10-01', endDate: '2099-10-01' });
    expect((await crew.manager.api.post<Problem>(`${path}/${own.body.id}/approve`)).status).toBe(403);
    expect((await crew.admin.api.post<Absence>(`${path}/${own.body.id}/approve`)).body.status).toBe('approved');
  });

  it('reach webhooks and the change feed as entries do', async () => {
    const crew = await team();
    const target = await startReceiver();
    try {
      const hook = await crew.tenant.api.post<{ secret: string }>(`${tenantPath(crew)}/webhooks`, {
        url: `${target.url}/hooks`,
        events: ['absence.requested', 'absence.approved'],
      });
      expect(hook.status).toBe(201);
      const sickness = await typeOf(crew, 'sickness');
      const sick = await crew.member.api.post<Absence>(`${tenantPath(crew)}/absences`, {
        absenceTypeId: sickness.id,
        startDate: '2026-02-02',
        endDate: '2026-02-02',
      });
      const received = (await target.waitFor(2)).map((request) => target.verify(request, hook.body.secret));
      expect(received.map((envelope) => envelope.type).sort()).toEqual(['absence.approved', 'absence.requested']);
      expect(received[0]?.data).toMatchObject({
        id: sick.body.id,
        tenantUserId: crew.member.id,
        startDate: '2026-02-02',
        endDate: '2026-02-02',
        status: 'approved',
      });
      // The feed shows an event once every older transaction in the cluster has ended (other test files share it).
      await eventually(async () => {
        const feed = await crew.tenant.api.get<{ type: string; subjectId: string }[]>(`${tenantPath(crew)}/events`, {
          query: { types: 'absence.requested,absence.approved' },
        });
        expect(feed.body.map((event) => [event.type, event.subjectId])).toEqual([
          ['absence.requested', sick.body.id],
          ['absence.approved', sick.body.id],
        ]);
      });
    } finally {
      await target.close();
    }
  });

  it('a type without approval is approved at once; an approved absence that has begun is cancelled by admins only', async () => {
    const crew = await team();
    const path = `${tenantPath(crew)}/absences`;
    const sickness = await typeOf(crew, 'sickness');
    const sick = await crew.member.api.post<Absence>(path, { absenceTypeId: sickness.id, startDate: '2026-01-05', endDate: '2026-01-06' });
    expect(sick.body.status).toBe('approved');
    expect(await events(sick.body.id)).toEqual(['absence.requested', 'absence.approved']);
    expect((await crew.member.api.post<Problem>(`${path}/${sick.body.id}/cancel`)).status).toBe(403);
    expect((await crew.manager.api.post<Problem>(`${path}/${sick.body.id}/cancel`)).status).toBe(403);
    expect((await crew.admin.api.post<Absence>(`${path}/${sick.body.id}/cancel`)).body.status).toBe('cancelled');
  });

  it('refuse overlaps, an end before the start and a half day over several days, naming the field', async () => {
    const crew = await team();
    const path = `${tenantPath(crew)}/absences`;
    const vacation = await typeOf(crew, 'vacation');
    const body = (startDate: string, endDate: string, extra: Json = {}) => ({ absenceTypeId: vacation.id, startDate, endDate, ...extra });
    const first = await crew.member.api.post<Absence>(path, body('2099-05-04', '2099-05-08'));
    expect(first.status).toBe(201);

    const overlap = await crew.member.api.post<Problem>(path, body('2099-05-08', '2099-05-12'));
    expect(overlap.body).toMatchObject({
      status: 409,
      code: 'CONFLICT',
      reason: 'ABSENCE_OVERLAP',
      errors: [{ path: 'startDate', message: `overlaps absence ${first.body.id}` }],
    });
    const backwards = await crew.member.api.post<Problem>(path, body('2099-06-10', '2099-06-09'));
    expect(backwards.body).toMatchObject({ status: 400, errors: [{ path: 'endDate', message: 'must not be before startDate' }] });
    const halfOfMany = await crew.member.api.post<Problem>(path, body('2099-06-10', '2099-06-11', { halfDay: 'am' }));
    expect(halfOfMany.body).toMatchObject({ status: 400, errors: [{ path: 'halfDay', message: 'is only for a one-day absence (startDate = endDate)' }] });

    // Two halves of one day do not overlap; the same half twice does.
    expect((await crew.member.api.post(path, body('2099-06-15', '2099-06-15', { halfDay: 'am' }))).status).toBe(201);
    expect((await crew.member.api.post(path, body('2099-06-15', '2099-06-15', { halfDay: 'pm' }))).status).toBe(201);
    expect((await crew.member.api.post<Problem>(path, body('2099-06-15', '2099-06-15', { halfDay: 'pm' }))).body.reason).toBe('ABSENCE_OVERLAP');
    // Another member's days are theirs.
    expect((await crew.colleague.api.post(path, body('2099-05-04', '2099-05-08'))).status).toBe(201);
  });

  it("members see their own absences, and colleagues' approved ones only as busy days without the type", async () => {
    const crew = await team();
    const path = `${tenantPath(crew)}/absences`;
    const vacation = await typeOf(crew, 'vacation');
    const theirs = await crew.colleague.api.post<Absence>(path, {
      absenceTypeId: vacation.id,
      startDate: '2099-07-01',
      endDate: '2099-07-03',
      note: 'Private',
    });
    await crew.manager.api.post(`${path}/${theirs.body.id}/approve`);
    await crew.colleague.api.post(path, { absenceTypeId: vacation.id, startDate: '2099-07-10', endDate: '2099-07-10' });

    expect((await crew.member.api.get<Absence[]>(path)).body).toEqual([]);
    expect((await crew.member.api.get(`${path}/${theirs.body.id}`)).status).toBe(404);
    const busy = await crew.member.api.get<Json[]>(`${path}/busy`, { query: { from: '2099-07-01', to: '2099-07-31' } });
    expect(busy.body).toEqual([{ tenantUserId: crew.colleague.id, startDate: '2099-07-01', endDate: '2099-07-03', halfDay: null }]);
    // Busy days are a period like the holidays: at most five years of days (docs/decisions.md).
    const tooLong = await crew.member.api.get<Problem>(`${path}/busy`, { query: { from: '2099-01-01', to: '2104-01-01' } });
    expect(tooLong.body).toMatchObject({ status: 400, errors: [{ path: 'to', message: 'must be less than 5 years after from' }] });
    expect((await crew.manager.api.get<Absence[]>(path)).body).toHaveLength(2);
    expect(
      (
        await crew.member.api.post<Problem>(path, {
          absenceTypeId: vacation.id,
          startDate: '2099-07-01',
          endDate: '2099-07-01',
          tenantUserId: crew.colleague.id,
        })
      ).status,
    ).toBe(403);
  });
});

describe('the time balance', () => {
  it('of a member on a 4-day, 32 h schedule in DE-BY who worked, took vacation over Easter and was sick a day: March 2027, to the minute', async () => {
    const crew = await team();
    const base = tenantPath(crew);
    const { member } = crew;
    // Monday to Thursday 8 h, from before March on.
    await crew.admin.api.post(`${base}/users/${member.id}/work-schedules`, { validFrom: '2027-01-01', minutes: week(480, 480, 480, 480, 0) });
    const vacation = await typeOf(crew, 'vacation');
    const sickness = await typeOf(crew, 'sickness');
    const leave = await member.api.post<Absence>(`${base}/absences`, { absenceTypeId: vacation.id, startDate: '2027-03-25', endDate: '2027-03-31' });
    await crew.manager.api.post(`${base}/absences/${leave.body.id}/approve`);
    expect(
      (await member.api.post<Absence>(`${base}/absences`, { absenceTypeId: sickness.id, startDate: '2027-03-09', endDate: '2027-03-09' })).body.status,
    ).toBe('approved');
    // A request still pending counts for nothing yet.
    await member.api.post(`${base}/absences`, { absenceTypeId: vacation.id, startDate: '2027-03-17', endDate: '2027-03-17' });

    // Berlin is UTC+1 until the clocks go forward on Sunday, March 28 (02:00 -> 03:00), UTC+2 after.
    const worked: [string, string, number][] = [
      ['2027-03-01T07:00:00Z', '2027-03-01T15:30:00Z', 30], // 480
      ['2027-03-02T07:00:00Z', '2027-03-02T16:00:00Z', 30], // 510
      ['2027-03-03T07:00:00Z', '2027-03-03T15:00:00Z', 30], // 450
      ['2027-03-04T07:00:00Z', '2027-03-04T15:30:00Z', 30], // 480
      ['2027-03-04T22:30:00Z', '2027-03-04T23:15:00Z', 0], // 45: 23:30 to 00:15 in Berlin, started on the 4th
      ['2027-03-08T07:00:00Z', '2027-03-08T15:30:00Z', 30], // 480
      ['2027-03-10T07:00:00Z', '2027-03-10T15:30:00Z', 30], // 480
      ['2027-03-11T07:00:00Z', '2027-03-11T15:30:00Z', 30], // 480
      ['2027-03-15T07:00:00Z', '2027-03-15T15:30:00Z', 30], // 480
      ['2027-03-16T07:00:00Z', '2027-03-16T15:30:00Z', 30], // 480
      ['2027-03-17T07:00:00Z', '2027-03-17T17:00:00Z', 60], // 540
      ['2027-03-18T07:00:00Z', '2027-03-18T15:30:00Z', 30], // 480
      ['2027-03-22T07:00:00Z', '2027-03-22T15:30:00Z', 30], // 480
      ['2027-03-23T07:00:00Z', '2027-03-23T15:30:00Z', 30], // 480
      ['2027-03-24T07:00:00Z', '2027-03-24T15:30:00Z', 30], // 480
      ['2027-03-27T23:30:00Z', '2027-03-28T02:00:00Z', 0], // 150: Sunday 00:30 CET to 04:00 CEST, over the clock change
      ['2027-02-28T22:30:00Z', '2027-02-28T23:30:00Z', 0], // 60, but it started on February 28 in Berlin: not March's
      ['2027-03-31T22:30:00Z', '2027-03-31T23:00:00Z', 0], // 30, but it started on April 1 in Berlin: not March's
    ];
    for (const [startedAt, endedAt, breakMinutes] of worked) {
      expect((await member.api.post(`${base}/entries`, { startedAt, endedAt, breakMinutes })).status).toBe(201);
    }

    /*
     * By hand. March 2027 begins on a Monday. Scheduled (Mon-Thu, 480 each):
     *   Mar 1-4, 8-11, 15-18, 22-25: 16 days, and Mar 29-31: 3 days; 19 x 480 = 9120.
     * Holidays in Bavaria: Good Friday (Fri 26: nothing scheduled, 0 off) and Easter Monday (Mon 29: 480 off).
     *   expected = 9120 - 480 = 8640; holidays = 480.
     * Credited: sickness Tue 9 (480); vacation Thu 25 to Wed 31 covers Thu 25, Tue 30 and Wed 31 (3 x 480 = 1440;
     *   Fri 26 to Mon 29 have nothing left to credit). credited = 1920. Vacation days used: 3.
     * Worked (finished entries that started in March in Berlin):
     *   480 + 510 + 450 + (480 + 45) + 480 + 480 + 480 + 480 + 480 + 540 + 480 + 480 + 480 + 480 + 150 = 6975.
     * Balance = 6975 + 1920 - 8640 = 255.
     */
    const byMonth = await member.api.get<Json>(`${base}/users/${member.id}/time-balance`, {
      query: { from: '2027-03-01', to: '2027-03-31', groupBy: 'month' },
    });
    expect(byMonth.status).toBe(200);
    const march = {
      expectedMinutes: 8640,
      workedMinutes: 6975,
      creditedMinutes: 1920,
      holidayMinutes: 480,
      correctionMinutes: 0,
      balanceMinutes: 255,
      vacationDays: 3,
    };
    const { vacation: vacationOfTheYear, ...balance } = byMonth.body;
    // No allowance set yet: the four days (three approved, one requested) are missing; approved ones up to today are taken.
    const today = testClock.today('Europe/Berlin');
    const takenDays = ['2027-03-25', '2027-03-30', '2027-03-31'].filter((date) => date <= today).length;
    const plannedDays = 4 - takenDays;
    expect(vacationOfTheYear).toMatchObject({ year: 2027, allowanceDays: 0, takenDays, plannedDays, leftDays: -4 });
    expect(balance).toEqual({
      tenantUserId: member.id,
      from: '2027-03-01',
      to: '2027-03-31',
      timezone: 'Europe/Berlin',
      groupBy: 'month',
      totals: march,
      periods: [{ start: '2027-03-01', end: '2027-03-31', ...march, runningBalanceMinutes: 255 }],
      corrections: [],
      balanceCapMinutes: null,
      overCap: false,
    });

    // Day by day the same, and the days that make it.
    const byDay = await crew.manager.api.get<{ periods: (Json & { start: string })[]; totals: Json }>(`${base}/users/${member.id}/time-balance`, {
      query: { from: '2027-03-01', to: '2027-03-31' },
    });
    expect(byDay.body.totals).toEqual(march);
    expect(byDay.body.periods).toHaveLength(31);
    const day = (date: string) => byDay.body.periods.find((period) => period.start === date);
    expect(day('2027-03-04')).toMatchObject({ expectedMinutes: 480, workedMinutes: 525, balanceMinutes: 45, runningBalanceMinutes: 30 + -30 + 45 });
    expect(day('2027-03-09')).toMatchObject({ expectedMinutes: 480, workedMinutes: 0, creditedMinutes: 480, balanceMinutes: 0 });
    expect(day('2027-03-28')).toMatchObject({ expectedMinutes: 0, workedMinutes: 150, balanceMinutes: 150 });
    expect(day('2027-03-29')).toMatchObject({ expectedMinutes: 0, holidayMinutes: 480, creditedMinutes: 0, vacationDays: 0 });
    expect(day('2027-03-31')).toMatchObject({ expectedMinutes: 480, creditedMinutes: 480, vacationDays: 1, runningBalanceMinutes: 255 });

    // GraphQL says the same.
    const graphql = await member.api.graphql<{ timeBalance: { totals: Json } }>(
      'query ($t: ID!, $u: ID!) { timeBalance(tenantId: $t, tenantUserId: $u, from: "2027-03-01", to: "2027-03-31", groupBy: month) { totals { expectedMinutes workedMinutes creditedMinutes holidayMinutes correctionMinutes balanceMinutes vacationDays } } }',
      { t: crew.tenant.id, u: member.id },
    );
    expect(graphql.body.data?.timeBalance.totals).toEqual(march);

    // The vacation account of 2027: the approved days are taken once they are past, planned before; the pending one is
    // planned. 24 days, pro rata if the member joined in 2027.
    await crew.admin.api.request('PUT', `${base}/users/${member.id}/vacation/2027`, { allowanceDays: 24 });
    const account = await member.api.get<Json>(`${base}/users/${member.id}/vacation/2027`);
    const allowance = proRata(24, 2027, await joinedOn(member.id));
    expect(account.body).toMatchObject({ year: 2027, allowanceDays: 24, proRataAllowanceDays: allowance, takenDays, plannedDays, leftDays: allowance - 4 });

    // The timesheet of the month: the same days and totals, as JSON and as files to sign.
    const sheetPath = `${base}/users/${member.id}/timesheets/2027-03`;
    const sheet = await member.api.get<{ totals: Json; days: Json[] }>(sheetPath);
    expect(sheet.body.totals).toEqual({
      breakMinutes: 870,
      expectedMinutes: 8640,
      workedMinutes: 6975,
      creditedMinutes: 1920,
      holidayMinutes: 480,
      balanceMinutes: 255,
    });
    expect(sheet.body.days).toHaveLength(31);
    expect(sheet.body.days[3]).toEqual({
      date: '2027-03-04',
      weekday: 'Thu',
      start: '08:00',
      end: '00:15',
      breakMinutes: 975 - 525,
      workedMinutes: 525,
      expectedMinutes: 480,
      creditedMinutes: 0,
      holidayMinutes: 0,
      balanceMinutes: 45,
      absence: null,
      holiday: null,
      // 525 min with 450 of breaks that count (the entry's 30 and the 7 h gap): nothing the ArbZG names.
      violations: [],
    });
    // The Sunday of the clock change, worked from 00:30: flagged under the tenant's rules (de, its region being DE-BY).
    expect(sheet.body.days[27]).toMatchObject({ violations: ['SUNDAY_WORK'] });
    expect(sheet.body.days[27]).toMatchObject({ date: '2027-03-28', start: '00:30', end: '04:00', breakMinutes: 0, workedMinutes: 150 });
    expect(sheet.body.days[28]).toMatchObject({ date: '2027-03-29', absence: 'Vacation', holiday: 'Easter Monday', holidayMinutes: 480 });
    expect(sheet.body.days[8]).toMatchObject({ date: '2027-03-09', absence: 'Sickness', creditedMinutes: 480 });
    expect((await crew.colleague.api.get(sheetPath)).status).toBe(403);

    const asMember = { cookie: member.cookie };
    const csv = await download(server.url, sheetPath, { format: 'csv' }, asMember);
    expect(csv.response.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    const rows = parse(csv.bytes.toString('utf8'), { columns: true, bom: true }) as Record<string, string>[];
    expect(rows).toHaveLength(32);
    expect(rows.at(-1)).toMatchObject({ Date: 'Total', Break: '870', Worked: '6975', Expected: '8640', Credited: '1920', Balance: '255' });
    const xlsx = await download(server.url, sheetPath, { format: 'xlsx' }, asMember);
    const cells = await readSheet(xlsx.bytes);
    expect(cells.at(-1)?.slice(0, 9)).toEqual(['Total', null, null, null, 870, 6975, 8640, 1920, 255]);
    const pdf = await download(server.url, sheetPath, { format: 'pdf' }, asMember);
    expect(pdf.response.headers.get('content-type')).toBe('application/pdf');
    const text = await pdfText(pdf.bytes);
    expect(text).toContain('Timesheet 2027-03');
    expect(text).toMatch(/Balance of the month: 4:15 \(worked 116:15 \+ credited 32:00 - expected 144:00\)/);
    expect(text).toMatch(/29\/03\/2027\s+Mon\s+0:00\s+0:00\s+0:00\s+0:00\s+0:00\s+Vacation\s+Easter Monday/);
    expect(text).toMatch(/Total\s+14:30\s+116:15\s+144:00\s+32:00\s+4:15/);
    expect(text).toMatch(/Member: .+, date and signature\s+Approver, date and signature/);
    // One page: the month and the lines to sign under it.
    expect(text.split('\f').filter((page) => page.trim() !== '')).toHaveLength(1);
    // In German: the catalogue's texts, the dates and weekdays as ICU writes them in de.
    const german = await pdfText((await download(server.url, sheetPath, { format: 'pdf', language: 'de' }, asMember)).bytes);
    expect(german).toContain('Stundenzettel 2027-03');
    expect(german).toMatch(/Saldo des Monats: 4:15 \(gearbeitet 116:15 \+ angerechnet 32:00 - Soll 144:00\)/);
    expect(german).toMatch(/29\.03\.2027\s+Mo\.?\s+0:00/);
    expect(german).toMatch(/Summe\s+14:30\s+116:15/);
    expect(german).toContain('Seite 1');
    expect((await member.api.get<Problem>(sheetPath, { query: { format: 'pdf', language: 'tlh' } })).status).toBe(400);
  });

  it('is for the member, managers and admins; a period over 5 years is refused naming it', async () => {
    const crew = await team();
    const path = `${tenantPath(crew)}/users/${crew.member.id}/time-balance`;
    expect((await crew.colleague.api.get(path, { query: { from: '2027-01-01', to: '2027-01-31' } })).status).toBe(403);
    expect((await crew.admin.api.get(path, { query: { from: '2027-01-01', to: '2027-01-31' } })).status).toBe(200);
    const tooLong = await crew.member.api.get<Problem>(path, { query: { from: '2020-01-01', to: '2025-01-01' } });
    expect(tooLong.body).toMatchObject({ status: 400, errors: [{ path: 'to', message: 'must be less than 5 years after from' }] });
    const backwards = await crew.member.api.get<Problem>(path, { query: { from: '2027-02-01', to: '2027-01-31' } });
    expect(backwards.body).toMatchObject({ status: 400, errors: [{ path: 'to', message: 'must not be before from' }] });
  });
});

describe('vacation allowances', () => {
  it('carry over into the next year until they expire, and corrections keep their reason', async () => {
    const crew = await team();
    const base = `${tenantPath(crew)}/users/${crew.member.id}/vacation`;
    const vacation = await typeOf(crew, 'vacation');
    // A year after the one the member joined in: the whole allowance.
    expect((await crew.admin.api.request<Json>('PUT', `${base}/2099`, { allowanceDays: 30 })).body).toMatchObject({ leftDays: 30 });
    const leave = await crew.member.api.post<Absence>(`${tenantPath(crew)}/absences`, {
      absenceTypeId: vacation.id,
      startDate: '2099-06-01',
      endDate: '2099-06-12',
    });
    await crew.manager.api.post(`${tenantPath(crew)}/absences/${leave.body.id}/approve`);
    // June 1-12 2099: ten weekdays of the tenant's default week, of which Whit Monday (1) and Corpus Christi (11) are holidays in Bavaria: 8 days.
    expect((await crew.member.api.get<Json>(`${base}/2099`)).body).toMatchObject({ takenDays: 0, plannedDays: 8, leftDays: 22 });

    // 2100 carries the 22 left over until March 31.
    await crew.admin.api.request('PUT', `${base}/2100`, { allowanceDays: 30, carryOverExpires: '2100-03-31' });
    expect((await crew.member.api.get<Json>(`${base}/2100`)).body).toMatchObject({
      carriedOverDays: 22,
      carryOverExpires: '2100-03-31',
      expiredDays: 0,
      leftDays: 52,
    });

    const corrected = await crew.admin.api.post<Json>(`${base}/2100/corrections`, { days: -2.5, reason: 'Days off taken in 2099 without a request' });
    expect(corrected.status).toBe(201);
    expect(corrected.body).toMatchObject({
      correctionDays: -2.5,
      leftDays: 49.5,
      corrections: [{ days: -2.5, reason: 'Days off taken in 2099 without a request', actorType: 'user' }],
    });
    expect((await crew.member.api.post<Problem>(`${base}/2100/corrections`, { days: 5, reason: 'please' })).status).toBe(403);
    expect((await crew.admin.api.post<Problem>(`${base}/2100/corrections`, { days: 1 })).body.errors).toEqual([{ path: 'reason', message: 'is required' }]);
    expect((await crew.colleague.api.get(`${base}/2100`)).status).toBe(403);
  });

  it('are pro rata in the year the member joined, and carried-over days not taken by their expiry are lost', async () => {
    const crew = await team();
    const base = `${tenantPath(crew)}/users/${crew.member.id}/vacation`;
    // They joined today, by the clock: this year is pro rata.
    const joined = await joinedOn(crew.member.id);
    expect(joined).toBe(testClock.today('Europe/Berlin'));
    const year = Number(joined.slice(0, 4));
    const thisYear = await crew.admin.api.request<Json>('PUT', `${base}/${year}`, { allowanceDays: 30 });
    expect(thisYear.body).toMatchObject({
      allowanceDays: 30,
      proRataAllowanceDays: proRata(30, year, joined),
      carriedOverDays: 0,
      leftDays: proRata(30, year, joined),
    });
    // Five days carried into the year before, which expired on March 31 of it, none of them taken: lost, whatever day today is.
    const yearBefore = await crew.admin.api.request<Json>('PUT', `${base}/${year - 1}`, {
      allowanceDays: 30,
      carriedOverDays: 5,
      carryOverExpires: `${year - 1}-03-31`,
    });
    expect(yearBefore.body).toMatchObject({ allowanceDays: 30, proRataAllowanceDays: 0, carriedOverDays: 5, expiredDays: 5, leftDays: 0 });
    // Nothing was left of it to carry into this year.
    expect((await crew.member.api.get<Json>(`${base}/${year}`)).body).toMatchObject({ carriedOverDays: 0, leftDays: proRata(30, year, joined) });
    const wrongYear = await crew.admin.api.request<Problem>('PUT', `${base}/${year}`, { allowanceDays: 30, carryOverExpires: `${year + 1}-03-31` });
    expect(wrongYear.body.errors).toEqual([{ path: 'carryOverExpires', message: `must be a day of ${year}` }]);
  });
});

describe('the calendar feed', () => {
  /** A vacation `who` asks for and the manager approves. */
  async function approvedVacation(crew: Team, who: SeededMember, body: Json): Promise<void> {
    const vacation = await typeOf(crew, 'vacation');
    const asked = await who.api.post<Absence>(`${tenantPath(crew)}/absences`, { absenceTypeId: vacation.id, ...body });
    expect((await crew.manager.api.post(`${tenantPath(crew)}/absences/${asked.body.id}/approve`)).status).toBe(200);
  }

  it('serves approved absences and holidays at a secret URL, stored hashed and revocable, read by an independent parser', async () => {
    const crew = await team();
    const base = tenantPath(crew);
    const vacation = await typeOf(crew, 'vacation');
    await approvedVacation(crew, crew.member, { startDate: '2027-03-25', endDate: '2027-03-31' });
    // Pending: not in the feed.
    await crew.member.api.post(`${base}/absences`, { absenceTypeId: vacation.id, startDate: '2027-05-03', endDate: '2027-05-03' });
    await approvedVacation(crew, crew.colleague, { startDate: '2027-03-30', endDate: '2027-03-30', halfDay: 'pm' });

    const made = await crew.member.api.post<{ url: string; prefix: string }>(`${base}/users/me/calendar-token`);
    expect(made.status).toBe(201);
    expect(made.body.url).toMatch(new RegExp(`^${server.url}/calendar/cal_[A-Za-z0-9_-]{43}\\.ics$`));
    const token = /\/calendar\/(.+)\.ics$/.exec(made.body.url)?.[1] as string;
    const stored = await server.app.db.calendarToken.findUniqueOrThrow({ where: { tenantUserId: crew.member.id } });
    expect(stored.tokenHash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(stored)).not.toContain(token);

    const events = async (url: string) => {
      // No credentials: the URL is one.
      const answer = await fetch(url);
      expect(answer.status).toBe(200);
      expect(answer.headers.get('content-type')).toBe('text/calendar; charset=utf-8');
      const calendar = new ICAL.Component(ICAL.parse(await answer.text()));
      return calendar.getAllSubcomponents('vevent').map((component) => {
        const event = new ICAL.Event(component);
        return { summary: event.summary, start: event.startDate.toString(), end: event.endDate.toString() };
      });
    };
    const mine = await events(made.body.url);
    expect(mine).toContainEqual({ summary: 'Vacation', start: '2027-03-25', end: '2027-04-01' });
    expect(mine).toContainEqual({ summary: 'Good Friday', start: '2027-03-26', end: '2027-03-27' });
    expect(mine.filter((event) => event.summary === 'Vacation')).toHaveLength(1);
    expect(mine.some((event) => event.summary.includes(':'))).toBe(false);

    // A manager's feed has the team's approved absences, with whose they are.
    const managers = await crew.manager.api.post<{ url: string }>(`${base}/users/me/calendar-token`);
    const team_ = await events(managers.body.url);
    expect(team_).toContainEqual({ summary: expect.stringMatching(/^member-.+: Vacation$/), start: '2027-03-25', end: '2027-04-01' });
    expect(team_).toContainEqual({ summary: expect.stringMatching(/^member-.+: Vacation \(afternoon\)$/), start: '2027-03-30', end: '2027-03-31' });

    // A new URL replaces the old; a revoked one is gone.
    const again = await crew.member.api.post<{ url: string }>(`${base}/users/me/calendar-token`);
    expect((await fetch(made.body.url)).status).toBe(404);
    expect((await fetch(again.body.url)).status).toBe(200);
    expect((await crew.member.api.delete(`${base}/users/me/calendar-token`)).status).toBe(204);
    expect((await fetch(again.body.url)).status).toBe(404);
    expect((await fetch(`${server.url}/calendar/not-a-token.ics`)).status).toBe(400);
    // The request log names the route, never the token.
    expect(logged.some((line) => line.includes('"path":"/calendar/{token}"'))).toBe(true);
    expect(logged.some((line) => line.includes(token))).toBe(false);
  });

  it('keeps when a feed was last read to the hour, by the clock: one write an hour, not one a poll', async () => {
    const crew = await team();
    const made = await crew.member.api.post<{ url: string }>(`${tenantPath(crew)}/users/me/calendar-token`);
    const lastUsed = async () => (await server.app.db.calendarToken.findUniqueOrThrow({ where: { tenantUserId: crew.member.id } })).lastUsedAt;
    const poll = async () => expect((await fetch(made.body.url)).status).toBe(200);
    expect(await lastUsed()).toBeNull();
    const before = testClock.now();
    await poll();
    const first = await lastUsed();
    expect(first?.getTime()).toBeGreaterThanOrEqual(before.getTime());
    expect(first?.getTime()).toBeLessThanOrEqual(testClock.now().getTime());
    // Polled again at once, and again 59 minutes after the last write: nothing written.
    await poll();
    expect(await lastUsed()).toEqual(first);
    const recent = msAgo(59 * 60_000);
    await server.app.db.calendarToken.update({ where: { tenantUserId: crew.member.id }, data: { lastUsedAt: recent } });
    await poll();
    expect(await lastUsed()).toEqual(recent);
    // An hour after the last write, the next poll writes the clock's now.
    await server.app.db.calendarToken.update({ where: { tenantUserId: crew.member.id }, data: { lastUsedAt: msAgo(60 * 60_000) } });
    const polledAt = testClock.now();
    await poll();
    expect((await lastUsed())?.getTime()).toBeGreaterThanOrEqual(polledAt.getTime());
  });

  it("shows the team's absences to the roles the permission matrix lets read every absence, a member only their own", async () => {
    const crew = await team();
    const base = tenantPath(crew);
    await approvedVacation(crew, crew.colleague, { startDate: '2027-02-08', endDate: '2027-02-09' });
    const summaries = async (caller: SeededMember) => {
      const made = await caller.api.post<{ url: string }>(`${base}/users/me/calendar-token`);
      const calendar = new ICAL.Component(ICAL.parse(await (await fetch(made.body.url)).text()));
      return calendar.getAllSubcomponents('vevent').map((component) => new ICAL.Event(component).summary);
    };
    const colleagues = (summary: string) => /^member-.+: Vacation$/.test(summary);
    expect((await summaries(crew.admin)).filter(colleagues)).toHaveLength(1);
    expect((await summaries(crew.manager)).filter(colleagues)).toHaveLength(1);
    expect((await summaries(crew.member)).filter(colleagues)).toHaveLength(0);
    expect((await summaries(crew.colleague)).filter((summary) => summary === 'Vacation')).toHaveLength(1);
  });
});
