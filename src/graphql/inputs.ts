/**
 * GraphQL arguments, input types and enums derived from the zod schemas in
 * src/lib/dto.ts and the vocabularies of src/lib/vocabulary.ts, so that an
 * input is described once.
 */
import type { ArgBuilder, InputFieldsFromShape } from '@pothos/core';
import type { z } from 'zod';
import { enumNames, namedInputs, scalarHints, type StrictObject } from '../lib/dto.js';
import type { Vocabulary } from '../lib/vocabulary.js';
import { builder, type SchemaTypes as Types } from './builder.js';
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

function enumType(name: string, values: readonly string[], description?: string): object {
  let ref = enumRefs.get(name);
  if (!ref) {
    ref = builder.enumType(name, {
      values: values as [string, ...string[]],
      ...(description === undefined ? {} : { description }),
    });
    enumRefs.set(name, ref);
  }
  return ref;
}

/**
 * The GraphQL enum of a vocabulary, shared by inputs (its zod schema) and
 * outputs, so that a value has one type whichever way it travels.
 */
export function graphqlEnum<Value extends string>(vocabulary: Vocabulary<Value>) {
  return enumType(vocabulary.name, vocabulary.values, vocabulary.description) as PothosSchemaTypes.EnumRef<Types, Value, Value>;
}

function inputType(schema: StrictObject, name: string, description: string): object {
  let ref = inputRefs.get(name);
  if (!ref) {
    ref = builder.inputType(name, {
      description,
      fields: (t) =>
        Object.fromEntries(
          Object.entries(schema.shape).map(([key, field]) => {
            const { type, required, defaultValue, description: fieldDescription } = describeField(field as z.ZodType, `${name}.${key}`);
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
export function argsFrom<Shape extends z.ZodRawShape>(
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
