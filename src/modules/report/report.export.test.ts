import { describe, expect, it } from 'vitest';
import { fixedDecimal, minorUnitsOf } from './report.export.js';

describe('money in files', () => {
  it('knows each currency’s minor units from ICU', () => {
    expect([minorUnitsOf('EUR'), minorUnitsOf('JPY'), minorUnitsOf('KWD'), minorUnitsOf(null), minorUnitsOf('XXX1')]).toEqual([2, 0, 3, 2, 2]);
  });

  it('writes exactly that many decimals, rounding half away from zero, exactly', () => {
    const cases: [string, number, string][] = [
      ['205.5', 2, '205.50'],
      ['411', 2, '411.00'],
      ['0', 2, '0.00'],
      ['12.34', 2, '12.34'],
      ['1116.67', 0, '1117'],
      ['1116.49', 0, '1116'],
      ['0.5', 0, '1'],
      ['-0.4', 0, '0'],
      ['-2.5', 0, '-3'],
      ['13.96', 3, '13.960'],
      ['99999999999999.995', 2, '100000000000000.00'],
    ];
    for (const [value, digits, text] of cases) expect(fixedDecimal(value, digits), `${value} with ${digits}`).toBe(text);
  });
});
