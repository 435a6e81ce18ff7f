/**
 * Working time under the law, without the database: a member's finished
 * entries, their time zone, the public holidays and the tenant's rule set in;
 * each working day's net time and breaks, and the named violations, out.
 *
 * - `de`, the Working Hours Act (ArbZG): §4 breaks (30 min past 6 h net, 45
 *   min past 9 h, only blocks of 15 min or more count, no more than 6 h in a
 *   row without one), §3 (10 h net a day at most; 8 h a working day on
 *   average over 24 weeks), §5 (11 h rest between two working days), §9
 *   (Sundays and public holidays).
 * - `eu`, Directive 2003/88/EC: Art. 4 (a break when the day exceeds 6 h),
 *   Art. 3 (11 h daily rest), Art. 6 with Art. 16(b) (48 h a week on average
 *   over a reference period of at most four months: 17 weeks).
 * - `none`: nothing is checked.
 *
 * A working day is the local calendar day its first entry starts on; a
 * later entry joins it when it starts that same day, or after midnight less
 * than `shiftGapMinutes` after the day's last entry ended (a night shift and
 * its break stay one day). Which finding a day's breaks give, and why: see
 * docs/decisions.md, "Working-time rules".
 */
import { addDays, dayOfWeek } from '../../../lib/day.js';
import { localDate } from '../../../lib/time.js';

export type WorkingTimeRuleSet = 'none' | 'eu' | 'de';

export const workingTimeRules = [
  'BREAK_MISSING',
  'BREAK_TOO_SHORT',
  'NO_BREAK_AFTER_6H',
  'DAY_OVER_10H',
  'REST_UNDER_11H',
  'SUNDAY_WORK',
  'HOLIDAY_WORK',
  'AVERAGE_OVER_8H',
  'WEEK_OVER_48H',
] as const;
export type WorkingTimeRule = (typeof workingTimeRules)[number];

/** The rules each set checks. */
export const rulesOf: Record<WorkingTimeRuleSet, readonly WorkingTimeRule[]> = {
  none: [],
  eu: ['BREAK_MISSING', 'REST_UNDER_11H', 'WEEK_OVER_48H'],
  de: ['BREAK_MISSING', 'BREAK_TOO_SHORT', 'NO_BREAK_AFTER_6H', 'DAY_OVER_10H', 'REST_UNDER_11H', 'SUNDAY_WORK', 'HOLIDAY_WORK', 'AVERAGE_OVER_8H'],
};

/** A finished entry: its instants and the break recorded inside it. */
export interface WorkInterval {
  startedAt: Date;
  endedAt: Date;
  breakMinutes: number;
}

export interface Violation {
  date: string;
  rule: WorkingTimeRule;
  detail: string;
  /** How far the day is past the limit (break minutes lacking, minutes over, rest minutes short); for Sunday and holiday work the minutes worked. */
  minutes: number;
}

export interface WorkingDay {
  date: string;
  /** Net minutes: entries' time, overlaps counted once, less the breaks recorded inside them. */
  workedMinutes: number;
  /** Minutes of the breaks that count (gaps and recorded breaks of 15 minutes or more). */
  breakMinutes: number;
  /** The statutory minimum for the day's net time (§4 ArbZG: 0, 30 or 45). */
  requiredBreakMinutes: number;
  /** What the counted breaks lack of the minimum (deductStatutoryBreaks takes it off the worked minutes). */
  lackingBreakMinutes: number;
}

export interface WorkingTimeInput {
  /** Entries from `contextFrom(from)` on (earlier days feed the averages and the first day's rest), up to `to`. */
  entries: readonly WorkInterval[];
  timezone: string;
  /** Public holidays by date (whole days only: a half-day holiday is no holiday under §9). */
  holidays: ReadonlyMap<string, string>;
  ruleSet: WorkingTimeRuleSet;
  from: string;
  to: string;
  /**
   * Only the rules a day and its neighbours decide (breaks, length, rest, Sunday and holiday work): the
   * averages need weeks of entries before `from`, which the caller then need not pass.
   */
  dayRulesOnly?: boolean;
}

