import { GraphQLError, GraphQLScalarType, Kind, type ValueNode } from 'graphql';
import { isoTimestamp } from '../lib/time.js';
import { dayText } from '../lib/day.js';

const isoDateTime = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i;
const isoDate = /^\d{4}-\d{2}-\d{2}$/;
/** An instant exactly as `toISOString` prints it (UTC, milliseconds): what a statement that prints its own instants gives. */
const printedInstant = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const decimal = /^-?\d+(\.\d+)?$/;

function literal(node: ValueNode): unknown {
  switch (node.kind) {
    case Kind.STRING:
      return node.value;
    case Kind.INT:
    case Kind.FLOAT:
      return Number(node.value);
    default:
      return undefined;
  }
}

/*
 * Input scalars keep the JSON value a client sent (validated here, parsed to
 * richer types by the service's zod schema), so GraphQL and REST hand the
 * services the same input.
 */

function parseDateTime(value: unknown): string {
  if (typeof value === 'string' && isoDateTime.test(value) && !Number.isNaN(Date.parse(value))) return value;
  throw new GraphQLError('DateTime must be an ISO 8601 date-time with offset, e.g. 2026-01-31T09:00:00Z');
}

function parseDate(value: unknown): string {
  if (typeof value === 'string' && isoDate.test(value)) return value;
  throw new GraphQLError('Date must look like 2026-01-31');
}

function parseDecimal(value: unknown): string {
  const text = typeof value === 'number' && Number.isFinite(value) ? String(value) : value;
  if (typeof text === 'string' && decimal.test(text.trim())) return text.trim();
  throw new GraphQLError('Decimal must be a number or a decimal string such as "85.50"');
}

export const DateTimeScalar = new GraphQLScalarType<string, string>({
  name: 'DateTime',
  description: 'ISO 8601 date-time; responses are in UTC (2026-01-31T09:00:00.000Z), inputs need an offset.',
  serialize(value) {
    // Every timestamp of every answer passes here: isoTimestamp prints what toISOString does, in a fifth of its time.
    if (value instanceof Date) return isoTimestamp(value);
    if (typeof value === 'string' && printedInstant.test(value)) return value;
    if (typeof value === 'string' && isoDateTime.test(value)) return new Date(value).toISOString();
    throw new GraphQLError(`DateTime cannot represent ${String(value)}`);
  },
  parseValue: parseDateTime,
  parseLiteral: (node) => parseDateTime(literal(node)),
});

export const DateScalar = new GraphQLScalarType<string, string>({
  name: 'Date',
  description: 'Calendar date, YYYY-MM-DD.',
  serialize(value) {
    if (value instanceof Date) return dayText(value);
    if (typeof value === 'string' && isoDate.test(value)) return value;
    throw new GraphQLError(`Date cannot represent ${String(value)}`);
  },
  parseValue: parseDate,
  parseLiteral: (node) => parseDate(literal(node)),
});

export const DecimalScalar = new GraphQLScalarType<string, string>({
  name: 'Decimal',
  description:
    'Exact decimal number as a string, e.g. "85.50": money with exactly its currency\'s minor units (ISO 4217: "155.20" EUR, "1000" JPY, "1.250" KWD), percents with two decimals ("19.00"). Inputs may also be numbers.',
  serialize(value) {
    // Prisma's Decimal, a number, or a string: all print as plain decimal text. Money and percents arrive as text at
    // their scale already (src/graphql/money.ts): their fields know the currency, a scalar does not.
    const text = String(value);
    if (decimal.test(text)) return text;
    throw new GraphQLError(`Decimal cannot represent ${text}`);
  },
  parseValue: parseDecimal,
  parseLiteral: (node) => parseDecimal(literal(node)),
});

/** Free-form JSON in responses (a notification's `data`, an event's `data`); never an input. */
export const JsonObjectScalar = new GraphQLScalarType<Record<string, unknown>, Record<string, unknown>>({
  name: 'JSONObject',
  description: 'A JSON object, as the resource it came from shows it.',
  serialize(value) {
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
    throw new GraphQLError(`JSONObject cannot represent ${String(value)}`);
  },
  parseValue() {
    throw new GraphQLError('JSONObject is output only');
  },
  parseLiteral() {
    throw new GraphQLError('JSONObject is output only');
  },
});
