import { describe, expect, it } from 'vitest';
import { addDays, dayColumn, dayOfWeek, daysBetween, daysBetweenColumns, dayText, isCalendarDay, isDay, nextDay, optionalDayColumn } from './day.js';
import { periodProblems } from './period.js';

describe('calendar days', () => {
  it('convert a day to its date column (UTC midnight) and back, whatever the machine’s zone', () => {
    expect(dayColumn('2027-03-25').toISOString()).toBe('2027-03-25T00:00:00.000Z');
    expect(dayText(dayColumn('2027-03-25'))).toBe('2027-03-25');
    expect(dayText(new Date('2027-03-25T23:59:59.999Z'))).toBe('2027-03-25');
    expect(optionalDayColumn(null)).toBeNull();
    expect(optionalDayColumn(undefined)).toBeUndefined();
    expect(optionalDayColumn('2027-01-02')?.toISOString()).toBe('2027-01-02T00:00:00.000Z');
  });

  it('tell a day’s shape from a day that exists', () => {
    expect(isDay('2027-02-29')).toBe(true);
    expect(isCalendarDay('2027-02-29')).toBe(false);
    expect(isCalendarDay('2028-02-29')).toBe(true);
    expect(isCalendarDay('2027-13-01')).toBe(false);
    expect(isDay('2027-2-1')).toBe(false);
    expect(isCalendarDay('2027-03-25T00:00:00Z')).toBe(false);
  });

  it('count days across months, leap days and the clock changes', () => {
    expect(nextDay('2026-02-28')).toBe('2026-03-01');
    expect(nextDay('2028-02-28')).toBe('2028-02-29');
    expect(nextDay('2026-12-31')).toBe('2027-01-01');
    // Berlin springs forward on 29 March 2026: a day is still a day.
    expect(addDays('2026-03-28', 2)).toBe('2026-03-30');
    expect(addDays('2027-01-01', -1)).toBe('2026-12-31');
    expect(daysBetween('2028-02-01', '2028-03-01')).toBe(29);
    expect(daysBetween('2027-03-02', '2027-03-01')).toBe(-1);
    expect(daysBetweenColumns(dayColumn('2027-01-01'), dayColumn('2027-01-31'))).toBe(30);
    // 2027-03-25 is a Thursday.
    expect(dayOfWeek('2027-03-25')).toBe(4);
  });
});

describe('the period rule', () => {
  it('allows at most five years of days: to less than five years after from', () => {
    expect(periodProblems('2027-03-01', '2032-02-29')).toEqual([]);
    expect(periodProblems('2027-03-01', '2032-03-01')).toEqual([{ path: 'to', message: 'must be less than 5 years after from' }]);
    expect(periodProblems('2027-03-01', '2027-03-01')).toEqual([]);
    expect(periodProblems('2027-03-02', '2027-03-01')).toEqual([{ path: 'to', message: 'must not be before from' }]);
    // Five years after 9996 is past 9999, the last year a day's text can name: nothing is too far.
    expect(periodProblems('9996-01-01', '9999-12-31')).toEqual([]);
  });
});
