/**
 * GraphQL arguments and input types derived from the zod schemas in
 * src/lib/dto.ts, so that an input is described once. The field extensions
 * set here (`argsSchema`, `permission`) are what the REST layer and the
 * OpenAPI document read back from the schema.
 */
import type { ArgBuilder, InputFieldsFromShape } from '@pothos/core';
import type { GraphQLFieldExtensions } from 'graphql';
import type { z } from 'zod';
import type { Action, Subject } from '../auth/permissions.js';
import { enumNames, namedInputs, scalarHints, type StrictObject } from '../lib/dto.js';
import { builder, type SchemaTypes as Types, type TenantPermission } from './builder.js';
type TypeParameter = string | object | [string | object];

interface Unwrapped {
  schema: z.ZodType;
  required: boolean;
  defaultValue: unknown;
  description: string | undefined;
}

/** Peels optional/nullable/default wrappers, keeping what they say about the field. */
function unwrap(schema: z.ZodType): Unwrapped {
  let current = schema;
  let required = true;
  let defaultValue: unknown;
  let description = schema.description;
  for (;;) {
    const def = current._zod.def as { type: string; innerType?: z.ZodType; defaultValue?: unknown };
    if ((def.type === 'optional' || def.type === 'nullable' || def.type === 'default') && def.innerType) {
      required = false;
      if (def.type === 'default') defaultValue = def.defaultValue;
      current = def.innerType;
      description ??= current.description;
    } else {
      return { schema: current, required, defaultValue, description };
    }
  }
}

const enumRefs = new Map<string, object>();
const inputRefs = new Map<string, object>();

function enumType(name: string, values: readonly string[]): object {
  let ref = enumRefs.get(name);
  if (!ref) {
    ref = builder.enumType(name, { values: values as [string, ...string[]] });
    enumRefs.set(name, ref);
  }
  return ref;
}

/**
 * The GraphQL enum `name`, shared by inputs (zod `fields.enum(name, ...)`) and
 * outputs, so that a value has one type whichever way it travels.
 */
export function graphqlEnum<const Values extends readonly [string, ...string[]]>(name: string, values: Values) {
  return enumType(name, values) as PothosSchemaTypes.EnumRef<Types, Values[number], Values[number]>;
}

function inputType(schema: StrictObject, name: string, description: string): object {
  let ref = inputRefs.get(name);
  if (!ref) {
    ref = builder.inputType(name, {
      description,
      fields: (t) =>
        Object.fromEntries(
          Object.entries(schema.shape).map(([key, field]) => {
            const { type, required, defaultValue, description: fieldDescription } = describeField(
              field as z.ZodType,
              `${name}.${key}`,
            );
            return [
              key,
              t.field({
                type: type as never,
                required: (Array.isArray(type) ? { list: required, items: true } : required) as never,
                ...(fieldDescription === undefined ? {} : { description: fieldDescription }),
                ...(defaultValue === undefined ? {} : { defaultValue: defaultValue as never }),
              }),
            ];
          }),
        ),
    });
    inputRefs.set(name, ref);
  }
  return ref;
}

function graphqlTypeOf(schema: z.ZodType, where: string): TypeParameter {
  const scalar = scalarHints.get(schema);
  if (scalar) return scalar.scalar;
  const enumName = enumNames.get(schema);
  if (enumName) return enumType(enumName.name, (schema as z.ZodEnum).options as string[]);
  const named = namedInputs.get(schema);
  if (named) return inputType(schema as StrictObject, named.id, named.description);
  const def = schema._zod.def as { type: string; in?: z.ZodType; element?: z.ZodType };
  switch (def.type) {
    case 'string':
      return 'String';
    case 'number':
      return (schema as z.ZodNumber).isInt ? 'Int' : 'Float';
    case 'boolean':
      return 'Boolean';
    case 'pipe':
      if (def.in) return graphqlTypeOf(def.in, where);
      break;
    case 'array':
      if (def.element) {
        const item = graphqlTypeOf(unwrap(def.element).schema, `${where}[]`);
        if (Array.isArray(item)) throw new Error(`${where}: nested lists are not supported`);
        return [item];
      }
      break;
  }
  throw new Error(`${where}: no GraphQL type for a zod ${def.type}; give it a hint in src/lib/dto.ts`);
}

function describeField(field: z.ZodType, where: string) {
  const unwrapped = unwrap(field);
  return { ...unwrapped, type: graphqlTypeOf(unwrapped.schema, where) };
}

/** GraphQL arguments for every key of an argument schema. */
function argsFrom<Shape extends z.ZodRawShape>(
  t: { arg: ArgBuilder<Types> },
  schema: StrictObject<Shape>,
): InputFieldsFromShape<Types, z.input<StrictObject<Shape>>, 'Arg'> {
  return Object.fromEntries(
    Object.entries(schema.shape).map(([key, field]) => {
      const { type, required, defaultValue, description } = describeField(field as z.ZodType, `argument ${key}`);
      return [
        key,
        t.arg({
          type: type as never,
          required: (Array.isArray(type) ? { list: required, items: true } : required) as never,
          ...(description === undefined ? {} : { description }),
          ...(defaultValue === undefined ? {} : { defaultValue: defaultValue as never }),
        }),
      ];
    }),
  ) as unknown as InputFieldsFromShape<Types, z.input<StrictObject<Shape>>, 'Arg'>;
}

/** What REST and OpenAPI read from a field: its argument schema and what the caller needs. */
export interface OperationExtensions {
  argsSchema: StrictObject;
  /** The (action, subject) a tenant operation needs in its tenant. */
  permission?: { action: Action; subject: Subject };
  /** For operations outside a tenant: any caller, or superadmins only. */
  access?: 'authenticated' | 'superadmin';
}

export function operationExtensionsOf(extensions: Readonly<GraphQLFieldExtensions<unknown, unknown>> | null | undefined) {
  return (extensions ?? {}) as Partial<OperationExtensions>;
}

/**
 * A tenant-scoped operation: its arguments (with `tenantId`), the (action,
 * subject) it requires through the tenant guard, and the extensions REST uses.
 */
export function tenantOperation<Shape extends z.ZodRawShape & { tenantId: z.ZodType<string> }>(
  t: { arg: ArgBuilder<Types> },
  schema: StrictObject<Shape>,
  [action, subject]: [Action, Subject],
) {
  return {
    args: argsFrom(t, schema),
    authScopes: (_parent: unknown, fieldArgs: { tenantId: string }) => ({
      tenantPermission: { tenantId: fieldArgs.tenantId, action, subject } satisfies TenantPermission,
    }),
    extensions: { argsSchema: schema, permission: { action, subject } } satisfies OperationExtensions,
  };
}

/** An operation outside any tenant (/tenants, /admin): for any caller, or for superadmins only. */
export function plainOperation<Shape extends z.ZodRawShape>(
  t: { arg: ArgBuilder<Types> },
  schema: StrictObject<Shape>,
  access: 'authenticated' | 'superadmin' = 'authenticated',
) {
  return {
    args: argsFrom(t, schema),
    authScopes: access === 'superadmin' ? { superadmin: true } : { authenticated: true },
    extensions: { argsSchema: schema, access } satisfies OperationExtensions,
  };
}

