/**
 * The rules of absences that need no database: the approval state machine
 * (the entries' vocabulary: approve, reject) and what a span of days is.
 *
 *   pending --approve--> approved --cancel--> cancelled
 *           \--reject--> rejected
 *           \--cancel--> cancelled
 *
 * A type without approval is approved when it is requested. Only pending and
 * approved absences hold their days (they may not overlap); only approved
 * ones count.
 */
import type { AbsenceStatus, HalfDay } from '../../../generated/prisma/enums.js';
import { conflictReasons, type FieldError } from '../../../lib/errors.js';
import { daysBetween } from '../../../lib/day.js';

/** Why a write to an absence is refused with 409. */
export const absenceConflicts = conflictReasons('Absence', {
  ABSENCE_OVERLAP: { code: 'CONFLICT', description: 'The absence overlaps another pending or approved absence of the member' },
  WRONG_STATUS: {
    code: 'INVALID_STATE',
    description: 'The step needs another status (approve or reject a pending absence; change or delete a pending one; cancel a pending or approved one)',
  },
});

export type AbsenceStep = 'approve' | 'reject' | 'cancel' | 'change';

const allowed: Record<AbsenceStep, { from: readonly AbsenceStatus[]; verb: string }> = {
  approve: { from: ['pending'], verb: 'approved' },
  reject: { from: ['pending'], verb: 'rejected' },
  cancel: { from: ['pending', 'approved'], verb: 'cancelled' },
  change: { from: ['pending'], verb: 'changed or deleted' },
};

/** Refuses a step the absence's status does not allow: 409 WRONG_STATUS naming the status (a cancelled absence is not approved). */
export function assertStep(status: AbsenceStatus, step: AbsenceStep): void {
  const { from, verb } = allowed[step];
  if (!from.includes(status)) throw absenceConflicts.refuse('WRONG_STATUS', `The absence is ${status}; only ${from.join(' or ')} absences can be ${verb}`);
}

export interface DaySpan {
  startDate: string;
  endDate: string;
  halfDay: HalfDay | null;
}

/** What is wrong with a span of days, field by field: an end before the start, a half day over more than one day. */
export function spanProblems(span: DaySpan, maxDays: number): FieldError[] {
  if (span.endDate < span.startDate) return [{ path: 'endDate', message: 'must not be before startDate' }];
  const problems: FieldError[] = [];
  if (span.halfDay !== null && span.endDate !== span.startDate)
    problems.push({ path: 'halfDay', message: 'is only for a one-day absence (startDate = endDate)' });
  const days = daysBetween(span.startDate, span.endDate) + 1;
  if (days > maxDays) problems.push({ path: 'endDate', message: `must be at most ${maxDays} days after startDate` });
  return problems;
}

/** Whether two spans share time: the same days, unless they are the two different halves of one day. */
export function spansOverlap(a: DaySpan, b: DaySpan): boolean {
  if (a.startDate > b.endDate || b.startDate > a.endDate) return false;
  return !(a.halfDay !== null && b.halfDay !== null && a.halfDay !== b.halfDay);
}

/** The days of a span the member is not employed on (before employmentStart, after employmentEnd), each named with its field: no absence there. */
export function employmentProblems(span: DaySpan, employment: { start: string | null; end: string | null }): FieldError[] {
  const problems: FieldError[] = [];
  if (employment.start !== null && span.startDate < employment.start) {
    problems.push({ path: 'startDate', message: `${span.startDate} is before the member's employmentStart (${employment.start}): not employed that day` });
  }
  if (employment.end !== null && span.endDate > employment.end) {
    problems.push({ path: 'endDate', message: `${span.endDate} is after the member's employmentEnd (${employment.end}): not employed that day` });
  }
  return problems;
}
