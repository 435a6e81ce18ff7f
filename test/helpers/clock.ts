/**
 * The tests' clock: where every test server's clock starts, and what a test
 * takes "now", "today" and "this year" from (never `new Date()`): so the
 * suite gives the same answers on every day it runs, and runs at any other
 * date by `TEST_CLOCK` (README, "Test it"; `npm run test:dates`).
 *
 * `TEST_CLOCK` is a date (`2027-01-02`: noon UTC that day) or an instant
 * (`2027-01-02T08:30:00Z`). Unset, the clock starts at `defaultTestClock`.
 * Either way it starts when a test file first loads this module and moves on
 * with real time, so timers and timeouts work as they do on the wall clock.
 */
import { clockSetting, pinnedClock, type Clock, type ClockSetting } from '../../src/lib/clock.js';

/**
 * A Wednesday in mid-June: as far as a day gets from a year's turn, the end of
 * the first quarter (when carried-over vacation expires), a month's end and
 * the clock changes of Europe and America. So the plain suite checks the
 * middle of a year; `npm run test:dates` checks the edges.
 */
export const defaultTestClock = '2026-06-17T12:00:00Z';

function testClockSetting(): Required<ClockSetting> {
  const text = process.env.TEST_CLOCK?.trim() || defaultTestClock;
  const setting = clockSetting(text);
  if (setting === undefined) throw new Error(`TEST_CLOCK=${text}: give a date (2027-01-02) or an instant with its offset (2027-01-02T08:30:00Z)`);
  return { reads: setting.reads, at: setting.at ?? new Date() };
}

const setting = testClockSetting();

/** The clock of this test file's servers (test/helpers/server.ts hands it to startTally), and of its expectations. */
export const testClock: Clock = pinnedClock(setting);

/**
 * What a process a test starts beside its server (`tally serve`, the CLI) needs to run on the same clock, to the
 * millisecond: TEST_CLOCK as `<what it read>@<when, by the system clock>`, which Tally honours with NODE_ENV=test alone.
 */
export function testClockEnvironment(): { NODE_ENV: 'test'; TEST_CLOCK: string } {
  return { NODE_ENV: 'test', TEST_CLOCK: `${setting.reads.toISOString()}@${setting.at.toISOString()}` };
}

/** The instant `ms` milliseconds before now by the test clock (a timer that started a minute ago). */
export const msAgo = (ms: number): Date => new Date(testClock.now().getTime() - ms);

/** The calendar date `days` before today (after, when negative) in `timeZone` (default UTC). */
export function daysAgo(days: number, timeZone = 'UTC'): string {
  const [year, month, day] = testClock.today(timeZone).split('-').map(Number) as [number, number, number];
  return new Date(Date.UTC(year, month - 1, day - days)).toISOString().slice(0, 10);
}
