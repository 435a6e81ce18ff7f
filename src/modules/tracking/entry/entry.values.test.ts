/**
 * The entry values of every writer (entry.values.ts), checked against
 * independent arithmetic: amounts in integer cents with BigInt, durations in
 * whole seconds. Thousands of generated cases here; test/entry-values.test.ts
 * sends tens of them through the API, an import and the seed's writer.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Prisma } from '../../../generated/prisma/client.js';
import { amountOf, copiedRates, durationMinutes, entryTags, entryValues, spanProblem, textWithinLimits, type RateSources } from './entry.values.js';

const Decimal = Prisma.Decimal;
const at = (time: string) => new Date(`2026-03-02T${time}Z`);

/** `minutes` at `cents` per hour in cents, half-up, in integers: the amount as a person would work it out. */
const exactCents = (minutes: number, cents: bigint): bigint => (2n * BigInt(minutes) * cents + 60n) / 120n;
const centsText = (cents: bigint): string => `${cents / 100n}.${String(cents % 100n).padStart(2, '0')}`;
const rateOf = (cents: bigint) => new Decimal(centsText(cents));

const cents = fc.bigInt({ min: 0n, max: 10_000_000n });
const minutes = fc.integer({ min: 0, max: 100_000 });

describe('amounts', () => {
  it('are minutes / 60 x rate, rounded half-up to cents, exactly', () => {
    fc.assert(
      fc.property(minutes, cents, (worked, rate) => {
        expect(amountOf(worked, rateOf(rate)).toFixed(2)).toBe(centsText(exactCents(worked, rate)));
      }),
      { numRuns: 5000 },
    );
  });

  it('round the edges half-up: 7 minutes at 100.00 is 11.67, a half cent is a cent', () => {
    expect(amountOf(7, new Decimal('100.00')).toFixed(2)).toBe('11.67');
    expect(amountOf(1, new Decimal('0.30')).toFixed(2)).toBe('0.01');
    // 2 minutes at 1.65 is 0.055 exactly: divided before multiplied (2 / 60 = 0.0333...), it came to 0.05499... and 0.05.
    expect(amountOf(2, new Decimal('1.65')).toFixed(2)).toBe('0.06');
    expect(amountOf(0, new Decimal('100.00')).toFixed(2)).toBe('0.00');
  });
});

describe('durations', () => {
  it('are the span minus the break, in minutes', () => {
    expect(durationMinutes(at('09:00:00'), at('17:00:00'), 30, 0)).toBe(450);
    expect(durationMinutes(at('09:00:00'), at('09:00:00'), 0, 0)).toBe(0);
  });

  it("round to the nearest multiple of the tenant's rounding, half up", () => {
    expect(durationMinutes(at('09:00:00'), at('09:07:00'), 0, 15)).toBe(0);
    expect(durationMinutes(at('09:00:00'), at('09:08:00'), 0, 15)).toBe(15);
    expect(durationMinutes(at('09:00:00'), at('10:22:00'), 0, 15)).toBe(75);
    expect(durationMinutes(at('09:00:00'), at('10:23:00'), 0, 15)).toBe(90);
    expect(durationMinutes(at('09:00:00'), at('09:10:29'), 0, 0)).toBe(10);
    expect(durationMinutes(at('09:00:00'), at('09:10:30'), 0, 0)).toBe(11);
  });

  it('never go below zero', () => {
    expect(durationMinutes(at('09:00:00'), at('09:20:00'), 60, 0)).toBe(0);
  });

  it('count the hours that pass, not the clock: the night the clocks go back in Berlin is an hour longer', () => {
    // 01:30 CEST to 03:30 CET on 2026-10-25: two hours on the clock, three worked.
    expect(durationMinutes(new Date('2026-10-25T01:30:00+02:00'), new Date('2026-10-25T03:30:00+01:00'), 0, 0)).toBe(180);
  });

  it('are within half a step of the worked time, in whole steps, for any span, break and rounding', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 3 * 86_400 }),
        fc.integer({ min: 0, max: 1440 }),
        fc.constantFrom(0, 1, 5, 6, 10, 15, 30, 60),
        (seconds, breakMinutes, rounding) => {
          const start = at('09:00:00');
          const result = durationMinutes(start, new Date(start.getTime() + seconds * 1000), breakMinutes, rounding);
          const worked = Math.max(0, seconds / 60 - breakMinutes);
          const step = rounding || 1;
          expect(result % step).toBe(0);
          expect(result).toBeGreaterThanOrEqual(0);
          expect(Math.abs(result - worked)).toBeLessThanOrEqual(step / 2);
        },
      ),
      { numRuns: 3000 },
    );
  });
});

