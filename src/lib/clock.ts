/**
 * The one clock rules read. A process makes it once, in its composition
 * root (src/runtime.ts), and hands it to every service and work object:
 * no rule reads the system clock itself (test/architecture/clock.test.ts),
 * so a test can pin the date every rule sees. In production it is the
 * system clock; tests start it at a fixed instant (`TEST_CLOCK`), from which
 * it moves on with real time, so timers, timeouts and intervals between
 * two readings stay what they are.
 */
import { localDate } from './time.js';
import { isCalendarDay } from './day.js';

export interface Clock {
  /** The current instant. */
  now(): Date;
  /** Today's calendar date (`YYYY-MM-DD`) in `timeZone` (the tenant's). */
  today(timeZone: string): string;
}

/** A clock `offsetMs` ahead of the system clock (behind, when negative). */
function offsetClock(offsetMs: number): Clock {
  const now = (): Date => new Date(Date.now() + offsetMs);
  return { now, today: (timeZone) => localDate(now(), timeZone) };
}

/** The system clock: what every process runs on, unless a test pinned another. */
export const systemClock: Clock = offsetClock(0);

/**
 * Where a pinned clock stands: it read `reads` when the system clock read
 * `at` (by default: when the clock is made), and moves on with real time.
 */
export interface ClockSetting {
  reads: Date;
  at?: Date | undefined;
}

/** The clock a setting pins: `setting.reads` at `setting.at` (or now), moving on with real time. */
export function pinnedClock({ reads, at }: ClockSetting): Clock {
  return offsetClock(reads.getTime() - (at ?? new Date()).getTime());
}

const dateOnly = /^\d{4}-\d{2}-\d{2}$/;
const instant = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})$/;

/** A date (noon UTC that day) or an instant with its offset; undefined for anything else, or a day that does not exist. */
function instantOf(value: string): Date | undefined {
  if (!dateOnly.test(value) && !instant.test(value)) return undefined;
  // Date fills in an impossible day (February 30 becomes March 2): the date part must survive the round trip.
  const day = value.slice(0, 10);
  if (!isCalendarDay(day)) return undefined;
  const parsed = new Date(dateOnly.test(value) ? `${day}T12:00:00Z` : value);
  return Number.isNaN(parsed.getTime()) ? undefined : parsed;
}

/**
 * A clock setting (TEST_CLOCK): an ISO 8601 instant with its offset
 * (`2027-01-02T08:30:00Z`), or a date alone (`2027-01-02`), which means noon
 * UTC that day: the same calendar date in every time zone from UTC-11 to
 * UTC+11. The clock reads it when it is made. `<instant>@<instant>` says
 * the clock read the first when the system clock read the second: how a
 * process hands its clock to the processes it starts, to the millisecond
 * (however long they take to start). Undefined for anything else.
 */
export function clockSetting(text: string): ClockSetting | undefined {
  const [readsText = '', atText, ...rest] = text.trim().split('@');
  const reads = instantOf(readsText);
  // The system clock's instant must be one: a date alone would be noon, hours off.
  const at = atText !== undefined && instant.test(atText) ? instantOf(atText) : undefined;
  if (reads === undefined || rest.length > 0 || (atText !== undefined && at === undefined)) return undefined;
  return { reads, at };
}
