import { describe, expect, it } from 'vitest';
import { AppError } from '../../../lib/errors.js';
import { assertStep, spanProblems, spansOverlap, type DaySpan } from './absence.rules.js';

const span = (startDate: string, endDate: string, halfDay: DaySpan['halfDay'] = null): DaySpan => ({ startDate, endDate, halfDay });

describe('absence rules', () => {
  it('name the field of a bad span: an end before the start, a half day over several days, more than the longest absence', () => {
    expect(spanProblems(span('2027-03-02', '2027-03-01'), 366)).toEqual([{ path: 'endDate', message: 'must not be before startDate' }]);
    expect(spanProblems(span('2027-03-01', '2027-03-02', 'am'), 366)).toEqual([
      { path: 'halfDay', message: 'is only for a one-day absence (startDate = endDate)' },
    ]);
    expect(spanProblems(span('2027-01-01', '2028-01-02'), 366)).toEqual([{ path: 'endDate', message: 'must be at most 366 days after startDate' }]);
    // 2028 is a leap year: January 1 to December 31 is 366 days, and allowed.
    expect(spanProblems(span('2028-01-01', '2028-12-31'), 366)).toEqual([]);
    expect(spanProblems(span('2027-03-01', '2027-03-01', 'pm'), 366)).toEqual([]);
  });

  it('see an overlap on any shared day, except the two different halves of one day', () => {
    expect(spansOverlap(span('2027-03-01', '2027-03-05'), span('2027-03-05', '2027-03-09'))).toBe(true);
    expect(spansOverlap(span('2027-03-01', '2027-03-05'), span('2027-03-06', '2027-03-09'))).toBe(false);
    expect(spansOverlap(span('2027-03-01', '2027-03-01', 'am'), span('2027-03-01', '2027-03-01', 'pm'))).toBe(false);
    expect(spansOverlap(span('2027-03-01', '2027-03-01', 'am'), span('2027-03-01', '2027-03-01', 'am'))).toBe(true);
    expect(spansOverlap(span('2027-03-01', '2027-03-01', 'am'), span('2027-02-28', '2027-03-03'))).toBe(true);
  });

  it('allow each step only from its statuses: a cancelled absence is not approved (409 WRONG_STATUS)', () => {
    expect(() => assertStep('pending', 'approve')).not.toThrow();
    expect(() => assertStep('approved', 'cancel')).not.toThrow();
    for (const [status, step] of [
      ['cancelled', 'approve'],
      ['rejected', 'approve'],
      ['approved', 'reject'],
      ['approved', 'change'],
      ['rejected', 'cancel'],
      ['cancelled', 'cancel'],
    ] as const) {
      let refusal: unknown;
      try {
        assertStep(status, step);
      } catch (error) {
        refusal = error;
      }
      expect(refusal, `${step} from ${status}`).toBeInstanceOf(AppError);
      expect(refusal).toMatchObject({ code: 'INVALID_STATE', reason: 'WRONG_STATUS' });
    }
  });
});
