import { describe, expect, it } from 'vitest';
import { standardWeek, type WeekMinutes } from '../../../lib/week.js';
import { dayFacts, type AbsenceSpan, type DayInputs, type HolidayOn } from './member-days.facts.js';

const partTime: WeekMinutes = { mon: 360, tue: 360, wed: 360, thu: 360, fri: 0, sat: 0, sun: 0 };
const inputs = (overrides: Partial<DayInputs> = {}): DayInputs => ({
  defaultWeek: standardWeek,
  schedules: [],
  holidays: new Map(),
  absences: [],
  ...overrides,
});
const absence = (overrides: Partial<AbsenceSpan>): AbsenceSpan => ({
  id: 'a',
  startDate: '2028-01-01',
  endDate: '2028-01-01',
  halfDay: null,
  countsAsWork: true,
  deductsVacation: true,
  unpaid: false,
  ...overrides,
});
const sum = (days: ReturnType<typeof dayFacts>, key: 'expectedMinutes' | 'creditedMinutes' | 'holidayMinutes' | 'vacationDays') =>
  days.reduce((total, day) => total + day[key], 0);

describe('dayFacts', () => {
  it('takes the schedule in effect each day: the default before the first, the latest valid from it after', () => {
    // Monday 2027-03-01 to Sunday 2027-03-14; part time from Monday the 8th on.
    const days = dayFacts('2027-03-01', '2027-03-14', inputs({ schedules: [{ validFrom: '2027-03-08', week: partTime }] }));
    expect(days.map((day) => day.expectedMinutes)).toEqual([480, 480, 480, 480, 480, 0, 0, 360, 360, 360, 360, 0, 0, 0]);
  });

  it('counts February 29 of a leap year, and only then', () => {
    expect(dayFacts('2028-02-01', '2028-03-01', inputs()).map((day) => day.date)).toContain('2028-02-29');
    expect(dayFacts('2028-02-28', '2028-03-01', inputs())).toHaveLength(3);
    expect(dayFacts('2027-02-28', '2027-03-01', inputs())).toHaveLength(2);
    // Tuesday 2028-02-29 is a working day of its own.
    expect(dayFacts('2028-02-29', '2028-02-29', inputs())[0]).toMatchObject({ expectedMinutes: 480 });
  });

  it('takes a half-day holiday off half the day, and a vacation on it uses half a vacation day', () => {
    const holidays = new Map<string, HolidayOn>([['2027-12-24', { name: 'Christmas Eve', fraction: 0.5 }]]);
    const [friday] = dayFacts('2027-12-24', '2027-12-24', inputs({ holidays, absences: [absence({ startDate: '2027-12-24', endDate: '2027-12-24' })] }));
    expect(friday).toMatchObject({ scheduledMinutes: 480, holidayMinutes: 240, expectedMinutes: 240, creditedMinutes: 240, vacationDays: 0.5 });
  });

  it('splits an odd day into halves that add up, and leaves overtime compensation expected; unpaid days are not expected', () => {
    const odd: WeekMinutes = { ...standardWeek, mon: 481 };
    const monday = '2027-03-01';
    const halves = dayFacts(monday, monday, {
      ...inputs({ defaultWeek: odd }),
      absences: [
        absence({ id: 'am', startDate: monday, endDate: monday, halfDay: 'am' }),
        absence({ id: 'pm', startDate: monday, endDate: monday, halfDay: 'pm', deductsVacation: false }),
      ],
    });
    expect(halves[0]).toMatchObject({ expectedMinutes: 481, creditedMinutes: 481, vacationDays: 0.5, absenceIds: ['am', 'pm'] });
    const compensation = dayFacts(
      monday,
      monday,
      inputs({ absences: [absence({ startDate: monday, endDate: monday, countsAsWork: false, deductsVacation: false })] }),
    );
    expect(compensation[0]).toMatchObject({ expectedMinutes: 480, creditedMinutes: 0 });
    const unpaid = dayFacts(
      monday,
      monday,
      inputs({ absences: [absence({ startDate: monday, endDate: monday, countsAsWork: false, deductsVacation: false, unpaid: true })] }),
    );
    expect(unpaid[0]).toMatchObject({ expectedMinutes: 0, creditedMinutes: 0 });
  });

  it('gives a week-long vacation over a holiday the vacation days of its working days only', () => {
    const holidays = new Map<string, HolidayOn>([['2027-03-29', { name: 'Easter Monday', fraction: 1 }]]);
    const days = dayFacts('2027-03-25', '2027-03-31', inputs({ holidays, absences: [absence({ startDate: '2027-03-25', endDate: '2027-03-31' })] }));
    // Thu 25, Fri 26, (Sat, Sun), Mon 29 holiday, Tue 30, Wed 31 on the standard week.
    expect(sum(days, 'vacationDays')).toBe(4);
    expect(sum(days, 'holidayMinutes')).toBe(480);
    expect(sum(days, 'creditedMinutes')).toBe(4 * 480);
  });

  it('expects, credits and uses nothing on days the member is not employed; without employment dates every day counts', () => {
    // Monday 2027-03-01 to Friday 2027-03-05, employed Tuesday to Thursday, a vacation over all five days.
    const week = inputs({ absences: [absence({ startDate: '2027-03-01', endDate: '2027-03-05' })] });
    const employed = dayFacts('2027-03-01', '2027-03-05', { ...week, employment: { start: '2027-03-02', end: '2027-03-04' } });
    expect(employed.map((day) => day.expectedMinutes)).toEqual([0, 480, 480, 480, 0]);
    expect(sum(employed, 'creditedMinutes')).toBe(3 * 480);
    expect(sum(employed, 'vacationDays')).toBe(3);
    expect(sum(dayFacts('2027-03-01', '2027-03-05', { ...week, employment: { start: null, end: null } }), 'vacationDays')).toBe(5);
    expect(sum(dayFacts('2027-03-01', '2027-03-05', week), 'expectedMinutes')).toBe(5 * 480);
  });

  it('gives each absence its part of the day whatever its type credits: minutes left after a holiday, half days half', () => {
    const monday = '2027-03-01';
    const holidays = new Map<string, HolidayOn>([['2027-03-02', { name: 'Half holiday', fraction: 0.5 }]]);
    const days = dayFacts(monday, '2027-03-06', {
      ...inputs({ holidays, defaultWeek: { ...standardWeek, mon: 481 } }),
      absences: [
        absence({ id: 'am', startDate: monday, endDate: monday, halfDay: 'am', countsAsWork: false, deductsVacation: false }),
        absence({ id: 'pm', startDate: monday, endDate: monday, halfDay: 'pm' }),
        absence({ id: 'week', startDate: '2027-03-02', endDate: '2027-03-06', countsAsWork: false, deductsVacation: false, unpaid: true }),
      ],
    });
    expect(days[0]?.absenceParts).toEqual([
      { id: 'am', minutes: 240, days: 0.5 },
      { id: 'pm', minutes: 241, days: 0.5 },
    ]);
    // Tuesday a half holiday, Wednesday to Friday whole days, Saturday nothing expected.
    expect(days.slice(1).map((day) => day.absenceParts)).toEqual([
      [{ id: 'week', minutes: 240, days: 0.5 }],
      [{ id: 'week', minutes: 480, days: 1 }],
      [{ id: 'week', minutes: 480, days: 1 }],
      [{ id: 'week', minutes: 480, days: 1 }],
      [{ id: 'week', minutes: 0, days: 0 }],
    ]);
  });
});
