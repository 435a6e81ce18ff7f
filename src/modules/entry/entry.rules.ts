/**
 * The rules of time entries that need no database: durations, locks, and
 * the approval state machine
 *
 *   draft --submit--> submitted --approve--> approved --reopen--> draft
 *                               \--reject--> rejected --edit----> draft
 *
 * Kept pure so that every rule is tested on its own (entry.rules.test.ts).
 */
import type { EntryStatus } from '../../generated/prisma/enums.js';
import { AppError } from '../../lib/errors.js';
import { localDate } from '../../lib/time.js';

const minuteMs = 60_000;

/**
 * Worked minutes: the span minus the break, rounded to the nearest multiple
 * of `rounding` minutes (0: to the nearest minute), never below zero.
 */
export function durationMinutes(startedAt: Date, endedAt: Date, breakMinutes: number, rounding: number): number {
  const worked = (endedAt.getTime() - startedAt.getTime()) / minuteMs - breakMinutes;
  if (worked <= 0) return 0;
  const step = rounding > 0 ? rounding : 1;
  return Math.round(worked / step) * step;
}

/** Whether an entry starting at `startedAt` falls in the locked period (on or before `lockedUntil`, in the tenant's zone). */
export function isLocked(startedAt: Date, lockedUntil: string | null, timeZone: string): boolean {
  return lockedUntil !== null && localDate(startedAt, timeZone) <= lockedUntil;
}

export type EntryTransition = 'submit' | 'approve' | 'reject' | 'reopen';

const transitions: Record<EntryTransition, { from: EntryStatus; to: EntryStatus; verb: string }> = {
  submit: { from: 'draft', to: 'submitted', verb: 'submitted' },
  approve: { from: 'submitted', to: 'approved', verb: 'approved' },
  reject: { from: 'submitted', to: 'rejected', verb: 'rejected' },
  reopen: { from: 'approved', to: 'draft', verb: 'reopened' },
};

/** The status an entry moves to, or 409 INVALID_STATE naming what is possible. */
export function transition(status: EntryStatus, action: EntryTransition): EntryStatus {
  const { from, to, verb } = transitions[action];
  if (status !== from) {
    throw new AppError('INVALID_STATE', `The entry is ${status}; only ${from} entries can be ${verb}`);
  }
  return to;
}

/**
 * Whether an edit is allowed, and the status it leaves: approved entries are
 * read-only until reopened; submitted ones wait for review (their owner may
 * not change them, reviewers may); a rejected entry becomes a draft again.
 */
export function statusAfterEdit(status: EntryStatus, editorReviews: boolean): EntryStatus {
  if (status === 'approved') throw new AppError('INVALID_STATE', 'The entry is approved and read-only; an admin may reopen it');
  if (status === 'submitted' && !editorReviews) {
    throw new AppError('INVALID_STATE', 'The entry is submitted and waits for review; it cannot be changed now');
  }
  return status === 'rejected' ? 'draft' : status;
}
