import { describe, expect, it } from 'vitest';
import { localDate, startOfDay, zonedInstant, isoTimestamp } from './time.js';

describe('dates in a time zone', () => {
  it('start a day at local midnight, in winter and in summer', () => {
    expect(startOfDay('2026-01-15', 'Europe/Berlin').toISOString()).toBe('2026-01-14T23:00:00.000Z');
    expect(startOfDay('2026-07-15', 'Europe/Berlin').toISOString()).toBe('2026-07-14T22:00:00.000Z');
    expect(startOfDay('2026-07-15', 'America/New_York').toISOString()).toBe('2026-07-15T04:00:00.000Z');
    expect(startOfDay('2026-07-15', 'UTC').toISOString()).toBe('2026-07-15T00:00:00.000Z');
    expect(startOfDay('2026-07-15', 'Asia/Kolkata').toISOString()).toBe('2026-07-14T18:30:00.000Z');
  });

  it('handle the days the clocks change', () => {
    // Berlin springs forward at 02:00 on 29 March 2026 and falls back at 03:00 on 25 October.
    expect(startOfDay('2026-03-29', 'Europe/Berlin').toISOString()).toBe('2026-03-28T23:00:00.000Z');
    expect(startOfDay('2026-03-30', 'Europe/Berlin').toISOString()).toBe('2026-03-29T22:00:00.000Z');
    expect(startOfDay('2026-10-26', 'Europe/Berlin').toISOString()).toBe('2026-10-25T23:00:00.000Z');
    // Santiago skips midnight when it springs forward (6 September 2026): the day starts at 01:00.
    expect(localDate(startOfDay('2026-09-06', 'America/Santiago'), 'America/Santiago')).toBe('2026-09-06');
  });

  it('name the local date of an instant', () => {
    expect(localDate(new Date('2026-01-14T23:30:00Z'), 'Europe/Berlin')).toBe('2026-01-15');
    expect(localDate(new Date('2026-01-14T23:30:00Z'), 'UTC')).toBe('2026-01-14');
  });

  it('read a local wall-clock time as an instant, across the clock changes', () => {
    const at = (date: string, hours: number, minutes: number, zone = 'Europe/Berlin') => zonedInstant(date, hours * 3600 + minutes * 60, zone).toISOString();
    expect(at('2026-03-04', 23, 30)).toBe('2026-03-04T22:30:00.000Z');
    expect(at('2026-07-04', 23, 30)).toBe('2026-07-04T21:30:00.000Z');
    expect(at('2026-03-29', 1, 59)).toBe('2026-03-29T00:59:00.000Z');
    // 02:30 does not exist on 29 March in Berlin: read with the winter offset, it is 03:30 summer time.
    expect(at('2026-03-29', 2, 30)).toBe('2026-03-29T01:30:00.000Z');
    expect(at('2026-03-29', 3, 0)).toBe('2026-03-29T01:00:00.000Z');
    // 02:30 happens twice on 25 October: the first one (summer time).
    expect(at('2026-10-25', 2, 30)).toBe('2026-10-25T00:30:00.000Z');
    expect(at('2026-10-25', 3, 30)).toBe('2026-10-25T02:30:00.000Z');
    expect(at('2026-07-15', 0, 0, 'America/New_York')).toBe(startOfDay('2026-07-15', 'America/New_York').toISOString());
    expect(at('2026-01-15', 9, 15, 'Asia/Kolkata')).toBe('2026-01-15T03:45:00.000Z');
  });
});

describe('isoTimestamp', () => {
  it('prints what toISOString prints: the edges of years, months, leap days and the range it handles itself', () => {
    for (const text of [
      '1970-01-01T00:00:00.000Z',
      '1969-12-31T23:59:59.999Z',
      '2024-02-29T12:34:56.789Z',
      '2100-02-28T23:59:59.999Z',
      '2100-03-01T00:00:00.000Z',
      '2000-02-29T00:00:00.001Z',
      '0000-01-01T00:00:00.000Z',
      '0001-03-01T00:00:00.000Z',
      '9999-12-31T23:59:59.999Z',
      '1582-10-15T01:02:03.004Z',
    ]) {
      expect(isoTimestamp(new Date(text))).toBe(text);
    }
  });

  it('agrees with toISOString on a hundred thousand random instants, and outside years 0000 to 9999', () => {
    for (let index = 0; index < 100_000; index++) {
      const instant = new Date(Math.floor(Math.random() * 320_000_000_000_000) - 62_167_219_200_000);
      expect(isoTimestamp(instant)).toBe(instant.toISOString());
    }
    for (const text of ['-000001-12-31T23:59:59.999Z', '+010000-01-01T00:00:00.000Z', '+275760-09-13T00:00:00.000Z']) {
      expect(isoTimestamp(new Date(text))).toBe(text);
    }
    expect(() => isoTimestamp(new Date(Number.NaN))).toThrow(RangeError);
  });
});

describe('localDate by the cached offset', () => {
  it('is the date Intl prints, every 37 minutes through the clock changes of a year, in zones of whole, half and quarter hours', () => {
    for (const zone of ['Europe/Berlin', 'America/Santiago', 'Australia/Lord_Howe', 'Asia/Kathmandu', 'Pacific/Chatham', 'UTC']) {
      const intl = new Intl.DateTimeFormat('en-CA', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit' });
      for (let time = Date.UTC(2027, 0, 1); time < Date.UTC(2028, 0, 1); time += 37 * 60_000) {
        const instant = new Date(time);
        const local = localDate(instant, zone);
        if (local !== intl.format(instant)) expect(local, `${instant.toISOString()} in ${zone}`).toBe(intl.format(instant));
      }
    }
    // An invalid instant is refused as Intl refuses it.
    expect(() => localDate(new Date(Number.NaN), 'UTC')).toThrow(RangeError);
  });
});
