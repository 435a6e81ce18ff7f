/**
 * The rules of time entries that need no database: locks and the approval
 * state machine (an entry's values, its minutes among them, are entry.values.ts's)
 *
 *   draft --submit--> submitted --approve--> approved --reopen--> draft
 *                               \--reject--> rejected --edit----> draft
 *
 * Kept pure so that every rule is tested on its own (entry.rules.test.ts).
 */
import type { EntryStatus } from '../../../generated/prisma/enums.js';
import { conflictReasons } from '../../../lib/errors.js';
import { localDate } from '../../../lib/time.js';

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

/** Why a write to an entry or a timer is refused with 409: `reason` in the problem (and GraphQL's extensions). */
export const entryConflicts = conflictReasons('Entry', {
  TIMER_RUNNING: { code: 'CONFLICT', description: 'Another timer of this member is running; stop it first (or give this entry an end)' },
  ENTRY_OVERLAPS: { code: 'CONFLICT', description: "The entry overlaps another of the member's entries, and the tenant does not allow overlaps" },
  ENTRY_LOCKED: { code: 'INVALID_STATE', description: "The entry starts on or before the tenant's lockedUntil date; an admin moves the lock" },
  ENTRY_APPROVED: { code: 'INVALID_STATE', description: 'The entry is approved and read-only; an admin may reopen it' },
  ENTRY_SUBMITTED: { code: 'INVALID_STATE', description: 'The entry is submitted and waits for review; its owner cannot change it now' },
  WRONG_STATUS: {
    code: 'INVALID_STATE',
    description: 'The transition needs another status (submit a draft, approve or reject a submitted entry, reopen an approved one)',
  },
  ENTRY_RUNNING: { code: 'INVALID_STATE', description: 'The entry is a running timer; stop it before submitting it' },
  NOT_RUNNING: { code: 'INVALID_STATE', description: 'The entry is not a running timer, so it cannot be stopped' },
  ENTRY_INVOICED: {
    code: 'INVALID_STATE',
    description: 'The entry is billed on a live client invoice (draft included) and read-only; delete the draft or void the invoice to release it',
  },
  STARTS_IN_FUTURE: { code: 'INVALID_STATE', description: 'The timer starts in the future, so stopping it now would end it before it starts' },
});

/** The status an entry moves to, or 409 INVALID_STATE naming what is possible. */
export function transition(status: EntryStatus, action: EntryTransition): EntryStatus {
  const { from, to, verb } = transitions[action];
  if (status !== from) {
    throw entryConflicts.refuse('WRONG_STATUS', `The entry is ${status}; only ${from} entries can be ${verb}`);
  }
  return to;
}

/**
 * Whether an edit is allowed, and the status it leaves: approved entries are
 * read-only until reopened; submitted ones wait for review (their owner may
 * not change them, reviewers may); a rejected entry becomes a draft again.
 */
export function statusAfterEdit(status: EntryStatus, editorReviews: boolean): EntryStatus {
  if (status === 'approved') throw entryConflicts.refuse('ENTRY_APPROVED', 'The entry is approved and read-only; an admin may reopen it');
  if (status === 'submitted' && !editorReviews) {
    throw entryConflicts.refuse('ENTRY_SUBMITTED', 'The entry is submitted and waits for review; it cannot be changed now');
  }
  return status === 'rejected' ? 'draft' : status;
}
