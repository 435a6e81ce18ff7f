/**
 * Money at its currency's scale (CONTRACT.md section 11): how many decimals
 * each currency has, and decimal text with exactly that many. Every money
 * input is checked against it and every money output printed with it: REST,
 * GraphQL, events and files alike.
 *
 * The minor units are ISO 4217's, from the `currency-codes` package (the ISO
 * list as data: EUR 2, JPY 0, KWD 3). ICU's own digits (`Intl.NumberFormat`)
 * are CLDR's display habits, which differ for some 18 currencies (HUF, IDR,
 * COP and IQD print with none there), so they only answer for a code that the
 * ISO list no longer or not yet has (HRK, XCG). Each answer is kept per
 * currency: printing a list's amounts looks up a Map, nothing more.
 */
import isoCurrencies from 'currency-codes';
import { validationFailed, type FieldError } from './errors.js';

/** The most decimals any currency Tally accepts has (KWD, BHD, JOD, OMR, TND, IQD, LYD): the scale of the money columns. */
export const maxMinorUnits = 3;

/** Percents (tax rates, discounts) have two decimals: `19.00`. */
export const percentDecimals = 2;

const currencies = new Set(Intl.supportedValuesOf('currency'));

/** An ISO 4217 currency code in use (`EUR`), as the platform's ICU lists them. */
export const isCurrencyCode = (code: string): boolean => currencies.has(code);

/** A tenant's currency until it sets one. */
export const defaultCurrency = 'EUR';

const tenantCurrencies = new WeakMap<object, string>();

/**
 * The currency of a tenant's stored settings (its `currency`, else the default), kept per settings object: money
 * fields ask it for every row they print (a member's rates, a project without a client).
 */
export function currencyOfSettings(settings: unknown): string {
  if (settings === null || typeof settings !== 'object') return defaultCurrency;
  let currency = tenantCurrencies.get(settings);
  if (currency === undefined) {
    const stored = (settings as { currency?: unknown }).currency;
    currency = typeof stored === 'string' && isCurrencyCode(stored) ? stored : defaultCurrency;
    tenantCurrencies.set(settings, currency);
  }
  return currency;
}

const minorUnits = new Map<string, number>();

function isoMinorUnits(currency: string): number {
  const iso = isoCurrencies.code(currency);
  if (iso) return iso.digits;
  try {
    return new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
  } catch {
    return 2;
  }
}

/** How many decimals `currency` has (ISO 4217 minor units: EUR 2, JPY 0, KWD 3); 2 for an unknown or missing one. */
export function minorUnitsOf(currency: string | null | undefined): number {
  if (!currency) return 2;
  let digits = minorUnits.get(currency);
  if (digits === undefined) {
    digits = Math.min(isoMinorUnits(currency), maxMinorUnits);
    minorUnits.set(currency, digits);
  }
  return digits;
}

/** How many decimals decimal text has ("85.50" 2, "85" 0). */
export function decimalsOf(text: string): number {
  const point = text.indexOf('.');
  return point === -1 ? 0 : text.length - point - 1;
}

/** What has `toString()` as decimal text: Prisma's Decimal, a number, a string. */
export type DecimalLike = { toString(): string } | string | number;

/**
 * Decimal text with exactly `digits` decimals ("205.5" -> "205.50"), rounded half away from zero where it has more.
 * Text only: no Decimal is made, so that a list's thousands of amounts cost a few string operations each.
 */
export function fixedDecimal(value: DecimalLike, digits: number): string {
  const text = typeof value === 'string' ? value : value.toString();
  const point = text.indexOf('.');
  const decimals = point === -1 ? 0 : text.length - point - 1;
  // Exponent notation only for amounts no money has (Decimal writes 1e-7 and 1e+21 so): a number's rounding is enough.
  if (text.includes('e')) return Number(text).toFixed(digits);
  if (decimals === digits) return text;
  if (decimals < digits) return `${text}${point === -1 ? '.' : ''}${'0'.repeat(digits - decimals)}`;
  const negative = text.startsWith('-');
  const whole = text.slice(negative ? 1 : 0, point);
  const fraction = text.slice(point + 1);
  const scaled = BigInt(`${whole}${fraction.slice(0, digits)}`) + ((fraction[digits] ?? '0') >= '5' ? 1n : 0n);
  const padded = scaled.toString().padStart(digits + 1, '0');
  const fixed = digits === 0 ? padded : `${padded.slice(0, -digits)}.${padded.slice(-digits)}`;
  return negative && scaled !== 0n ? `-${fixed}` : fixed;
}

