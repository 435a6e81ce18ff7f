import { describe, expect, it } from 'vitest';
import { Prisma } from '../../../generated/prisma/client.js';
import { allocate, baseQuantityOf, discountProblem, invoiceTotals, lineNet } from './client-invoice.money.js';

const d = (value: string | number) => new Prisma.Decimal(value);
const texts = (values: Prisma.Decimal[]) => values.map((value) => value.toFixed(2));

describe('invoice money', () => {
  it('shares a discount to the cent, the leftover cents to the largest remainders', () => {
    expect(texts(allocate(d('10.00'), [d('1'), d('1'), d('1')]))).toEqual(['3.34', '3.33', '3.33']);
    expect(texts(allocate(d('0.05'), [d('100'), d('1')]))).toEqual(['0.05', '0.00']);
    expect(texts(allocate(d('7.77'), [d('0'), d('5')]))).toEqual(['0.00', '7.77']);
  });

  it('taxes each (category, rate) group on its sum, half-up, not line by line', () => {
    // Three lines of 0.05 at 19 %: 0.01 each line by line (0.03), 0.03 on the sum (0.15 x 19 % = 0.0285).
    const line = { netAmount: d('0.05'), taxCategory: 'S' as const, taxRate: d('19') };
    const totals = invoiceTotals([line, line, line], null);
    expect(totals.taxes).toHaveLength(1);
    expect(totals.tax.toFixed(2)).toBe('0.03');
    // 0.50 at 7 %: 0.035 rounds half-up to 0.04.
    expect(invoiceTotals([{ netAmount: d('0.50'), taxCategory: 'S', taxRate: d('7') }], null).tax.toFixed(2)).toBe('0.04');
  });

  it('applies a percent discount before tax and keeps gross = basis + tax, due = gross - paid', () => {
    const totals = invoiceTotals(
      [
        { netAmount: d('100.00'), taxCategory: 'S', taxRate: d('19') },
        { netAmount: d('50.00'), taxCategory: 'AE', taxRate: d('0'), taxExemptionReason: 'Reverse charge' },
      ],
      { percent: d('10'), reason: 'Loyalty' },
      d('20.00'),
    );
    expect(texts([totals.lineNet, totals.allowances, totals.taxBasis, totals.tax, totals.gross, totals.due])).toEqual([
      '150.00',
      '15.00',
      '135.00',
      '17.10',
      '152.10',
      '132.10',
    ]);
    expect(totals.taxes.map((group) => [group.category, group.basis.toFixed(2), group.exemptionReason])).toEqual([
      ['S', '90.00', null],
      ['AE', '45.00', 'Reverse charge'],
    ]);
  });

  it('refuses a discount above the line nets, naming it', () => {
    expect(discountProblem(d('10.00'), { amount: d('10.01') })?.path).toBe('discount.amount');
    expect(discountProblem(d('10.00'), { amount: d('10.00') })).toBeNull();
  });

  it('rounds line nets half-up to cents, minutes at an hourly rate over a base quantity of 60', () => {
    expect(lineNet(d('3'), d('33.335')).toFixed(2)).toBe('100.01');
    expect(baseQuantityOf('MIN')).toBe(60);
    expect(baseQuantityOf('HUR')).toBe(1);
    // 95 minutes at 110.00 an hour: 174.1666... (as hours to 4 places, 1.5833 x 110.00 would be 174.16).
    expect(lineNet(d('95'), d('110.00'), 60).toFixed(2)).toBe('174.17');
    // Half a cent rounds up only when it is exactly half: 3 minutes at 0.10 is 0.005.
    expect(lineNet(d('3'), d('0.10'), 60).toFixed(2)).toBe('0.01');
    expect(lineNet(d('1'), d('0.01'), 60).toFixed(2)).toBe('0.00');
  });
});
