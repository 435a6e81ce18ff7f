/**
 * An entry's values, computed here and nowhere else: its text and tags as
 * kept, its worked minutes, the rates it copies, and its amounts. Every
 * writer calls this module: the entry service (REST and GraphQL), imports
 * (import.batch.ts) and `tally seed`; the bulk writers keep their bulk
 * INSERTs but not their own arithmetic. Invoices are sums of these amounts.
 *
 * The rules (CONTRACT.md section 8, README "Time entries" and "Imports"):
 * - Worked minutes are the span minus the break, rounded to the nearest
 *   multiple of the tenant's `roundingMinutes` (0: the nearest minute, 30 s
 *   up). Imports keep the file's own minutes: they round to the minute only.
 * - An entry is worked time: one whose span minus break is under half a
 *   minute (0 minutes) is no entry. The API refuses it (400), an import
 *   skips its row ("zero length"), the seed makes none (`spanProblem`).
 * - The billable rate is the first set of: project member, project, client,
 *   member, tenant default; the cost rate is the member's; the currency the
 *   client's, else the tenant's. Rates are kept at the currency's minor units
 *   (EUR cents, whole JPY, KWD fils), half-up: a member's rate of 85.50 on a
 *   client in JPY is copied as 86 (docs/decisions.md).
 * - Amounts are minutes / 60 x rate, rounded half-up to the currency's minor
 *   units, in decimals (never floating point); the billable amount is 0 for non-billable time
 *   and unknown without a rate; a running timer has none.
 * - An import's file wins where it says something itself: its rate, its
 *   amount (kept as written), its cost rate; an amount without a rate
 *   implies the rate it makes per hour (Toggl).
 */
import { Prisma } from '../../../generated/prisma/client.js';
import { minorUnitsOf } from '../../../lib/money.js';
import type { TenantSettings } from '../../platform/tenant/tenant.settings.js';

const Decimal = Prisma.Decimal;
type Decimal = Prisma.Decimal;

/** The limits of an entry's text. The API refuses more (400); an import, which must not lose a row for it, cuts to them. */
export const entryLimits = { description: 5000, tags: 20, tag: 50 } as const;

/** A description as an entry keeps it: trimmed; an empty one is none. */
export function entryDescription(text: string | null | undefined): string | null {
  const trimmed = text?.trim() ?? '';
  return trimmed === '' ? null : trimmed;
}

/** Tags as an entry keeps them: trimmed, in lower case, each once, in their first order; empty ones dropped. */
export function entryTags(tags: readonly string[]): string[] {
  return [...new Set(tags.map((tag) => tag.trim().toLowerCase()).filter((tag) => tag !== ''))];
}

/** What a writer that cuts instead of refusing (an import) keeps: the description cut to its limit, tags cut and the first 20. */
export function textWithinLimits(description: string | null, tags: readonly string[]): { description: string | null; tags: string[] } {
  return {
    description: entryDescription(description?.trim().slice(0, entryLimits.description)),
    tags: entryTags(tags.map((tag) => tag.trim().slice(0, entryLimits.tag))).slice(0, entryLimits.tags),
  };
}

const minuteMs = 60_000;
/** Worked time under this is 0 minutes: no entry. */
const shortestWorkMs = minuteMs / 2;

/**
 * Worked minutes: the span minus the break, rounded to the nearest multiple
 * of `rounding` minutes (0: to the nearest minute), never below zero.
 */
export function durationMinutes(startedAt: Date, endedAt: Date, breakMinutes: number, rounding: number): number {
  const worked = (endedAt.getTime() - startedAt.getTime()) / minuteMs - breakMinutes;
  if (worked <= 0) return 0;
  const step = rounding > 0 ? rounding : 1;
  return Math.round(worked / step) * step;
}

/** Why a span is no entry; `zeroLength` when it holds no worked minute (an import skips such a row, it does not fail it). */
export interface SpanProblem {
  path: 'endedAt' | 'breakMinutes';
  message: string;
  zeroLength: boolean;
}

/**
 * The span rules of a finished entry: it ends after it starts, its break is
 * shorter than the span, and at least half a minute of work is left (less
 * is 0 minutes). Null when the span is an entry.
 */
export function spanProblem(startedAt: Date, endedAt: Date, breakMinutes: number): SpanProblem | null {
  const span = endedAt.getTime() - startedAt.getTime();
  if (span <= 0) return { path: 'endedAt', message: 'must be after startedAt', zeroLength: span === 0 };
  if (breakMinutes * minuteMs >= span) return { path: 'breakMinutes', message: 'must be shorter than the entry', zeroLength: false };
  if (span - breakMinutes * minuteMs < shortestWorkMs) {
    return { path: 'endedAt', message: 'must leave at least half a minute of work after the break (0 minutes is no entry)', zeroLength: true };
  }
  return null;
}

/** What an entry copies when its rates are set. */
export type CopiedRates = KeptRates<string>;

/** The rates that may apply to a member's entry on a project (entry.rates.ts reads them in one statement). */
export interface RateSources {
  /** The project member's rate. */
  memberRate: Decimal | null;
  projectRate: Decimal | null;
  clientRate: Decimal | null;
  /** The member's own rate. */
  ownRate: Decimal | null;
  costRate: Decimal | null;
  /** The client's currency. */
  currency: string | null;
}

