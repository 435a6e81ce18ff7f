/**
 * The one rule for a period of days that a caller asks about (a report, the
 * holidays, a balance): `to` is not before `from`, and is less than five
 * years after it. So a period holds at most five years of days:
 * 2027-03-01 to 2032-02-29 is the longest from March 1, 2027 (2032-03-01
 * would be five years and a day). It bounds what one question may make the
 * database and the process count.
 */
import { validationFailed, type FieldError } from './errors.js';

/** The most years a period may span. */
export const maxPeriodYears = 5;

/**
 * What is wrong with a period, by field (`to`), or nothing. It compares the days as text, so it can check what a
 * client sent before anything else has (text not shaped like a day is some other check's to name).
 */
export function periodProblems(from: string, to: string): FieldError[] {
  if (to < from) return [{ path: 'to', message: 'must not be before from' }];
  const limitYear = Number(from.slice(0, 4)) + maxPeriodYears;
  const limit = `${String(limitYear).padStart(4, '0')}${from.slice(4)}`;
  // After year 9999 there is no day to reach: every `to` is nearer.
  if (limitYear <= 9999 && to >= limit) return [{ path: 'to', message: `must be less than ${maxPeriodYears} years after from` }];
  return [];
}

/** Throws VALIDATION_FAILED (400) naming `to` unless `from` to `to` is a period the rule allows. */
export function assertPeriod(from: string, to: string): void {
  const problems = periodProblems(from, to);
  if (problems.length > 0) throw validationFailed(problems);
}
