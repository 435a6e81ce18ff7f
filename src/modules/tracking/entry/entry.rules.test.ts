import { describe, expect, it } from 'vitest';
import { AppError } from '../../../lib/errors.js';
import { isLocked, statusAfterEdit, transition } from './entry.rules.js';

describe('the lock', () => {
  it('covers entries on or before lockedUntil in the tenant\u2019s zone', () => {
    expect(isLocked(new Date('2026-03-01T22:30:00Z'), '2026-03-01', 'UTC')).toBe(true);
    expect(isLocked(new Date('2026-03-01T23:30:00Z'), '2026-03-01', 'Europe/Berlin')).toBe(false);
    expect(isLocked(new Date('2026-03-01T23:30:00Z'), '2026-03-01', 'UTC')).toBe(true);
    expect(isLocked(new Date('2026-03-02T00:30:00Z'), '2026-03-01', 'UTC')).toBe(false);
    expect(isLocked(new Date('2020-01-01T00:00:00Z'), null, 'UTC')).toBe(false);
  });
});

describe('the approval state machine', () => {
  it('moves draft to submitted to approved or rejected, and approved back to draft', () => {
    expect(transition('draft', 'submit')).toBe('submitted');
    expect(transition('submitted', 'approve')).toBe('approved');
    expect(transition('submitted', 'reject')).toBe('rejected');
    expect(transition('approved', 'reopen')).toBe('draft');
  });

  it('refuses every other transition with INVALID_STATE', () => {
    const refused = [
      ['draft', 'approve'],
      ['draft', 'reject'],
      ['draft', 'reopen'],
      ['submitted', 'submit'],
      ['submitted', 'reopen'],
      ['approved', 'submit'],
      ['approved', 'approve'],
      ['approved', 'reject'],
      ['rejected', 'submit'],
      ['rejected', 'approve'],
      ['rejected', 'reject'],
      ['rejected', 'reopen'],
    ] as const;
    for (const [status, action] of refused) {
      const attempt = () => transition(status, action);
      expect(attempt, `${action} from ${status}`).toThrow(AppError);
      expect(() => attempt()).toThrow(expect.objectContaining({ code: 'INVALID_STATE' }));
    }
  });

  it('makes an edited rejected entry a draft, keeps approved ones read-only, and submitted ones for reviewers', () => {
    expect(statusAfterEdit('rejected', false)).toBe('draft');
    expect(statusAfterEdit('draft', false)).toBe('draft');
    expect(statusAfterEdit('submitted', true)).toBe('submitted');
    expect(() => statusAfterEdit('submitted', false)).toThrow(expect.objectContaining({ code: 'INVALID_STATE' }));
    expect(() => statusAfterEdit('approved', true)).toThrow(expect.objectContaining({ code: 'INVALID_STATE' }));
  });
});
