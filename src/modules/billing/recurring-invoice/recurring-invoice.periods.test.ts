import { describe, expect, it } from 'vitest';
import { periodAfter, periodAt, type Schedule } from './recurring-invoice.periods.js';

const monthly = (startDate: string, dayOfPeriod = 1, endDate: string | null = null): Schedule => ({ interval: 'month', dayOfPeriod, startDate, endDate });

describe('the periods of a recurring invoice', () => {
  it('keeps a start on the 31st at each month end, counted from the start (no drift after February)', () => {
    const schedule = monthly('2027-01-31');
    expect([0, 1, 2, 3].map((index) => periodAt(schedule, index)?.start)).toEqual(['2027-01-31', '2027-02-28', '2027-03-31', '2027-04-30']);
    expect(periodAt(schedule, 0)?.end).toBe('2027-02-27');
  });

  it('makes the invoice on the day of the period, or its last day past its end', () => {
    expect(periodAt(monthly('2026-02-01', 15), 0)).toEqual({ index: 0, start: '2026-02-01', end: '2026-02-28', runDate: '2026-02-15' });
    expect(periodAt(monthly('2026-02-01', 31), 0)?.runDate).toBe('2026-02-28');
    expect(periodAt(monthly('2028-02-01', 31), 0)?.runDate).toBe('2028-02-29');
  });

  it('steps by quarters and years, a year from 29 February to 28 February', () => {
    const quarterly: Schedule = { interval: 'quarter', dayOfPeriod: 95, startDate: '2026-01-01', endDate: null };
    expect([0, 1, 2, 3].map((index) => [periodAt(quarterly, index)?.start, periodAt(quarterly, index)?.runDate])).toEqual([
      ['2026-01-01', '2026-03-31'],
      ['2026-04-01', '2026-06-30'],
      ['2026-07-01', '2026-09-30'],
      ['2026-10-01', '2026-12-31'],
    ]);
    const yearly: Schedule = { interval: 'year', dayOfPeriod: 1, startDate: '2028-02-29', endDate: null };
    expect(periodAt(yearly, 1)?.start).toBe('2029-02-28');
    expect(periodAt(yearly, 4)?.start).toBe('2032-02-29');
  });

  it('begins no period after the end date, and goes on after the last period invoiced', () => {
    const schedule = monthly('2026-01-01', 1, '2026-03-01');
    expect(periodAt(schedule, 2)?.start).toBe('2026-03-01');
    expect(periodAt(schedule, 3)).toBeNull();
    expect(periodAfter(schedule, null)?.start).toBe('2026-01-01');
    expect(periodAfter(schedule, '2026-01-01')?.start).toBe('2026-02-01');
    expect(periodAfter(schedule, '2026-03-01')).toBeNull();
  });
});
