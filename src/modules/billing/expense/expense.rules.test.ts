import { describe, expect, it } from 'vitest';
import { billedNet, expenseStatusAfterEdit, expenseTransition, netAndTax, rateOf } from './expense.rules.js';
import { Prisma } from '../../../generated/prisma/client.js';

describe('expense money', () => {
  it('derives net by rounding and tax as the rest, at the currency scale', () => {
    expect(Object.values(netAndTax('119.00', '19', 2)).map(String)).toEqual(['100', '19']);
    expect(Object.values(netAndTax('10', '7', 2)).map(String)).toEqual(['9.35', '0.65']);
    expect(Object.values(netAndTax('1000', '10', 0)).map(String)).toEqual(['909', '91']);
    expect(Object.values(netAndTax('1.000', '5', 3)).map(String)).toEqual(['0.952', '0.048']);
  });

  it('bills net plus markup, half-up', () => {
    expect(billedNet('100.00', '10', 2).toFixed(2)).toBe('110.00');
    expect(billedNet('0.05', '10', 2).toFixed(2)).toBe('0.06');
    expect(billedNet('9.35', null, 2).toFixed(2)).toBe('9.35');
  });

  it('reads a rate from a received invoice', () => {
    expect(rateOf(new Prisma.Decimal('100'), new Prisma.Decimal('19'))?.toFixed(2)).toBe('19.00');
    expect(rateOf(null, new Prisma.Decimal('19'))).toBeNull();
  });
});

describe('expense steps', () => {
  it('submits drafts and rejected ones, reviews submitted ones', () => {
    expect(expenseTransition('draft', 'submit')).toBe('submitted');
    expect(expenseTransition('rejected', 'submit')).toBe('submitted');
    expect(expenseTransition('submitted', 'approve')).toBe('approved');
    expect(() => expenseTransition('draft', 'approve')).toThrow(/only submitted/);
    expect(() => expenseTransition('approved', 'reject')).toThrow(/only submitted/);
  });

  it('lets the owner change drafts and rejected ones, reviewers any', () => {
    expect(expenseStatusAfterEdit('rejected', false)).toBe('draft');
    expect(() => expenseStatusAfterEdit('submitted', false)).toThrow(/waits for review/);
    expect(() => expenseStatusAfterEdit('approved', false)).toThrow(/approved/);
    expect(expenseStatusAfterEdit('approved', true)).toBe('approved');
  });
});
