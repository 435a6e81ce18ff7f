/**
 * The OpenAPI document's response schemas (openapi.ts): a GraphQL output type as REST answers it, in JSON
 * Schema, its object types as components, and each decimal marked with what it holds.
 */
import { isEnumType, isListType, isNonNullType, isObjectType, isScalarType, type GraphQLObjectType, type GraphQLOutputType } from 'graphql';
import { decimalKindOf } from '../graphql/money.js';
import type { JsonSchema } from '../lib/dto.js';

const scalarSchemas: Record<string, JsonSchema> = {
  ID: { type: 'string' },
  String: { type: 'string' },
  Int: { type: 'integer' },
  Float: { type: 'number' },
  Boolean: { type: 'boolean' },
  DateTime: { type: 'string', format: 'date-time' },
  Date: { type: 'string', format: 'date' },
  Decimal: { type: 'string', pattern: '^-?\\d+(\\.\\d+)?$', examples: ['85.50'] },
  JSONObject: { type: 'object', additionalProperties: true },
};

export const ref = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });

/**
 * What a decimal property holds, for clients (src/graphql/money.ts): `x-money` is money with exactly the minor
 * units of its currency (the `currency` of its object or of the nearest object holding it; 2 decimals when that is
 * null), `at-least` a price that may have more; `x-decimals` a fixed scale (percents).
 */
const decimalMarks: Record<string, JsonSchema> = {
  money: { 'x-money': 'exact' },
  price: { 'x-money': 'at-least' },
  percent: { 'x-decimals': 2 },
  quantity: {},
  none: {},
};

function nullable(schema: JsonSchema): JsonSchema {
  if (typeof schema.$ref === 'string') return { anyOf: [schema, { type: 'null' }] };
  // An enum lists its values, so null must be one of them too (a `type` allowing null is not enough).
  if (typeof schema.type === 'string')
    return { ...schema, type: [schema.type, 'null'], ...(Array.isArray(schema.enum) ? { enum: [...schema.enum, null] } : {}) };
  return { anyOf: [schema, { type: 'null' }] };
}

export class ResponseSchemas {
  readonly components: Record<string, JsonSchema> = {};

  /** The JSON Schema of a GraphQL output type; object types become components. */
  of(type: GraphQLOutputType): JsonSchema {
    if (isNonNullType(type)) return this.nonNull(type.ofType);
    return nullable(this.nonNull(type));
  }

  private nonNull(type: GraphQLOutputType): JsonSchema {
    if (isNonNullType(type)) return this.nonNull(type.ofType);
    if (isListType(type)) return { type: 'array', items: this.of(type.ofType) };
    if (isScalarType(type)) return scalarSchemas[type.name] ?? {};
    if (isEnumType(type)) return { type: 'string', enum: type.getValues().map((value) => value.value as string) };
    if (isObjectType(type)) {
      this.component(type);
      return ref(type.name);
    }
    return {};
  }

  private component(type: GraphQLObjectType): void {
    if (this.components[type.name]) return;
    const schema: JsonSchema = { type: 'object' };
    this.components[type.name] = schema; // placed first so that cycles terminate
    const properties: Record<string, JsonSchema> = {};
    const required: string[] = [];
    for (const field of Object.values(type.getFields())) {
      const property = { ...this.of(field.type), ...decimalMarks[decimalKindOf(field.extensions) ?? 'none'] };
      properties[field.name] = field.description ? { ...property, description: field.description } : property;
      if (isNonNullType(field.type)) required.push(field.name);
    }
    if (type.description) schema.description = type.description;
    schema.properties = properties;
    schema.required = required;
  }
}
