/**
 * Input shapes are defined once, as zod schemas of the JSON a client sends.
 * From each one we derive: validation with field-named errors (services and
 * the REST layer), the GraphQL input type or arguments (src/graphql/inputs.ts),
 * and the OpenAPI schema (src/rest/openapi.ts). Nothing else describes an input.
 */
import { z } from 'zod';
import { validationFailed, type FieldError } from './errors.js';
import { maxMinorUnits, percentDecimals } from './money.js';

/** GraphQL scalars that a plain zod type cannot imply. */
export type ScalarHint = 'ID' | 'DateTime' | 'Date' | 'Decimal' | 'String';

/** Named input objects: GraphQL input types and OpenAPI component schemas (`id` is the name). */
export const namedInputs = z.registry<{ id: string; description: string }>();
export const scalarHints = z.registry<{ scalar: ScalarHint }>();
export const enumNames = z.registry<{ name: string }>();

export type StrictObject<Shape extends z.ZodRawShape = z.ZodRawShape> = z.ZodObject<Shape, z.core.$strict>;

/** A request body: `Create<Resource>Dto`, `Update<Resource>Dto`... Unknown fields are rejected. */
export function dto<Shape extends z.ZodRawShape>(name: string, description: string, shape: Shape): StrictObject<Shape> {
  const schema = z.strictObject(shape);
  namedInputs.add(schema, { id: name, description });
  return schema;
}

/** The arguments of one operation (path and query parameters in REST). */
export function args<Shape extends z.ZodRawShape>(shape: Shape): StrictObject<Shape> {
  return z.strictObject(shape);
}

function hinted<T extends z.ZodType>(schema: T, scalar: ScalarHint, description?: string): T {
  const described = (description === undefined ? schema : schema.describe(description)) as T;
  scalarHints.add(described, { scalar });
  return described;
}

const decimalPattern = /^-?\d{1,12}(\.\d{1,4})?$/;

/** A decimal field taking text (or a JSON number) that matches `pattern`, within `min` and `max`. */
function decimalField(pattern: RegExp, message: string, description: string | undefined, options: { min?: number; max?: number }) {
  return hinted(
    z
      .union([z.string(), z.number()])
      .transform((value) => (typeof value === 'number' ? String(value) : value.trim()))
      .pipe(
        z
          .string()
          .regex(pattern, message)
          // A value that is no number already has its one error: the bounds speak of numbers only.
          .refine((value) => options.min === undefined || !pattern.test(value) || Number(value) >= options.min, {
            message: `must be at least ${options.min}`,
          })
          .refine((value) => options.max === undefined || !pattern.test(value) || Number(value) <= options.max, {
            message: `must be at most ${options.max}`,
          }),
      ),
    'Decimal',
    description,
  );
}

const moneyPattern = new RegExp(`^-?\\d{1,12}(\\.\\d{1,${maxMinorUnits}})?$`);
const percentPattern = new RegExp(`^-?\\d{1,12}(\\.\\d{1,${percentDecimals}})?$`);

/** Field builders for the types that need a GraphQL scalar (named enums come from src/lib/vocabulary.ts). */
export const fields = {
  id: (description?: string) => hinted(z.string().trim().min(1).max(64), 'ID', description),
  dateTime: (description?: string) =>
    hinted(z.iso.datetime({ offset: true, error: 'must be an ISO 8601 date-time with offset, e.g. 2026-01-31T09:00:00Z' }), 'DateTime', description),
  date: (description?: string) => hinted(z.iso.date({ error: 'must be a date like 2026-01-31' }), 'Date', description),
  /** A bound of a period: a date (a whole day in the tenant's time zone) or an exact date-time. */
  dateOrDateTime: (description?: string) =>
    hinted(
      z.union([z.iso.date(), z.iso.datetime({ offset: true })], {
        error: 'must be a date like 2026-01-31 or a date-time with offset like 2026-01-31T09:00:00Z',
      }),
      'String',
      description,
    ),
  /** Quantities travel as decimal strings ("1.5"), up to 4 decimals; JSON numbers are accepted and normalised. */
  decimal: (description?: string, options: { min?: number; max?: number } = {}) =>
    decimalField(decimalPattern, 'must be a decimal number like "85.50"', description, options),
  /**
   * Money (a rate, a price, an amount): decimal text of at most the currency's minor units (ISO 4217: EUR 2, JPY 0,
   * KWD 3). The field takes up to 3 decimals, the most any currency has; the service, which knows the currency,
   * refuses what its currency has not (`assertMoneyScale`, src/lib/money.ts).
   */
  money: (description?: string, options: { min?: number; max?: number } = {}) =>
    decimalField(moneyPattern, `must be a decimal number like "85.50", with at most its currency's decimals`, description, options),
  /** A percent (a tax rate, a discount): at most 2 decimals ("19", "7.50"). */
  percent: (description?: string, options: { min?: number; max?: number } = {}) =>
    decimalField(percentPattern, 'must be a percent like "19.00", with at most 2 decimals', description, options),
};

