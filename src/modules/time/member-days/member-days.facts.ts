/**
 * What each day of a member is worth, without the database: the minutes
 * expected of them, what holidays and absences take off or credit, and the
 * vacation days an absence uses. Every reader of working time (the balance,
 * the vacation account, the timesheet) goes through `dayFacts`, so a day
 * counts the same everywhere (member-days.facts.test.ts).
 *
 * - The schedule of a day is the latest one valid from that day or before,
 *   else the tenant's default week.
 * - A holiday takes its fraction of the scheduled minutes off what is expected.
 * - An approved absence covers what is left of the day (half of it for a half
 *   day: the morning the smaller half of an odd number of minutes). A type
 *   that counts as work credits it; an unpaid one takes it off what is
 *   expected; others (overtime compensation) leave the day expected, so it is
 *   paid from the balance.
 * - A vacation day is a day with minutes expected: a half day or a half-day
 *   holiday counts 0.5.
 * - A day before the member's employment starts or after it ends expects,
 *   credits and uses nothing (without employment dates: every day counts).
 * Dates are calendar days (`YYYY-MM-DD`); no instant is involved, so clock
 * changes do not move anything here (worked minutes are counted per day in
 * the tenant's zone by the database).
 */
import { weekdayOf, type WeekMinutes } from '../../../lib/week.js';
import { nextDay } from '../../../lib/day.js';

export interface ScheduleFrom {
  validFrom: string;
  week: WeekMinutes;
}

export interface AbsenceSpan {
  id: string;
  startDate: string;
  endDate: string;
  halfDay: 'am' | 'pm' | null;
  countsAsWork: boolean;
  deductsVacation: boolean;
  /** The day is not expected (kind unpaid). */
  unpaid: boolean;
}

export interface HolidayOn {
  name: string;
  fraction: number;
}

export interface DayFacts {
  date: string;
  scheduledMinutes: number;
  holidayMinutes: number;
  holiday: HolidayOn | null;
  expectedMinutes: number;
  creditedMinutes: number;
  /** Vacation days this day uses (0, 0.5 or 1). */
  vacationDays: number;
  /** The absences on this day. */
  absenceIds: string[];
  /** What each absence of this day covers, in the order of absenceIds (reports count absences by type from it). */
  absenceParts: AbsencePart[];
}

/**
 * The part of a day one absence covers, whatever its type credits: the minutes of the day left after a holiday
 * (half of them for a half day), and the days (1, or 0.5 for a half day or a half-day holiday; 0 on a day with
 * nothing expected).
 */
export interface AbsencePart {
  id: string;
  minutes: number;
  days: number;
}

export interface DayInputs {
  defaultWeek: WeekMinutes;
  /** Any order. */
  schedules: readonly ScheduleFrom[];
  holidays: ReadonlyMap<string, HolidayOn>;
  absences: readonly AbsenceSpan[];
  /** The member's first and last day of employment (null: open on that side); absent: employed every day. */
  employment?: Employment;
}

export interface Employment {
  start: string | null;
  end: string | null;
}

/** Whether the member is employed on `date`. */
export const employedOn = (employment: Employment | undefined, date: string): boolean =>
  !employment || ((employment.start === null || employment.start <= date) && (employment.end === null || date <= employment.end));

/** The part of `minutes` a half day takes: the morning the smaller half, the afternoon the rest. */
function shareOf(minutes: number, halfDay: AbsenceSpan['halfDay']): number {
  if (halfDay === null) return minutes;
  const morning = Math.floor(minutes / 2);
  return halfDay === 'am' ? morning : minutes - morning;
}

/** Each day from `from` to `to` (inclusive), with what it is worth. */
export function dayFacts(from: string, to: string, inputs: DayInputs): DayFacts[] {
  const schedules = [...inputs.schedules].sort((a, b) => a.validFrom.localeCompare(b.validFrom));
  const absences = [...inputs.absences].sort((a, b) => a.startDate.localeCompare(b.startDate));
  let scheduleIndex = -1;
  while (scheduleIndex + 1 < schedules.length && (schedules[scheduleIndex + 1] as ScheduleFrom).validFrom <= from) scheduleIndex++;
  const days: DayFacts[] = [];
  for (let date = from; date <= to; date = nextDay(date)) {
    while (scheduleIndex + 1 < schedules.length && (schedules[scheduleIndex + 1] as ScheduleFrom).validFrom <= date) scheduleIndex++;
    const week = scheduleIndex >= 0 ? (schedules[scheduleIndex] as ScheduleFrom).week : inputs.defaultWeek;
    const scheduledMinutes = employedOn(inputs.employment, date) ? week[weekdayOf(date)] : 0;
    const holiday = inputs.holidays.get(date) ?? null;
    const holidayMinutes = holiday ? Math.round(scheduledMinutes * holiday.fraction) : 0;
    const open = scheduledMinutes - holidayMinutes;
    let expectedMinutes = open;
    let creditedMinutes = 0;
    let vacationDays = 0;
    const absenceIds: string[] = [];
    const absenceParts: AbsencePart[] = [];
    for (const absence of absences) {
      if (absence.startDate > date) break;
      if (absence.endDate < date) continue;
      absenceIds.push(absence.id);
      const share = shareOf(open, absence.halfDay);
      const dayShare = open > 0 ? (absence.halfDay === null ? 1 : 0.5) * (1 - (holiday?.fraction ?? 0)) : 0;
      absenceParts.push({ id: absence.id, minutes: share, days: dayShare });
      if (absence.unpaid) expectedMinutes -= share;
      if (absence.countsAsWork) creditedMinutes += share;
      if (absence.deductsVacation) vacationDays += dayShare;
    }
    days.push({ date, scheduledMinutes, holidayMinutes, holiday, expectedMinutes, creditedMinutes, vacationDays, absenceIds, absenceParts });
  }
  return days;
}