export interface WorkingTimeResult {
  days: WorkingDay[];
  violations: Violation[];
}

const minute = 60_000;
/** §4 ArbZG: "Ruhepausen von mindestens 15 Minuten". */
export const minimumBreakBlock = 15;
/** A gap after midnight shorter than this continues the day before (a night shift's break), longer starts a new day. */
export const shiftGapMinutes = 120;
/** §3 ArbZG: 24 weeks; Art. 16(b) 2003/88/EC: at most four months, taken as 17 weeks (as the UK's Working Time Regulations 1998, reg. 4(3)(b)). */
export const averageWindowDays = { de: 24 * 7, eu: 17 * 7 } as const;

/** The first day whose entries the rules need to judge `from`: the longest averaging window, and the day before for the rest. */
export const contextFrom = (from: string): string => addDays(from, -averageWindowDays.de);

/**
 * The most net minutes one averaging window holds within the law: §3's 8 h on each of the 144 Mondays to
 * Saturdays of 24 weeks, the directive's 48 h in each of 17 weeks. Time recorded in a window (overlaps and
 * breaks not taken off) at most this much cannot break an average: its days need only the day rules.
 */
export const averageAllowanceMinutes = { de: 8 * 60 * 144, eu: 48 * 60 * 17 } as const;

/** The rules over weeks of days (§3 ArbZG's 24 weeks, the directive's 17): left out with `dayRulesOnly`. */
export const averagedRules: readonly WorkingTimeRule[] = ['AVERAGE_OVER_8H', 'WEEK_OVER_48H'];

/**
 * The first day whose entries the day rules need to judge `from`: the day before (its working day may run past
 * midnight, and the rest is measured from its end), and one more for a night shift that ran into it.
 */
export const dayContextFrom = (from: string): string => addDays(from, -2);

/** §4 ArbZG: 30 minutes past 6 h of net work, 45 past 9 h. */
export function requiredBreak(workedMinutes: number): number {
  if (workedMinutes > 9 * 60) return 45;
  if (workedMinutes > 6 * 60) return 30;
  return 0;
}

interface Piece {
  start: number;
  end: number;
  breakMinutes: number;
}

interface DayGroup {
  date: string;
  pieces: Piece[];
  start: number;
  end: number;
}

/** Entries into working days: sorted, overlaps cut off the later entry, grouped per the rule above. */
function workingDays(entries: readonly WorkInterval[], timezone: string): DayGroup[] {
  const sorted = entries
    .map((entry) => ({ start: entry.startedAt.getTime(), end: entry.endedAt.getTime(), breakMinutes: entry.breakMinutes }))
    .filter((piece) => piece.end > piece.start)
    .sort((a, b) => a.start - b.start || a.end - b.end);
  const groups: DayGroup[] = [];
  for (const piece of sorted) {
    const last = groups.at(-1);
    if (last && piece.end <= last.end) continue; // wholly inside time already counted
    const start = last ? Math.max(piece.start, last.end) : piece.start;
    const date = localDate(new Date(start), timezone);
    const clipped = { start, end: piece.end, breakMinutes: piece.breakMinutes };
    if (last && (date === last.date || start - last.end < shiftGapMinutes * minute)) {
      last.pieces.push(clipped);
      last.end = clipped.end;
    } else {
      groups.push({ date, pieces: [clipped], start, end: clipped.end });
    }
  }
  return groups;
}

interface DayMeasure extends WorkingDay {
  /** The longest run of work without a counted break, in minutes. */
  longestStretch: number;
  /** Gaps shorter than a break block (they count as work time for the stretch, not as breaks). */
  shortGaps: number[];
}

