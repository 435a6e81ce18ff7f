/**
 * The periods of a recurring invoice, as calendar days: the first begins on its startDate, each next one
 * a month, a quarter or a year later (a start on the 31st keeps to the month's last day when it has no
 * 31st), and each period's invoice is made on its `dayOfPeriod`-th day (1: its first; past its last day:
 * its last day). A plan with an endDate makes no period that begins after it.
 */
import { addDays } from '../../../lib/day.js';

export type RecurringInterval = 'month' | 'quarter' | 'year';

const monthsOf: Record<RecurringInterval, number> = { month: 1, quarter: 3, year: 12 };

/** The day `months` months after `day`, keeping its day of month (or the month's last, when it is shorter). */
function addMonths(day: string, months: number): string {
  const [year, month, date] = day.split('-').map(Number) as [number, number, number];
  const first = new Date(Date.UTC(year, month - 1 + months, 1));
  const last = new Date(Date.UTC(first.getUTCFullYear(), first.getUTCMonth() + 1, 0)).getUTCDate();
  first.setUTCDate(Math.min(date, last));
  return first.toISOString().slice(0, 10);
}

export interface Schedule {
  interval: RecurringInterval;
  dayOfPeriod: number;
  startDate: string;
  endDate: string | null;
}

/** The start of the `index`-th period (0: the first), counted from the start date (so no month's end drifts). */
export const periodStartAt = (schedule: Schedule, index: number): string => addMonths(schedule.startDate, index * monthsOf[schedule.interval]);

export interface Period {
  index: number;
  start: string;
  /** Its last day. */
  end: string;
  /** The day its invoice is made. */
  runDate: string;
}

/** The `index`-th period, or null when it begins after the plan's end. */
export function periodAt(schedule: Schedule, index: number): Period | null {
  const start = periodStartAt(schedule, index);
  if (schedule.endDate !== null && start > schedule.endDate) return null;
  const end = addDays(periodStartAt(schedule, index + 1), -1);
  const runDay = addDays(start, schedule.dayOfPeriod - 1);
  return { index, start, end, runDate: runDay > end ? end : runDay };
}

/** The first period that begins after `lastStart` (the last period invoiced; null: none yet), or null when the plan has ended. */
export function periodAfter(schedule: Schedule, lastStart: string | null): Period | null {
  for (let index = 0; ; index += 1) {
    const period = periodAt(schedule, index);
    if (period === null || lastStart === null || period.start > lastStart) return period;
  }
}
