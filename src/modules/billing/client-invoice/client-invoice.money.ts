/**
 * An invoice's money, computed here and nowhere else (the service, the seed
 * and the bench all call it), as EN 16931 computes it, in decimals (never
 * floating point):
 * - amounts are rounded to the currency's minor units (`digits`: EUR 2, JPY 0,
 *   KWD 3), called cents below;
 * - every line's net is quantity x unit price / base quantity, rounded
 *   half-up to cents, so that any reader recomputes it (time is billed in
 *   minutes at an hourly rate: base quantity 60); the entries of the time
 *   lines were each rounded on their own, so the cents their sum differs by
 *   are a rounding line of their own (so that the invoice equals the entries
 *   to the cent);
 * - lines are grouped by (tax category, rate); a document discount (a percent
 *   of the line nets, or an amount) becomes one allowance per group, shared
 *   in proportion to the group nets with the cents left over given by the
 *   largest remainder (EN 16931 BG-20 carries a category and rate per allowance);
 * - each group's tax is round_half_up((net - allowance) x rate / 100, 2),
 *   on the group's sum, never per line (BR-CO-17);
 * - gross = tax basis + tax; due = gross - paid.
 */
import { Prisma } from '../../../generated/prisma/client.js';
import type { TaxCategory } from '../../../generated/prisma/enums.js';

const Decimal = Prisma.Decimal;
type Decimal = Prisma.Decimal;

const zero = new Decimal(0);
/** `value` half-up to the currency's minor units (2: cents). */
const cents = (value: Decimal, digits = 2): Decimal => value.toDecimalPlaces(digits, Decimal.ROUND_HALF_UP);

/** A line as the arithmetic needs it. */
export interface PricedLine {
  netAmount: Decimal;
  taxCategory: TaxCategory;
  taxRate: Decimal;
  taxExemptionReason?: string | null;
}

export interface Discount {
  percent?: Decimal | null;
  amount?: Decimal | null;
  reason?: string | null;
}

export interface TaxGroup {
  category: TaxCategory;
  rate: Decimal;
  lineNet: Decimal;
  allowance: Decimal;
  basis: Decimal;
  amount: Decimal;
  exemptionReason: string | null;
}

export interface InvoiceTotals {
  lineNet: Decimal;
  allowances: Decimal;
  taxBasis: Decimal;
  tax: Decimal;
  gross: Decimal;
  paid: Decimal;
  due: Decimal;
  taxes: TaxGroup[];
}

/** Why the discount cannot be applied (it exceeds the line nets), or null. */
export type DiscountProblem = { path: 'discount.amount' | 'discount.percent'; message: string } | null;

/** BT-149 of a unit: minutes are priced per hour (60 of them), every other unit per one. */
export const baseQuantityOf = (unit: string): number => (unit === 'MIN' ? 60 : 1);

/** A line's net: quantity x unit price / base quantity, half-up to cents (multiplied before divided: a half cent is exact). */
export const lineNet = (quantity: Decimal, unitPrice: Decimal, baseQuantity = 1, digits = 2): Decimal =>
  cents(quantity.mul(unitPrice).div(baseQuantity), digits);

/** The whole discount in money: the amount, or the percent of `lineNet` half-up to the currency's minor units. */
export function discountTotal(lineNet: Decimal, discount: Discount | null | undefined, digits = 2): Decimal {
  if (!discount) return zero;
  if (discount.amount) return cents(discount.amount, digits);
  if (discount.percent) return cents(lineNet.mul(discount.percent).div(100), digits);
  return zero;
}

/** The discount is more than there is to discount. */
export function discountProblem(lineNet: Decimal, discount: Discount | null | undefined, digits = 2): DiscountProblem {
  const total = discountTotal(lineNet, discount, digits);
  if (total.gt(lineNet)) {
    return discount?.amount
      ? { path: 'discount.amount', message: `must not exceed the line nets (${lineNet.toFixed(digits)})` }
      : { path: 'discount.percent', message: 'must not exceed 100' };
  }
  return null;
}

