/**
 * A week of expected minutes, Monday first, as the API shows it
 * (`{mon, tue, wed, thu, fri, sat, sun}`) and as the table stores it (an
 * array of seven): a tenant's default schedule and each member's work
 * schedule. Pure: the balance, the vacation days and the timesheet read the
 * minutes of a day by its `weekdayOf`.
 */
import { z } from 'zod';
import { dayOfWeek } from './day.js';
import { dto } from './dto.js';

export const weekdays = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
export type Weekday = (typeof weekdays)[number];
export type WeekMinutes = Record<Weekday, number>;

const dayMinutes = (day: string) => z.number().int().min(0).max(1440).describe(`Expected minutes on ${day}, 0 to 1440`);

export const WeekMinutesDto = dto('WeekMinutesDto', 'Expected minutes per weekday (0 to 1440 each).', {
  mon: dayMinutes('Mondays'),
  tue: dayMinutes('Tuesdays'),
  wed: dayMinutes('Wednesdays'),
  thu: dayMinutes('Thursdays'),
  fri: dayMinutes('Fridays'),
  sat: dayMinutes('Saturdays'),
  sun: dayMinutes('Sundays'),
});

/** Eight hours Monday to Friday: the schedule of a tenant that set none (CONTRACT.md section 10). */
export const standardWeek: WeekMinutes = { mon: 480, tue: 480, wed: 480, thu: 480, fri: 480, sat: 0, sun: 0 };

export const weekOf = (minutes: readonly number[]): WeekMinutes => Object.fromEntries(weekdays.map((day, index) => [day, minutes[index] ?? 0])) as WeekMinutes;

export const columnOf = (week: WeekMinutes): number[] => weekdays.map((day) => week[day]);

/** The weekday of a calendar date (`YYYY-MM-DD`), whatever the machine's zone. */
export const weekdayOf = (date: string): Weekday => weekdays[(dayOfWeek(date) + 6) % 7] as Weekday;
