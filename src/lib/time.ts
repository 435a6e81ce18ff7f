/**
 * Calendar dates in a tenant's time zone, with the platform's Intl data only.
 * A date filter (`from=2026-03-29`) means midnight in the tenant's zone, and
 * a lock (`lockedUntil`) covers entries whose start falls on or before that
 * date there.
 */

const formatters = new Map<string, Intl.DateTimeFormat>();

function partsFormatter(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

function wallClock(instant: Date, timeZone: string): { year: number; month: number; day: number; hour: number; minute: number; second: number } {
  const parts = Object.fromEntries(
    partsFormatter(timeZone)
      .formatToParts(instant)
      .map((part) => [part.type, part.value]),
  );
  return {
    year: Number(parts.year),
    month: Number(parts.month),
    day: Number(parts.day),
    hour: Number(parts.hour),
    minute: Number(parts.minute),
    second: Number(parts.second),
  };
}

/**
 * Offsets by zone and quarter hour: a zone's offset only changes on a
 * quarter hour (every transition in the tz database does), and reading
 * one through Intl costs microseconds that an import of 10,000 rows pays
 * tens of thousands of times.
 */
const offsets = new Map<string, number>();
const quarterHourMs = 15 * 60_000;

/** How far the zone's wall clock is ahead of UTC at `instant`, in milliseconds. */
function offsetAt(instant: Date, timeZone: string): number {
  const key = `${timeZone} ${Math.floor(instant.getTime() / quarterHourMs)}`;
  const known = offsets.get(key);
  if (known !== undefined) return known;
  const clock = wallClock(instant, timeZone);
  const asUtc = Date.UTC(clock.year, clock.month - 1, clock.day, clock.hour, clock.minute, clock.second);
  const offset = asUtc - Math.floor(instant.getTime() / 1000) * 1000;
  if (offsets.size >= 200_000) offsets.clear();
  offsets.set(key, offset);
  return offset;
}

/**
 * The calendar date (`YYYY-MM-DD`) of `instant` in `timeZone`: the UTC date of
 * the instant moved by the zone's offset, which is cached by quarter hour
 * (the working-time rules ask for the day of every entry of a year; one
 * `formatToParts` each was most of their time: docs/performance.md).
 */
export function localDate(instant: Date, timeZone: string): string {
  const time = instant.getTime();
  const shifted = Number.isFinite(time) ? time + offsetAt(instant, timeZone) : Number.NaN;
  // Four-digit years only (isoTimestamp's range); others, and invalid dates, as Intl prints them.
  if (!(shifted >= yearZero + dayMs && shifted < yearTenThousand - dayMs)) {
    const { year, month, day } = wallClock(instant, timeZone);
    return `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
  }
  return isoTimestamp(new Date(shifted)).slice(0, 10);
}

/**
 * The instant the day `date` (`YYYY-MM-DD`) begins in `timeZone`. Where the
 * clocks skip midnight (a DST change at 00:00), the first instant of the day.
 */
export function startOfDay(date: string, timeZone: string): Date {
  const [year, month, day] = date.split('-').map(Number) as [number, number, number];
  const naive = Date.UTC(year, month - 1, day);
  let instant = naive - offsetAt(new Date(naive), timeZone);
  // The offset at the guess may differ from the offset at the answer (a change that day): settle it.
  instant = naive - offsetAt(new Date(instant), timeZone);
  if (localDate(new Date(instant), timeZone) !== date) instant += 60 * 60 * 1000;
  return new Date(instant);
}

/**
 * The instant a wall clock in `timeZone` shows `date` (`YYYY-MM-DD`) and
 * `seconds` past its midnight (a file's local "2026-03-04 23:30"). A time
 * the clocks skip (02:30 when they spring forward) is read with the offset
 * before the change, so it lands just after it; a time they repeat (02:30
 * when they fall back) is its first occurrence.
 */
export function zonedInstant(date: string, seconds: number, timeZone: string): Date {
  const [year, month, day] = date.split('-').map(Number) as [number, number, number];
  const naive = Date.UTC(year, month - 1, day) + seconds * 1000;
  // The offset an hour before is the one the clock showed before any change near this time.
  const before = naive - offsetAt(new Date(naive - 3_600_000 - offsetAt(new Date(naive), timeZone)), timeZone);
  const after = naive - offsetAt(new Date(before), timeZone);
  return new Date(offsetAt(new Date(after), timeZone) === naive - after ? Math.min(before, after) : before);
}

/**
 * Zones already asked about. Learning whether a zone exists builds a DateTimeFormat (tens of microseconds),
 * and every report and entry write asks about the tenant's own. Bounded: clients may send any text.
 */
const knownZones = new Map<string, boolean>();

/** An IANA time zone this runtime knows (`Europe/Berlin`). */
export function isTimeZone(value: string): boolean {
  const known = knownZones.get(value);
  if (known !== undefined) return known;
  let valid: boolean;
  try {
    new Intl.DateTimeFormat('en', { timeZone: value });
    valid = true;
  } catch {
    valid = false;
  }
  if (knownZones.size >= 1000) knownZones.clear();
  knownZones.set(value, valid);
  return valid;
}

const twoDigits = Array.from({ length: 100 }, (_, value) => String(value).padStart(2, '0'));
const threeDigits = Array.from({ length: 1000 }, (_, value) => String(value).padStart(3, '0'));
const dayMs = 86_400_000;
/** The first instants of the years 0000 and 10000: between them an ISO timestamp has four year digits. */
const yearZero = -62_167_219_200_000;
const yearTenThousand = 253_402_300_800_000;

/**
 * `date.toISOString()`, by arithmetic: every timestamp of every list is
 * printed, and V8's own took several times as long (a tenth of a GraphQL
 * list's CPU; figures: docs/performance.md). The calendar date is Howard
 * Hinnant's days-to-civil algorithm
 * (https://howardhinnant.github.io/date_algorithms.html#civil_from_days).
 * Years outside 0000-9999, and invalid dates, go to toISOString (which
 * prints six-digit years, or throws).
 */
export function isoTimestamp(date: Date): string {
  const time = date.getTime();
  if (!(time >= yearZero && time < yearTenThousand)) return date.toISOString();
  const days = Math.floor(time / dayMs);
  let rest = time - days * dayMs;
  const shifted = days + 719_468;
  const era = Math.floor(shifted / 146_097);
  const dayOfEra = shifted - era * 146_097;
  const yearOfEra = Math.floor((dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36_524) - Math.floor(dayOfEra / 146_096)) / 365);
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const monthFromMarch = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * monthFromMarch + 2) / 5) + 1;
  const month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9;
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
  const hours = Math.floor(rest / 3_600_000);
  rest -= hours * 3_600_000;
  const minutes = Math.floor(rest / 60_000);
  rest -= minutes * 60_000;
  const seconds = Math.floor(rest / 1000);
  rest -= seconds * 1000;
  return `${twoDigits[Math.floor(year / 100)]}${twoDigits[year % 100]}-${twoDigits[month]}-${twoDigits[day]}T${twoDigits[hours]}:${twoDigits[minutes]}:${twoDigits[seconds]}.${threeDigits[rest]}Z`;
}