describe('the span rules', () => {
  it('refuse what is no entry, and call 0 minutes of work zero length', () => {
    expect(spanProblem(at('09:00:00'), at('08:59:00'), 0)).toMatchObject({ path: 'endedAt', zeroLength: false });
    expect(spanProblem(at('09:00:00'), at('09:00:00'), 0)).toMatchObject({ path: 'endedAt', zeroLength: true });
    expect(spanProblem(at('09:00:00'), at('09:00:29'), 0)).toMatchObject({ path: 'endedAt', zeroLength: true });
    expect(spanProblem(at('09:00:00'), at('09:00:30'), 0)).toBeNull();
    expect(spanProblem(at('09:00:00'), at('09:30:00'), 30)).toMatchObject({ path: 'breakMinutes', zeroLength: false });
    expect(spanProblem(at('09:00:00'), at('09:30:20'), 30)).toMatchObject({ path: 'endedAt', zeroLength: true });
  });

  it('let through exactly the spans of at least one worked minute', () => {
    fc.assert(
      fc.property(fc.integer({ min: -600, max: 86_400 }), fc.integer({ min: 0, max: 1440 }), (seconds, breakMinutes) => {
        const start = at('09:00:00');
        const end = new Date(start.getTime() + seconds * 1000);
        const problem = spanProblem(start, end, breakMinutes);
        expect(problem === null).toBe(seconds > 0 && breakMinutes * 60 < seconds && durationMinutes(start, end, breakMinutes, 0) >= 1);
        if (problem?.zeroLength) expect(durationMinutes(start, end, breakMinutes, 0)).toBe(0);
      }),
      { numRuns: 3000 },
    );
  });
});

const maybeRate = fc.option(
  cents.map((value) => rateOf(value)),
  { nil: null },
);
const sources = fc.record({
  memberRate: maybeRate,
  projectRate: maybeRate,
  clientRate: maybeRate,
  ownRate: maybeRate,
  costRate: maybeRate,
  currency: fc.constantFrom(null, 'USD', 'CHF'),
});

describe('rates', () => {
  it('are the first set of project member, project, client, member, tenant default; the cost rate the member’s', () => {
    fc.assert(
      fc.property(sources, fc.option(fc.constantFrom('75', '80.5', '99.999'), { nil: null }), (found: RateSources, defaultHourlyRate) => {
        const rates = copiedRates(found, { defaultHourlyRate, currency: 'EUR' });
        const first = [found.memberRate, found.projectRate, found.clientRate, found.ownRate].find((rate) => rate !== null);
        const expected = first ?? (defaultHourlyRate === null ? null : new Decimal(defaultHourlyRate));
        expect(rates.hourlyRate?.toFixed(2) ?? null).toBe(expected?.toDecimalPlaces(2, Decimal.ROUND_HALF_UP).toFixed(2) ?? null);
        expect(rates.costRate?.toFixed(2) ?? null).toBe(found.costRate?.toFixed(2) ?? null);
        expect(rates.currency).toBe(found.currency ?? 'EUR');
      }),
      { numRuns: 2000 },
    );
  });

  it('are kept in cents, as their columns keep them, so that the amount is the stored rate’s', () => {
    const rates = copiedRates(undefined, { defaultHourlyRate: '99.995', currency: 'EUR' });
    expect(rates.hourlyRate?.toFixed(2)).toBe('100.00');
    expect(
      entryValues({ startedAt: at('09:00:00'), endedAt: at('10:00:00'), breakMinutes: 0, roundingMinutes: 0, billable: true, rates }).billableAmount?.toFixed(
        2,
      ),
    ).toBe('100.00');
  });
});

