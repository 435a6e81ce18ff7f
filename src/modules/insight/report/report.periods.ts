/**
 * The periods a report buckets entries into, on the calendar: days, weeks
 * (starting on the tenant's week start) and months. The database buckets the
 * entries (in the report's time zone); these make the keys of empty periods
 * (`fillGaps`) and the labels, from the same keys: `2026-03-02` for a day
 * and for the week starting that day, `2026-03` for a month.
 */
import { addDays, dayOfWeek, nextDay } from '../../../lib/day.js';

export type TimeDimension = 'day' | 'week' | 'month';
export type WeekStart = 'monday' | 'sunday' | 'saturday';

const months = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const weekdayOf: Record<WeekStart, number> = { sunday: 0, monday: 1, saturday: 6 };

/** The first day of the week `date` (`2026-03-04`) is in. */
export function weekOf(date: string, weekStart: WeekStart): string {
  const back = (dayOfWeek(date) - weekdayOf[weekStart] + 7) % 7;
  return addDays(date, -back);
}

/**
 * The whole weeks of the days `from` to `to` (inclusive): the first one's first day, and the first day of the
 * week after the last one (`afterLast`, exclusive). Undefined when no week lies wholly inside.
 */
export function wholeWeeksBetween(from: string, to: string, weekStart: WeekStart): { first: string; afterLast: string } | undefined {
  const startOfFrom = weekOf(from, weekStart);
  const first = startOfFrom === from ? from : addDays(startOfFrom, 7);
  // The weeks that end by `to` are those that start before the week holding the day after it.
  const afterLast = weekOf(nextDay(to), weekStart);
  return first < afterLast ? { first, afterLast } : undefined;
}

/** Every bucket key from the one holding `from` to the one holding `to`, in order. */
export function bucketsBetween(dimension: TimeDimension, from: string, to: string, weekStart: WeekStart): string[] {
  const keys: string[] = [];
  if (dimension === 'month') {
    let [year, month] = from.split('-').map(Number) as [number, number];
    const last = to.slice(0, 7);
    for (let key = `${year}-${String(month).padStart(2, '0')}`; key <= last; key = `${year}-${String(month).padStart(2, '0')}`) {
      keys.push(key);
      month += 1;
      if (month === 13) [year, month] = [year + 1, 1];
    }
    return keys;
  }
  const step = dimension === 'day' ? 1 : 7;
  for (let day = dimension === 'day' ? from : weekOf(from, weekStart); day <= to; day = addDays(day, step)) keys.push(day);
  return keys;
}

/** What a bucket is called: the day itself, "Week of 2026-03-02", "March 2026". */
export function labelOfBucket(dimension: TimeDimension, key: string): string {
  if (dimension === 'day') return key;
  if (dimension === 'week') return `Week of ${key}`;
  const [year, month] = key.split('-').map(Number) as [number, number];
  return `${months[month - 1]} ${year}`;
}
