import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { instantOf } from './client.js';

/** What the reader must agree with: pg's own parser of timestamptz text. */
const byPg = pg.types.getTypeParser(pg.types.builtins.TIMESTAMPTZ, 'text') as (text: string) => Date;

/** `instant` as PostgreSQL prints a timestamptz in a session whose offset is `offsetSeconds` then (`+05:30`). */
function postgresText(instant: Date, offsetSeconds: number, fractionDigits = 3): string {
  const local = new Date(instant.getTime() + offsetSeconds * 1000).toISOString();
  // A space for the T, trailing zeros of the fraction dropped (and the point with them).
  const fraction = `${local.slice(20, 23)}${'0'.repeat(Math.max(0, fractionDigits - 3))}`.slice(0, fractionDigits).replace(/0+$/, '');
  const magnitude = Math.abs(offsetSeconds);
  const parts = [Math.floor(magnitude / 3600), Math.floor((magnitude % 3600) / 60), magnitude % 60].map((part) => String(part).padStart(2, '0'));
  const offset = parts[2] !== '00' ? parts.join(':') : parts[1] !== '00' ? parts.slice(0, 2).join(':') : parts[0];
  return `${local.slice(0, 10)} ${local.slice(11, 19)}${fraction ? `.${fraction}` : ''}${offsetSeconds < 0 ? '-' : '+'}${offset}`;
}

describe('instantOf', () => {
  it('reads timestamptz text as pg does, whatever the fraction and the offset', () => {
    const samples = [
      '2026-11-25 14:40:43+00',
      '2026-11-25 23:40:43.7+09',
      '2026-11-25 09:40:43.72-05',
      '2026-11-25 20:10:43.729+05:30',
      '2026-11-25 11:10:43.729123-03:30',
      '1890-01-01 00:53:28+00:53:28',
      '2024-02-29 23:59:59.999+14',
      '1970-01-01 00:00:00+00',
      '0100-01-01 00:00:00.5+00',
      '9999-12-31 23:59:59.999999-12',
    ];
    for (const text of samples) expect(instantOf(text).getTime(), text).toBe(byPg(text).getTime());
  });

  it('agrees with pg on ten thousand random instants in zones of whole hours, half hours and local mean time', () => {
    const offsets = [0, 9 * 3600, -4 * 3600, 5.5 * 3600, -(3.5 * 3600), 3208, -1521, 14 * 3600, -12 * 3600, 5.75 * 3600];
    for (let index = 0; index < 10_000; index++) {
      const instant = new Date(Math.floor(Math.random() * 8_000_000_000_000) - 2_000_000_000_000);
      const digits = 1 + (index % 6);
      const text = postgresText(instant, offsets[index % offsets.length] as number, digits);
      expect(instantOf(text).getTime(), text).toBe(byPg(text).getTime());
      if (digits >= 3) expect(instantOf(text).getTime(), text).toBe(instant.getTime());
    }
  });

  it('leaves what is not the plain form to pg: years before 100, BC, infinity', () => {
    for (const text of ['0050-06-01 12:00:00+00', '2026-11-25 14:40:43+00 BC', 'infinity', '-infinity', '12026-01-01 00:00:00+00']) {
      expect(instantOf(text), text).toEqual(byPg(text));
    }
    expect(instantOf('0050-06-01 12:00:00+00').getUTCFullYear()).toBe(50);
  });
});
