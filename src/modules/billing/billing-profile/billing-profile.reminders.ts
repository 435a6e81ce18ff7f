/**
 * The payment reminder levels of a billing profile (CONTRACT.md section 11, "Payment reminders"): after how
 * many days past the due date an open invoice gets its n-th reminder, the fee it adds, and a text of the
 * seller's own that the reminder prints above the catalogue's (empty: the catalogue's alone). Levels are kept
 * by `afterDays`, ascending: level 1 is the first.
 */
import { z } from 'zod';
import { dto, fields } from '../../../lib/dto.js';

export interface ReminderLevel {
  afterDays: number;
  /** A decimal string, at most the currency's decimals. */
  feeAmount: string;
  text: string;
}

/** What a profile has until it names its own: a friendly reminder after 7 days, a second with a 5.00 fee after 21. */
export const defaultReminderLevels: readonly ReminderLevel[] = [
  { afterDays: 7, feeAmount: '0.00', text: '' },
  { afterDays: 21, feeAmount: '5.00', text: '' },
];

export const ReminderLevelDto = dto('ReminderLevelDto', 'A payment reminder level: after how many days past the due date, with which fee and text.', {
  afterDays: z.number().int().min(1).max(3650).describe('Days after the due date'),
  feeAmount: fields.money('The fee this reminder adds, e.g. 5.00 (0 for none)', { min: 0, max: 10_000 }).default('0.00'),
  text: z.string().trim().max(2000).default('').describe('The seller’s own text, printed above the standard one (empty: the standard one alone)'),
});

export const reminderLevelsField = z
  .array(ReminderLevelDto)
  .max(10)
  .superRefine((levels, context) => {
    const days = levels.map((level) => level.afterDays);
    if (new Set(days).size !== days.length) context.addIssue({ code: 'custom', message: 'two levels have the same afterDays' });
  })
  .transform((levels) => [...levels].sort((a, b) => a.afterDays - b.afterDays))
  .describe('Payment reminder levels: after how many days past the due date, with which fee and text (default: 7 days no fee, 21 days 5.00)');

/** The levels as the column keeps them, by afterDays. */
export const reminderLevelsOf = (stored: unknown): ReminderLevel[] =>
  Array.isArray(stored) ? [...(stored as ReminderLevel[])].sort((a, b) => a.afterDays - b.afterDays) : [...defaultReminderLevels];

/** The highest level (1-based) an invoice `daysOverdue` days past its due date has reached, or 0 for none. */
export function levelReached(levels: readonly ReminderLevel[], daysOverdue: number): number {
  let reached = 0;
  levels.forEach((level, index) => {
    if (level.afterDays <= daysOverdue) reached = index + 1;
  });
  return reached;
}