/** Shares `total` over `weights` in proportion, to the cent, the leftover cents to the largest remainders (ties: first). */
export function allocate(total: Decimal, weights: readonly Decimal[], digits = 2): Decimal[] {
  const sum = weights.reduce((acc, weight) => acc.add(weight), zero);
  if (sum.isZero() || total.isZero()) return weights.map(() => zero);
  const cent = new Decimal(1).div(new Decimal(10).pow(digits));
  const exact = weights.map((weight) => total.mul(weight).div(sum));
  const floors = exact.map((value) => value.toDecimalPlaces(digits, Decimal.ROUND_DOWN));
  let leftover = total
    .sub(floors.reduce((acc, value) => acc.add(value), zero))
    .div(cent)
    .round()
    .toNumber();
  const order = exact
    .map((value, index) => ({ index, remainder: value.sub(floors[index] as Decimal) }))
    .sort((a, b) => b.remainder.comparedTo(a.remainder) || a.index - b.index);
  const shares = [...floors];
  for (const { index } of order) {
    if (leftover <= 0) break;
    shares[index] = (shares[index] as Decimal).add(cent);
    leftover -= 1;
  }
  return shares;
}

/** The groups of lines by (category, rate), in the order each first appears. */
function groupsOf(lines: readonly PricedLine[]): { category: TaxCategory; rate: Decimal; lineNet: Decimal; exemptionReason: string | null }[] {
  const groups = new Map<string, { category: TaxCategory; rate: Decimal; lineNet: Decimal; exemptionReason: string | null }>();
  for (const line of lines) {
    const key = `${line.taxCategory}|${line.taxRate.toFixed(2)}`;
    const group = groups.get(key);
    if (group) {
      group.lineNet = group.lineNet.add(line.netAmount);
      group.exemptionReason ??= line.taxExemptionReason ?? null;
    } else {
      groups.set(key, { category: line.taxCategory, rate: line.taxRate, lineNet: line.netAmount, exemptionReason: line.taxExemptionReason ?? null });
    }
  }
  return [...groups.values()];
}

/** The totals of `lines` with `discount`, and `paid` so far, in a currency of `digits` minor units. */
export function invoiceTotals(lines: readonly PricedLine[], discount: Discount | null | undefined, paid: Decimal = zero, digits = 2): InvoiceTotals {
  const groups = groupsOf(lines);
  const lineNet = groups.reduce((acc, group) => acc.add(group.lineNet), zero);
  const shares = allocate(
    discountTotal(lineNet, discount, digits),
    groups.map((group) => group.lineNet),
    digits,
  );
  const taxes = groups.map((group, index) => {
    const allowance = shares[index] as Decimal;
    const basis = group.lineNet.sub(allowance);
    return { ...group, allowance, basis, amount: cents(basis.mul(group.rate).div(100), digits) };
  });
  const allowances = taxes.reduce((acc, group) => acc.add(group.allowance), zero);
  const taxBasis = lineNet.sub(allowances);
  const tax = taxes.reduce((acc, group) => acc.add(group.amount), zero);
  const gross = taxBasis.add(tax);
  return { lineNet, allowances, taxBasis, tax, gross, paid, due: gross.sub(paid), taxes };
}

/** The reason a category carries when nothing more particular is given (EN 16931 BR-E-10, BR-AE-10, BR-IC-10, BR-G-10, BR-O-10). */
export const defaultExemptionReasons: Partial<Record<TaxCategory, string>> = {
  AE: 'Reverse charge',
  K: 'Intra-community supply',
  G: 'Export outside the EU',
  O: 'Not subject to VAT',
};

/** The note of a small business that charges no VAT. */
export const smallBusinessReason = 'Kleinunternehmer gemäß § 19 UStG: no VAT charged (small business)';

/** Categories whose lines carry no tax and name why. */
export const exemptCategories: ReadonlySet<TaxCategory> = new Set(['E', 'AE', 'K', 'G', 'O']);