function measure(group: DayGroup): DayMeasure {
  let worked = 0;
  let counted = 0;
  let stretch = 0;
  let longest = 0;
  const shortGaps: number[] = [];
  group.pieces.forEach((piece, index) => {
    if (index > 0) {
      const gap = (piece.start - (group.pieces[index - 1] as Piece).end) / minute;
      if (gap >= minimumBreakBlock) {
        counted += gap;
        stretch = 0;
      } else if (gap > 0) shortGaps.push(gap);
    }
    const length = (piece.end - piece.start) / minute;
    const inner = Math.min(piece.breakMinutes, length);
    const work = length - inner;
    worked += work;
    if (inner >= minimumBreakBlock) {
      // Where in the entry its break was is not recorded: taken as its middle.
      counted += inner;
      longest = Math.max(longest, stretch + work / 2);
      stretch = work / 2;
    } else stretch += work;
    longest = Math.max(longest, stretch);
  });
  const workedMinutes = Math.round(worked);
  const breakMinutes = Math.round(counted);
  const requiredBreakMinutes = requiredBreak(workedMinutes);
  return {
    date: group.date,
    workedMinutes,
    breakMinutes,
    requiredBreakMinutes,
    lackingBreakMinutes: Math.max(0, requiredBreakMinutes - breakMinutes),
    longestStretch: Math.round(longest),
    shortGaps,
  };
}

const hours = (minutes: number): string => `${Math.floor(minutes / 60)}:${String(minutes % 60).padStart(2, '0')} h`;

/** The break findings of one day (one of BREAK_MISSING and BREAK_TOO_SHORT, and NO_BREAK_AFTER_6H beside a break that was taken). */
function breakViolations(day: DayMeasure, ruleSet: WorkingTimeRuleSet): Violation[] {
  const found: Violation[] = [];
  const over6h = day.workedMinutes > 6 * 60;
  if (over6h && day.breakMinutes === 0) {
    const gaps =
      day.shortGaps.length > 0
        ? `; gaps under ${minimumBreakBlock} min (${day.shortGaps.map((gap) => `${Math.round(gap)} min`).join(', ')}) are no breaks`
        : '';
    const need = ruleSet === 'de' ? day.requiredBreakMinutes : minimumBreakBlock;
    found.push({ date: day.date, rule: 'BREAK_MISSING', detail: `${hours(day.workedMinutes)} worked without a break${gaps}`, minutes: need });
    return found;
  }
  if (ruleSet !== 'de') return found;
  if (day.lackingBreakMinutes > 0) {
    found.push({
      date: day.date,
      rule: 'BREAK_TOO_SHORT',
      detail: `${day.breakMinutes} min of breaks for ${hours(day.workedMinutes)} worked; at least ${day.requiredBreakMinutes} min required`,
      minutes: day.lackingBreakMinutes,
    });
  }
  if (day.longestStretch > 6 * 60) {
    found.push({
      date: day.date,
      rule: 'NO_BREAK_AFTER_6H',
      detail: `${hours(day.longestStretch)} worked in a row without a break of ${minimumBreakBlock} min or more`,
      minutes: day.longestStretch - 6 * 60,
    });
  }
  return found;
}

const dayMs = 86_400_000;
const dayNumber = (date: string): number => Date.parse(`${date}T00:00:00Z`) / dayMs;

/**
 * Rolling sums in O(1) a day: net minutes and Mondays-to-Saturdays counted
 * from the first day worked, so a window's total is two lookups.
 */
function rollingWindows(byDate: ReadonlyMap<string, number>) {
  const numbers = [...byDate.keys()].map(dayNumber);
  if (numbers.length === 0) return { total: () => 0, workdays: () => 0 };
  const first = Math.min(...numbers);
  const last = Math.max(...numbers);
  const worked = new Float64Array(last - first + 2);
  for (const [date, minutes] of byDate) worked[dayNumber(date) - first + 1] = minutes;
  for (let index = 1; index < worked.length; index += 1) worked[index] = (worked[index] as number) + (worked[index - 1] as number);
  const upTo = (day: number): number => worked[Math.min(Math.max(day - first + 1, 0), worked.length - 1)] as number;
  // 1970-01-01 was a Thursday: day n is a Sunday when (n + 4) % 7 is 0.
  const sundaysUpTo = (day: number): number => Math.floor((day + 4) / 7);
  return {
    /** Net minutes of the `length` days up to and including `date`. */
    total: (date: string, length: number): number => upTo(dayNumber(date)) - upTo(dayNumber(date) - length),
    /** Mondays to Saturdays among them (§3 ArbZG's working days). */
    workdays: (date: string, length: number): number => length - (sundaysUpTo(dayNumber(date)) - sundaysUpTo(dayNumber(date) - length)),
  };
}

