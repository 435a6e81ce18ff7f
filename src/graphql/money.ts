/**
 * Decimal fields print at their scale (CONTRACT.md section 11): money with
 * exactly its currency's minor units ("155.20" EUR, "1000" JPY, "1.250"
 * KWD), percents with two decimals ("19.00"), over GraphQL and REST alike.
 * Every Decimal field of every type says what it holds in its extensions
 * (`decimal`: money, price, percent or quantity; src/schema.test.ts holds
 * every one to it), and the OpenAPI document carries the mark (`x-money`,
 * `x-decimals`), so that a client, and the contract check of the tests,
 * knows which strings are money. A money string's currency is the `currency`
 * of its record, or of the record that holds it (an invoice's lines).
 */
import { getNamedType, isObjectType, type GraphQLSchema } from 'graphql';
import { moneyText, percentText, priceText, type DecimalLike } from '../lib/money.js';

/** What a Decimal field holds, and so how it prints. */
export type DecimalKind = 'money' | 'price' | 'percent' | 'quantity';

/** The mark of a money field: exactly its currency's decimals. */
export const moneyExtensions = { decimal: 'money' } as const satisfies { decimal: DecimalKind };
/** A price that may have more decimals than its currency (EN 16931 BT-146): at least its currency's. */
export const priceExtensions = { decimal: 'price' } as const satisfies { decimal: DecimalKind };
/** A percent: two decimals. */
export const percentExtensions = { decimal: 'percent' } as const satisfies { decimal: DecimalKind };
/** Hours, kilometres, days, a line's quantity: printed as kept. */
export const quantityExtensions = { decimal: 'quantity' } as const satisfies { decimal: DecimalKind };

/** The kind a field's extensions declare, if any. */
export const decimalKindOf = (extensions: object | null | undefined): DecimalKind | undefined =>
  (extensions as { decimal?: DecimalKind } | null | undefined)?.decimal;

/** What a Decimal field resolves from. */
type Stored = DecimalLike | null | undefined;

/** A value with no decimals of its own to print: null stays null. */
const printed =
  <Shape>(value: (record: Shape) => Stored, print: (stored: DecimalLike, record: Shape) => string) =>
  (record: Shape) => {
    const stored = value(record);
    return stored === null || stored === undefined ? null : print(stored, record);
  };

/**
 * The options of a money field (`t.field(moneyField<Shape>(...))`) whose readers are decided by its record's own
 * permission (an invoice's totals): `value(record)` at the scale of the currency `currencyOf(record)` names.
 */
export function moneyField<Shape>(description: string, value: (record: Shape) => DecimalLike, currencyOf: (record: Shape) => string | null) {
  return {
    type: 'Decimal' as const,
    description,
    extensions: moneyExtensions,
    resolve: (record: Shape): string => moneyText(value(record), currencyOf(record)),
  };
}

/** `moneyField` of a value that may be missing (null). */
export function optionalMoneyField<Shape>(description: string, value: (record: Shape) => Stored, currencyOf: (record: Shape) => string | null) {
  return {
    type: 'Decimal' as const,
    nullable: true as const,
    description,
    extensions: moneyExtensions,
    resolve: printed(value, (stored, record: Shape) => moneyText(stored, currencyOf(record))),
  };
}

/** The options of a price field: at least its currency's decimals, more when the document has more; null when missing. */
export function priceField<Shape>(description: string, value: (record: Shape) => Stored, currencyOf: (record: Shape) => string | null) {
  return {
    type: 'Decimal' as const,
    nullable: true as const,
    description,
    extensions: priceExtensions,
    resolve: printed(value, (stored, record: Shape) => priceText(stored, currencyOf(record))),
  };
}

/** The options of a percent field: two decimals. */
export function percentField<Shape>(description: string, value: (record: Shape) => DecimalLike) {
  return {
    type: 'Decimal' as const,
    description,
    extensions: percentExtensions,
    resolve: (record: Shape): string => percentText(value(record)),
  };
}

/** `percentField` of a value that may be missing (null). */
export function optionalPercentField<Shape>(description: string, value: (record: Shape) => Stored) {
  return {
    type: 'Decimal' as const,
    nullable: true as const,
    description,
    extensions: percentExtensions,
    resolve: printed(value, (stored) => percentText(stored)),
  };
}

/**
 * Types whose money is the record's own business: who reads an invoice reads its amounts (its subject's grant),
 * so their money fields need no Rate mark. Any other type's money is a rate or an amount: `rateField`.
 */
const documentTypes = new Set([
  'ClientInvoice',
  'ClientInvoiceLine',
  'ClientInvoicePayment',
  'ClientInvoiceTax',
  'ClientInvoiceTotals',
  'ClientInvoiceDiscount',
  // A recurring invoice's fixed lines: read by whoever reads the client invoices they become.
  'RecurringInvoiceLine',
  // A reminder of an invoice and the profile's levels: the fee and the open amount are the invoice's business.
  'ClientInvoiceReminder',
  'ReminderLevel',
  'Invoice',
  'InvoiceLine',
  // What a member paid, as its receipt says (what it bills a client, with the markup, is a rate: billedAmount).
  'Expense',
]);

const moneyName = /(rate|amount|price|total|net|gross|due|paid|basis)$/i;

/**
 * What is wrong with the Decimal fields of `schema`: each must say what it holds (money, price, percent or
 * quantity), money outside an invoice must carry the Rate mark (`rateField`: null for callers without it, hidden
 * in files), and a field named like money must not pass for a quantity. Empty when all is well.
 */
export function decimalFieldProblems(schema: GraphQLSchema): string[] {
  const problems: string[] = [];
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith('__')) continue;
    for (const field of Object.values(type.getFields())) {
      if (getNamedType(field.type).name !== 'Decimal') continue;
      const where = `${type.name}.${field.name}`;
      const kind = decimalKindOf(field.extensions);
      const rate = (field.extensions as { rate?: unknown }).rate === true;
      if (kind === undefined) problems.push(`${where} does not say what it holds: use rateField, moneyField, percentField or quantityExtensions`);
      else if ((kind === 'money' || kind === 'price') && !rate && !documentTypes.has(type.name))
        problems.push(`${where} is a rate or amount without the Rate mark: define it with rateField`);
      else if (kind === 'quantity' && moneyName.test(field.name)) problems.push(`${where} is named like money but marked as a quantity`);
    }
  }
  return problems;
}