/** An amount or rate as `currency` writes it: "155.20" EUR, "1000" JPY, "1.250" KWD. */
export const moneyText = (value: DecimalLike, currency: string | null | undefined): string => fixedDecimal(value, minorUnitsOf(currency));

/**
 * A price as `currency` writes it, at least: a unit price of a received invoice may have more decimals than its
 * currency (EN 16931 BT-146), and keeps them ("0.0125"); trailing zeros beyond the currency's are dropped.
 */
export function priceText(value: DecimalLike, currency: string | null | undefined): string {
  const text = typeof value === 'string' ? value : value.toString();
  const digits = minorUnitsOf(currency);
  if (decimalsOf(text) <= digits) return fixedDecimal(text, digits);
  const trimmed = text.replace(/0+$/, '');
  return decimalsOf(trimmed) <= digits ? fixedDecimal(trimmed, digits) : trimmed;
}

/** A percent as text with two decimals: "19.00". */
export const percentText = (value: DecimalLike): string => fixedDecimal(value, percentDecimals);

/** Decimal text for people: its thousands grouped (`1234.50` as `1,234.50`). */
export const grouped = (text: string): string => text.replace(/^(-?\d+)/, (whole) => whole.replace(/\B(?=(\d{3})+$)/g, ','));

/** The decimals a value needs: trailing zeros do not count ("100.00" needs none, "10.010" two). */
export const significantDecimals = (text: string): number => decimalsOf(text.includes('.') ? text.replace(/\.?0+$/, '') : text);

/** Why `text` (an input's decimal text) has more decimals than `currency` has, or null when it fits. */
export function scaleProblem(text: string, currency: string | null): string | null {
  const digits = minorUnitsOf(currency);
  if (significantDecimals(text.trim()) <= digits) return null;
  if (!currency) return `must have at most ${digits} decimals (without a currency)`;
  return digits === 0 ? `must be a whole amount: ${currency} has no minor unit` : `must have at most ${digits} decimals (${currency})`;
}

/** The field errors of the money inputs (path to decimal text; absent or null ones skipped) that `currency` has too few decimals for. */
export function moneyScaleErrors(currency: string | null, values: Record<string, string | null | undefined>): FieldError[] {
  return Object.entries(values).flatMap(([path, text]) => {
    const problem = text === null || text === undefined ? null : scaleProblem(text, currency);
    return problem ? [{ path, message: problem }] : [];
  });
}

/**
 * 400 VALIDATION_FAILED naming each money input with more decimals than `currency` has: for the inputs whose
 * currency only a related record knows (a payment: its invoice's; a project's rate: its client's, else the tenant's).
 */
export function assertMoneyScale(currency: string | null, values: Record<string, string | null | undefined>): void {
  const errors = moneyScaleErrors(currency, values);
  if (errors.length > 0) throw validationFailed(errors);
}

/**
 * What each Decimal column of the database holds, by its name (src/lib/money.test.ts holds every Decimal column of
 * the Prisma schema to it): how records written without GraphQL print it, an event's data above all. Money prints
 * at the scale of the record's `currency` (a record that keeps none gets it added: a project's, a member's).
 */
export const decimalColumns: Readonly<Record<string, 'money' | 'percent' | 'quantity'>> = {
  hourlyRate: 'money',
  costRate: 'money',
  billableAmount: 'money',
  costAmount: 'money',
  budgetAmount: 'money',
  netAmount: 'money',
  taxAmount: 'money',
  totalAmount: 'money',
  discountAmount: 'money',
  lineNet: 'money',
  allowances: 'money',
  taxBasis: 'money',
  tax: 'money',
  gross: 'money',
  paid: 'money',
  due: 'money',
  amount: 'money',
  unitPrice: 'money',
  feeAmount: 'money',
  openAmount: 'money',
  taxRate: 'percent',
  defaultTaxRate: 'percent',
  discountPercent: 'percent',
  markupPercent: 'percent',
  billedAmount: 'money',
  budgetHours: 'quantity',
  distanceKm: 'quantity',
  quantity: 'quantity',
  priceBaseQuantity: 'quantity',
  allowanceDays: 'quantity',
  carriedOverDays: 'quantity',
  days: 'quantity',
};

/**
 * A Decimal column's value as JSON text of a record in `currency`: money at its scale, percents with 2 decimals,
 * quantities as kept. A unit price keeps decimals beyond its currency's (a received invoice's may have them).
 */
export function decimalJson(column: string, value: DecimalLike, currency: string | null | undefined): string {
  switch (decimalColumns[column]) {
    case 'percent':
      return percentText(value);
    case 'quantity':
    case undefined:
      return value.toString();
    default:
      return column === 'unitPrice' ? priceText(value, currency) : moneyText(value, currency);
  }
}