/** `limit` (1..200, default 50) and `offset`: every list pages the same way. */
export const pagination = {
  limit: z.number().int().min(1).max(200).default(50).describe('Page size, 1 to 200'),
  offset: z.number().int().min(0).max(1_000_000).default(0).describe('Items to skip'),
};

function joinPath(prefix: string, path: readonly PropertyKey[]): string {
  return [prefix, ...path.map(String)].filter((part) => part !== '').join('.');
}

function messageOf(issue: z.core.$ZodIssue): string {
  switch (issue.code) {
    case 'invalid_type':
      if (issue.input === undefined) return 'is required';
      if (issue.input === null) return 'must not be null';
      return `must be ${issue.expected === 'int' ? 'an integer' : `a ${issue.expected}`}`;
    case 'too_small':
      if (issue.origin === 'string') return issue.minimum === 1 ? 'must not be empty' : `must be at least ${issue.minimum} characters`;
      if (issue.origin === 'array' || issue.origin === 'set') return `must have at least ${issue.minimum} items`;
      return `must be at least ${issue.minimum}`;
    case 'too_big':
      if (issue.origin === 'string') return `must be at most ${issue.maximum} characters`;
      if (issue.origin === 'array' || issue.origin === 'set') return `must have at most ${issue.maximum} items`;
      return `must be at most ${issue.maximum}`;
    case 'invalid_value':
      return issue.values.length === 1 ? `must be ${JSON.stringify(issue.values[0])}` : `must be one of: ${issue.values.join(', ')}`;
    default:
      return issue.message;
  }
}

/** Zod issues as our field errors; `prefix` names where the value sat (`input`, a query parameter...). */
export function fieldErrorsOf(error: z.ZodError, prefix = ''): FieldError[] {
  return error.issues.flatMap((issue) => {
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({ path: joinPath(prefix, [...issue.path, key]), message: 'is not a known field' }));
    }
    return [{ path: joinPath(prefix, issue.path) || '(body)', message: messageOf(issue) }];
  });
}

/** Validates `input` against `schema`; throws VALIDATION_FAILED naming every bad field. */
export function parseInput<Schema extends z.ZodType>(schema: Schema, input: unknown, prefix = ''): z.output<Schema> {
  const result = schema.safeParse(input, { reportInput: true });
  if (result.success) return result.data;
  throw validationFailed(fieldErrorsOf(result.error, prefix));
}

/** A JSON Schema (2020-12, as OpenAPI 3.1 uses it). */
export type JsonSchema = Record<string, unknown>;

const componentRef = (id: string): string => `#/components/schemas/${id}`;

function withoutDialect(schema: JsonSchema): JsonSchema {
  const { $schema: _dialect, $id: _id, ...rest } = schema;
  return rest;
}

function referencedNames(value: unknown, into: Set<string>): void {
  if (Array.isArray(value)) {
    for (const item of value) referencedNames(item, into);
  } else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      if (key === '$ref' && typeof item === 'string' && item.startsWith('#/components/schemas/')) {
        into.add(item.slice('#/components/schemas/'.length));
      } else {
        referencedNames(item, into);
      }
    }
  }
}

/**
 * The named inputs `roots` and every named input they reference, as OpenAPI
 * component schemas that `$ref` each other. Only what is reachable: the
 * registry holds whatever modules happen to be loaded.
 */
export function namedInputJsonSchemas(roots: readonly string[]): Record<string, JsonSchema> {
  const { schemas } = z.toJSONSchema(namedInputs, { io: 'input', uri: componentRef, unrepresentable: 'any' });
  const wanted = new Set<string>();
  const pending = [...roots];
  while (pending.length > 0) {
    const name = pending.pop() as string;
    if (wanted.has(name)) continue;
    const schema = schemas[name];
    if (!schema) throw new Error(`no DTO named ${name}`);
    wanted.add(name);
    const references = new Set<string>();
    referencedNames(schema, references);
    pending.push(...references);
  }
  return Object.fromEntries([...wanted].sort().map((name) => [name, withoutDialect(schemas[name] as JsonSchema)]));
}

/** One argument's JSON Schema (for an OpenAPI parameter). */
export function argumentJsonSchema(schema: z.ZodType): JsonSchema {
  return withoutDialect(z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema);
}
