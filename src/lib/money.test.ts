import { Prisma } from '../generated/prisma/client.js';
import { describe, expect, it } from 'vitest';
import { getDatamodel } from '../generated/pothos-prisma-types.js';
import { decimalColumns, decimalJson, fixedDecimal, minorUnitsOf, moneyScaleErrors, moneyText, percentText, priceText, significantDecimals } from './money.js';

describe('money at its scale', () => {
  it('knows each currency’s minor units from ISO 4217, not from ICU’s display habits', () => {
    expect([minorUnitsOf('EUR'), minorUnitsOf('JPY'), minorUnitsOf('KWD'), minorUnitsOf(null), minorUnitsOf('XXX1')]).toEqual([2, 0, 3, 2, 2]);
    // ICU prints these with no decimals; ISO 4217 gives them two (HUF, IDR) and three (IQD).
    expect([minorUnitsOf('HUF'), minorUnitsOf('IDR'), minorUnitsOf('IQD'), minorUnitsOf('BHD'), minorUnitsOf('CLP')]).toEqual([2, 2, 3, 3, 0]);
    // A code newer than the ISO data (the Caribbean guilder) falls back to ICU's.
    expect(minorUnitsOf('XCG')).toBe(2);
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

  it('prints money, prices and percents from Prisma decimals as their currency has them', () => {
    const d = (text: string) => new Prisma.Decimal(text);
    expect([moneyText(d('155.2'), 'EUR'), moneyText(d('0'), 'EUR'), moneyText(d('1000'), 'JPY'), moneyText(d('1.25'), 'KWD')]).toEqual([
      '155.20',
      '0.00',
      '1000',
      '1.250',
    ]);
    expect([priceText(d('0.0125'), 'EUR'), priceText(d('12.5'), 'EUR'), priceText('12.500000', 'EUR')]).toEqual(['0.0125', '12.50', '12.50']);
    expect([percentText(d('19')), percentText(d('7.5')), percentText('0')]).toEqual(['19.00', '7.50', '0.00']);
  });

  it('refuses inputs with more decimals than their currency, counting no trailing zeros', () => {
    expect(significantDecimals('100.00')).toBe(0);
    expect(significantDecimals('10.010')).toBe(2);
    expect(moneyScaleErrors('EUR', { amount: '10.005', price: '10.01', none: undefined, cleared: null })).toEqual([
      { path: 'amount', message: 'must have at most 2 decimals (EUR)' },
    ]);
    expect(moneyScaleErrors('JPY', { hourlyRate: '85.5', budget: '1000.00' })).toEqual([
      { path: 'hourlyRate', message: 'must be a whole amount: JPY has no minor unit' },
    ]);
    expect(moneyScaleErrors('KWD', { amount: '1.125' })).toEqual([]);
  });

  it('knows what every Decimal column of the database holds, so that records written without GraphQL print it right', () => {
    const decimals = Object.entries(getDatamodel().datamodel.models).flatMap(([model, { fields }]) =>
      fields.filter((field) => field.type === 'Decimal').map((field) => `${model}.${field.name}`),
    );
    expect(decimals.length).toBeGreaterThan(20);
    expect(decimals.filter((column) => decimalColumns[column.split('.')[1] as string] === undefined)).toEqual([]);
    const d = (text: string) => new Prisma.Decimal(text);
    expect([decimalJson('billableAmount', d('85.5'), 'EUR'), decimalJson('taxRate', d('19'), 'EUR'), decimalJson('distanceKm', d('12.5'), 'EUR')]).toEqual([
      '85.50',
      '19.00',
      '12.5',
    ]);
    expect([decimalJson('hourlyRate', d('1000'), 'JPY'), decimalJson('unitPrice', d('0.0125'), 'EUR')]).toEqual(['1000', '0.0125']);
  });
});
