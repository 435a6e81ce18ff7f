/**
 * Reading one cell of an import file: dates, times, durations, numbers in
 * either decimal convention, yes/no, tags and text. A cell that cannot be
 * read throws RowError: its row fails with that message, the others go on.
 */

/** A row's problem: the row fails with this message. */
export class RowError extends Error {}

const yesNo: Record<string, boolean> = { yes: true, no: false, true: true, false: false, '1': true, '0': false };

function isRealDate(year: number, month: number, day: number): boolean {
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

const isoDateOf = (year: number, month: number, day: number): string =>
  `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;

/** `YYYY-MM-DD`, a real day. */
export function isoDate(value: string, column: string): string {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value.trim());
  if (!match || !isRealDate(Number(match[1]), Number(match[2]), Number(match[3]))) {
    throw new RowError(`${column} "${value}" is not a date (YYYY-MM-DD)`);
  }
  return value.trim();
}

/** Clockify's `MM/DD/YYYY` (a first number over 12 is a DD/MM export, which Tally cannot tell apart safely). */
export function usDate(value: string, column: string): string {
  const match = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/.exec(value.trim());
  const [month, day, year] = match ? [Number(match[1]), Number(match[2]), Number(match[3])] : [0, 0, 0];
  if (!match || !isRealDate(year, month, day)) {
    throw new RowError(`${column} "${value}" is not a date (MM/DD/YYYY: export with the English date format)`);
  }
  return isoDateOf(year, month, day);
}

/** `H:MM` or `HH:MM:SS`, 24-hour, as seconds past midnight. */
export function time24(value: string, column: string): number {
  const match = /^(\d{1,2}):(\d{2})(?::(\d{2}))?$/.exec(value.trim());
  const [hours, minutes, seconds] = match ? [Number(match[1]), Number(match[2]), Number(match[3] ?? 0)] : [99, 0, 0];
  if (!match || hours > 23 || minutes > 59 || seconds > 59) throw new RowError(`${column} "${value}" is not a time (HH:MM or HH:MM:SS, 24-hour)`);
  return hours * 3600 + minutes * 60 + seconds;
}

/** `hh:mm AM` or `hh:mm:ss PM` (12 AM is just after midnight, 12 PM just after noon). */
export function time12(value: string, column: string): number {
  const match = /^(\d{1,2}):(\d{2})(?::(\d{2}))?\s*([AaPp][Mm])$/.exec(value.trim());
  const [hours, minutes, seconds] = match ? [Number(match[1]), Number(match[2]), Number(match[3] ?? 0)] : [99, 0, 0];
  if (!match || hours < 1 || hours > 12 || minutes > 59 || seconds > 59) throw new RowError(`${column} "${value}" is not a time (hh:mm AM or hh:mm:ss PM)`);
  const afternoon = (match[4] as string).toUpperCase() === 'PM';
  return ((hours % 12) + (afternoon ? 12 : 0)) * 3600 + minutes * 60 + seconds;
}

/**
 * A number as a decimal string, in either convention: with both `.` and `,`
 * the last one is the decimal mark (`2.000,0`, `1,020.50`); a lone `,` is
 * one (`1,5`, Harvest's decimal comma) unless it groups thousands (`1,000,000`).
 */
export function decimalOf(value: string): string | null {
  let text = value.trim().replace(/[\s\u00a0']/g, '');
  if (text === '') return null;
  const comma = text.lastIndexOf(',');
  const dot = text.lastIndexOf('.');
  if (comma >= 0 && dot >= 0) text = comma > dot ? text.replace(/\./g, '').replace(',', '.') : text.replace(/,/g, '');
  else if (comma >= 0) text = (text.match(/,/g) ?? []).length > 1 ? text.replace(/,/g, '') : text.replace(',', '.');
  return /^-?\d+(\.\d+)?$/.test(text) ? text : null;
}

/** A duration: `H:MM` or `H:MM:SS`, or decimal hours; in seconds. */
export function durationSeconds(value: string, column: string): number {
  const clock = /^(\d+):(\d{2})(?::(\d{2}))?$/.exec(value.trim());
  if (clock) return Number(clock[1]) * 3600 + Number(clock[2]) * 60 + Number(clock[3] ?? 0);
  const hours = decimalOf(value);
  if (hours === null || Number(hours) < 0) throw new RowError(`${column} "${value}" is not a duration (H:MM, H:MM:SS or decimal hours)`);
  return Math.round(Number(hours) * 3600);
}

export function billableOf(value: string | undefined, column: string): boolean | null {
  if (value === undefined || value.trim() === '') return null;
  const known = yesNo[value.trim().toLowerCase()];
  if (known === undefined) throw new RowError(`${column} "${value}" is not one of Yes, No, true, false, 1, 0`);
  return known;
}

export const tagsOf = (value: string | undefined): string[] => [
  ...new Set(
    (value ?? '')
      .split(',')
      .map((tag) => tag.trim())
      .filter((tag) => tag !== ''),
  ),
];

export const textOf = (value: string | undefined): string | null => {
  const trimmed = value?.trim() ?? '';
  return trimmed === '' ? null : trimmed;
};

/**
 * Kimai writes `' ` before a text a spreadsheet would run as a formula (one
 * starting with `=`, `-`, `@`, `+`, a tab or a line break, or holding "DDE"):
 * the text is what follows. A `' ` Kimai would not have added stays.
 */
export const withoutFormulaGuard = (value: string): string => {
  if (!value.startsWith("' ")) return value;
  const text = value.slice(2);
  return /^[=\-@+\t\r\n]/.test(text) || /dde/i.test(text) ? text : value;
};

/** A break inside the span: whole minutes, 0 to 1440 as the API takes them; an empty cell is none. */
export function breakMinutesOf(value: string | undefined, column: string): number {
  const text = value?.trim() ?? '';
  if (text === '') return 0;
  if (!/^\d{1,4}$/.test(text) || Number(text) > 1440) throw new RowError(`${column} "${value}" is not a break in whole minutes (0 to 1440)`);
  return Number(text);
}