describe('an entry’s values', () => {
  const rates = { hourlyRate: new Decimal('100'), costRate: new Decimal('40'), currency: 'EUR' };
  const span = { startedAt: at('09:00:00'), endedAt: at('10:30:00'), breakMinutes: 0, roundingMinutes: 0 };

  it('have no minutes or amounts while the timer runs', () => {
    expect(entryValues({ ...span, endedAt: null, billable: true, rates })).toMatchObject({ durationMinutes: null, billableAmount: null, costAmount: null });
  });

  it('bill nothing for non-billable time, and leave an amount unknown without a rate', () => {
    const values = entryValues({ ...span, billable: false, rates });
    expect([values.billableAmount?.toFixed(2), values.costAmount?.toFixed(2)]).toEqual(['0.00', '60.00']);
    expect(entryValues({ ...span, billable: true, rates: { ...rates, hourlyRate: null, costRate: null } })).toMatchObject({
      billableAmount: null,
      costAmount: null,
    });
  });

  it('of an import keep the file’s rate and amount; an amount without a rate implies the rate', () => {
    const recorded = (hourlyRate: string | null, billableAmount: string | null, costRate: string | null = null) => ({
      hourlyRate: hourlyRate === null ? null : new Decimal(hourlyRate),
      billableAmount: billableAmount === null ? null : new Decimal(billableAmount),
      costRate: costRate === null ? null : new Decimal(costRate),
    });
    const own = entryValues({ ...span, billable: true, rates, recorded: recorded('120', '200', '50') });
    expect([own.hourlyRate, own.billableAmount, own.costRate, own.costAmount].map((value) => value?.toFixed(2))).toEqual([
      '120.00',
      '200.00',
      '50.00',
      '75.00',
    ]);
    // Toggl: 90 minutes for 100.00 is 66.67 an hour; the amount stays as written.
    const toggl = entryValues({ ...span, billable: true, rates, recorded: recorded(null, '100') });
    expect([toggl.hourlyRate?.toFixed(2), toggl.billableAmount?.toFixed(2)]).toEqual(['66.67', '100.00']);
    const modelled = entryValues({ ...span, billable: true, rates, recorded: recorded(null, null) });
    expect([modelled.hourlyRate?.toFixed(2), modelled.billableAmount?.toFixed(2)]).toEqual(['100.00', '150.00']);
    expect(entryValues({ ...span, billable: false, rates, recorded: recorded('120', '200') }).billableAmount?.toFixed(2)).toBe('0.00');
  });
});

describe('text', () => {
  it('keeps tags trimmed, in lower case, each once; a description trimmed, empty as none', () => {
    expect(entryTags([' Design', 'design', 'UI ', '', '  '])).toEqual(['design', 'ui']);
    expect(textWithinLimits('   ', [])).toEqual({ description: null, tags: [] });
  });

  it('cuts what an import brings to the limits the API refuses beyond', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 6000 }), fc.array(fc.string({ maxLength: 80 }), { maxLength: 40 }), (description, tags) => {
        const kept = textWithinLimits(description, tags);
        expect((kept.description ?? '').length).toBeLessThanOrEqual(5000);
        expect(kept.description).not.toBe('');
        expect(kept.tags.length).toBeLessThanOrEqual(20);
        for (const tag of kept.tags) expect(tag.length).toBeGreaterThan(0);
        expect(new Set(kept.tags).size).toBe(kept.tags.length);
        expect(entryTags(kept.tags)).toEqual(kept.tags);
      }),
      { numRuns: 500 },
    );
  });
});
