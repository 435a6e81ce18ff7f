import { describe, expect, it } from 'vitest';
import { utcTimestampOf } from './client.js';

/** What the reader must agree with: Date's own parser of the same text as ISO 8601 in UTC. */
const byDateParser = (text: string): Date => new Date(`${text.replace(' ', 'T')}Z`);

describe('utcTimestampOf', () => {
  it('reads timestamp text as Date does, whatever the fraction', () => {
    const samples = [
      '2026-11-25 14:40:43',
      '2026-11-25 14:40:43.7',
      '2026-11-25 14:40:43.72',
      '2026-11-25 14:40:43.729',
      '2026-11-25 14:40:43.729123',
      '2024-02-29 23:59:59.999',
      '1970-01-01 00:00:00',
      '0100-01-01 00:00:00.5',
      '9999-12-31 23:59:59.999999',
    ];
    for (const text of samples) expect(utcTimestampOf(text).getTime(), text).toBe(byDateParser(text).getTime());
  });

  it('agrees with Date on ten thousand random instants', () => {
    for (let index = 0; index < 10_000; index++) {
      const instant = new Date(Math.floor(Math.random() * 8_000_000_000_000) - 2_000_000_000_000);
      const iso = instant.toISOString();
      // PostgreSQL's text: a space for the T, no zone, trailing zeros of the fraction dropped.
      const text = iso
        .slice(0, 23)
        .replace('T', ' ')
        .replace(/\.?0+$/, '');
      expect(utcTimestampOf(text).getTime(), text).toBe(instant.getTime());
    }
  });

  it('leaves what is not the plain form to Date: years before 100, BC, infinity', () => {
    expect(utcTimestampOf('0050-06-01 12:00:00').getTime()).toBe(byDateParser('0050-06-01 12:00:00').getTime());
    expect(utcTimestampOf('0050-06-01 12:00:00').getUTCFullYear()).toBe(50);
    expect(Number.isNaN(utcTimestampOf('infinity').getTime())).toBe(true);
    expect(Number.isNaN(utcTimestampOf('2026-11-25 14:40:43 BC').getTime())).toBe(Number.isNaN(byDateParser('2026-11-25 14:40:43 BC').getTime()));
  });
});
