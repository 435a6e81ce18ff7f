/**
 * Calendar days, one home. A day travels as its `YYYY-MM-DD` text (the API,
 * the rules, events), and PostgreSQL keeps it in a `date` column, which
 * Prisma reads and writes as the `Date` at UTC midnight of that day. These
 * are the only conversions between the two, and the only day arithmetic:
 * on UTC midnights a day is always 86,400,000 ms, whatever a time zone does.
 * Which day an instant falls on in a tenant's zone, and where a day begins
 * there, is lib/time.ts.
 */

const dayMs = 86_400_000;
const dayShape = /^\d{4}-\d{2}-\d{2}$/;

/** The `date` column value of a day (`2027-03-25`): the Date at UTC midnight that Prisma writes. */
export const dayColumn = (day: string): Date => new Date(`${day}T00:00:00Z`);

/** The day a `date` column holds (the UTC day of any Date): `2027-03-25`. */
export const dayText = (column: Date): string => column.toISOString().slice(0, 10);

/** `dayColumn` of an optional field: null (clear it) and undefined (leave it) pass as they are. */
export function optionalDayColumn<Absent extends null | undefined>(day: string | Absent): Date | Absent {
  return day === null || day === undefined ? day : dayColumn(day);
}

/** Whether `text` has a day's shape (`YYYY-MM-DD`); says nothing of whether that day exists (see isCalendarDay). */
export const isDay = (text: string): boolean => dayShape.test(text);

/** Whether `text` is a day that exists: `2028-02-29` is, `2027-02-29` (which Date would roll into March) is not. */
export function isCalendarDay(text: string): boolean {
  if (!dayShape.test(text)) return false;
  const column = dayColumn(text);
  return !Number.isNaN(column.getTime()) && dayText(column) === text;
}

/** The day `days` after `day` (before it, when negative). */
export const addDays = (day: string, days: number): string => dayText(new Date(dayColumn(day).getTime() + days * dayMs));

/** The day after `day`. */
export const nextDay = (day: string): string => addDays(day, 1);

/** How many days `to` is after `from` (0 for the same day, negative when it is before). */
export const daysBetween = (from: string, to: string): number => Math.round((dayColumn(to).getTime() - dayColumn(from).getTime()) / dayMs);

/** The same, between two `date` columns. */
export const daysBetweenColumns = (from: Date, to: Date): number => Math.round((to.getTime() - from.getTime()) / dayMs);

/** The weekday of a day, 0 for Sunday to 6 for Saturday (as `Date.getUTCDay`), whatever the machine's zone. */
export const dayOfWeek = (day: string): number => dayColumn(day).getUTCDay();