/** A member's working days from `from` to `to` and what they break of the rule set. */
export function checkWorkingTime(input: WorkingTimeInput): WorkingTimeResult {
  const groups = workingDays(input.entries, input.timezone);
  const measured = groups.map(measure);
  const byDate = new Map<string, number>();
  for (const day of measured) byDate.set(day.date, (byDate.get(day.date) ?? 0) + day.workedMinutes);
  const rules = new Set(rulesOf[input.ruleSet].filter((rule) => !input.dayRulesOnly || !averagedRules.includes(rule)));
  const windows = rollingWindows(byDate);
  const days: WorkingDay[] = [];
  const violations: Violation[] = [];
  measured.forEach((day, index) => {
    if (day.date < input.from || day.date > input.to) return;
    const { longestStretch: _stretch, shortGaps: _gaps, ...workingDay } = day;
    days.push(workingDay);
    if (rules.size === 0) return;
    const found = breakViolations(day, input.ruleSet);
    if (rules.has('DAY_OVER_10H') && day.workedMinutes > 10 * 60) {
      found.push({ date: day.date, rule: 'DAY_OVER_10H', detail: `${hours(day.workedMinutes)} net worked; at most 10:00 h`, minutes: day.workedMinutes - 600 });
    }
    const before = groups[index - 1];
    const group = groups[index] as DayGroup;
    if (rules.has('REST_UNDER_11H') && before) {
      const rest = Math.round((group.start - before.end) / minute);
      if (rest < 11 * 60) {
        found.push({
          date: day.date,
          rule: 'REST_UNDER_11H',
          detail: `${hours(rest)} of rest after the working day of ${before.date}; at least 11:00 h`,
          minutes: 660 - rest,
        });
      }
    }
    if (rules.has('SUNDAY_WORK') && dayOfWeek(day.date) === 0) {
      found.push({ date: day.date, rule: 'SUNDAY_WORK', detail: `${hours(day.workedMinutes)} worked on a Sunday`, minutes: day.workedMinutes });
    }
    const holiday = input.holidays.get(day.date);
    if (rules.has('HOLIDAY_WORK') && holiday !== undefined) {
      found.push({
        date: day.date,
        rule: 'HOLIDAY_WORK',
        detail: `${hours(day.workedMinutes)} worked on a public holiday (${holiday})`,
        minutes: day.workedMinutes,
      });
    }
    if (rules.has('AVERAGE_OVER_8H')) {
      const total = windows.total(day.date, averageWindowDays.de);
      const allowed = 8 * 60 * windows.workdays(day.date, averageWindowDays.de);
      if (total > allowed) {
        found.push({
          date: day.date,
          rule: 'AVERAGE_OVER_8H',
          detail: `${hours(total)} in the 24 weeks up to this day; at most 8:00 h per working day (${hours(allowed)})`,
          minutes: total - allowed,
        });
      }
    }
    if (rules.has('WEEK_OVER_48H')) {
      const total = windows.total(day.date, averageWindowDays.eu);
      const allowed = 48 * 60 * (averageWindowDays.eu / 7);
      if (total > allowed) {
        found.push({
          date: day.date,
          rule: 'WEEK_OVER_48H',
          detail: `${hours(total)} in the 17 weeks up to this day; at most 48:00 h a week on average (${hours(allowed)})`,
          minutes: total - allowed,
        });
      }
    }
    violations.push(...found.filter((violation) => rules.has(violation.rule)));
  });
  return { days, violations };
}