/** A rate as an entry keeps it: at the currency's `digits` (cents), half-up. */
const inCents = (rate: Decimal | null, digits: number): Decimal | null => (rate === null ? null : rate.toDecimalPlaces(digits, Decimal.ROUND_HALF_UP));

/** The rates an entry copies: the first billable rate set, from the project member's down to the tenant's default. */
export function copiedRates(sources: RateSources | undefined, tenant: Pick<TenantSettings, 'defaultHourlyRate' | 'currency'>): CopiedRates {
  const fallback = tenant.defaultHourlyRate === null ? null : new Decimal(tenant.defaultHourlyRate);
  const currency = sources?.currency ?? tenant.currency;
  const digits = minorUnitsOf(currency);
  return {
    hourlyRate: inCents(sources?.memberRate ?? sources?.projectRate ?? sources?.clientRate ?? sources?.ownRate ?? fallback, digits),
    costRate: inCents(sources?.costRate ?? null, digits),
    currency,
  };
}

/**
 * `minutes` at `rate` per hour, rounded half-up to the currency's `digits` (cents; multiplied before divided, so that
 * a half cent is exact).
 */
export function amountOf(minutes: number, rate: Decimal, digits = 2): Decimal {
  return rate.mul(minutes).div(60).toDecimalPlaces(digits, Decimal.ROUND_HALF_UP);
}

/**
 * The amounts of an entry as it now is: none while running; the billable
 * amount is 0 for non-billable time and unknown without a rate, the cost
 * amount unknown without a cost rate.
 */
export function amountsOf(entry: {
  durationMinutes: number | null;
  billable: boolean;
  hourlyRate: Decimal | null;
  costRate: Decimal | null;
  /** Of the amounts (their minor units); 2 decimals without one. */
  currency?: string | null;
}): {
  billableAmount: Decimal | null;
  costAmount: Decimal | null;
} {
  if (entry.durationMinutes === null) return { billableAmount: null, costAmount: null };
  const digits = minorUnitsOf(entry.currency);
  return {
    billableAmount: !entry.billable ? new Decimal(0) : entry.hourlyRate === null ? null : amountOf(entry.durationMinutes, entry.hourlyRate, digits),
    costAmount: entry.costRate === null ? null : amountOf(entry.durationMinutes, entry.costRate, digits),
  };
}

/** Whether an entry is billable: as given, else as its project is, else yes. */
export const billableOf = (given: boolean | null | undefined, project: { billable: boolean } | null | undefined): boolean => given ?? project?.billable ?? true;

/** What an imported file says of an entry's money itself (decimal strings' values; null where it says nothing). */
export interface RecordedMoney {
  hourlyRate: Decimal | null;
  billableAmount: Decimal | null;
  costRate: Decimal | null;
}

/** Rates as an entry keeps them: copied ones have a currency; entries from before the money model may have none. */
export interface KeptRates<Currency extends string | null = string | null> {
  hourlyRate: Decimal | null;
  costRate: Decimal | null;
  currency: Currency;
}

export interface EntryValueInput<Currency extends string | null> {
  startedAt: Date;
  /** Null for a running timer. */
  endedAt: Date | null;
  breakMinutes: number;
  /** The tenant's `roundingMinutes`; 0 for an import (it keeps the file's minutes). */
  roundingMinutes: number;
  billable: boolean;
  /** The money model's rates, as copied (or as the entry keeps them). */
  rates: KeptRates<Currency>;
  /** An import's own money: it wins over the money model. */
  recorded?: RecordedMoney;
}

export interface EntryValues<Currency extends string | null> extends KeptRates<Currency> {
  durationMinutes: number | null;
  billableAmount: Decimal | null;
  costAmount: Decimal | null;
}

/** An entry's derived values: its minutes, the rates it keeps and its amounts. */
export function entryValues<Currency extends string | null>(
  input: EntryValueInput<Currency> & { endedAt: Date },
): EntryValues<Currency> & { durationMinutes: number };
export function entryValues<Currency extends string | null>(input: EntryValueInput<Currency>): EntryValues<Currency>;
export function entryValues<Currency extends string | null>(input: EntryValueInput<Currency>): EntryValues<Currency> {
  const minutes = input.endedAt === null ? null : durationMinutes(input.startedAt, input.endedAt, input.breakMinutes, input.roundingMinutes);
  const { recorded } = input;
  if (!recorded) return { durationMinutes: minutes, ...input.rates, ...amountsOf({ durationMinutes: minutes, billable: input.billable, ...input.rates }) };
  const digits = minorUnitsOf(input.rates.currency);
  const impliedRate =
    recorded.hourlyRate === null && recorded.billableAmount !== null && minutes !== null && minutes > 0
      ? recorded.billableAmount.mul(60).div(minutes).toDecimalPlaces(digits, Decimal.ROUND_HALF_UP)
      : null;
  const hourlyRate = inCents(recorded.hourlyRate, digits) ?? impliedRate ?? input.rates.hourlyRate;
  const costRate = inCents(recorded.costRate, digits) ?? input.rates.costRate;
  const derived = amountsOf({ durationMinutes: minutes, billable: input.billable, hourlyRate, costRate, currency: input.rates.currency });
  const billableAmount =
    input.billable && recorded.billableAmount !== null && minutes !== null ? inCents(recorded.billableAmount, digits) : derived.billableAmount;
  return { durationMinutes: minutes, hourlyRate, costRate, currency: input.rates.currency, billableAmount, costAmount: derived.costAmount };
}
