/**
 * The named sets of values of the service (enums), each written once. A
 * vocabulary gives the zod schema that validates it; the GraphQL enum and the
 * OpenAPI `enum` are derived from that schema, so a value list never exists
 * twice. Database enums come straight from the Prisma enum objects.
 */
import { z } from 'zod';
import { enumNames } from './dto.js';

export interface Vocabulary<Value extends string = string> {
  readonly name: string;
  readonly values: readonly [Value, ...Value[]];
  readonly description: string | undefined;
  /** A schema of one value, named after the vocabulary for GraphQL; `description` describes the field using it. */
  schema(description?: string): z.ZodEnum<{ [Key in Value]: Key }>;
}

const registered = new Map<string, readonly string[]>();

function sameValues(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((value, index) => value === b[index]);
}

/**
 * Names a set of values: a Prisma enum object (`TenantStatus`) or a list.
 * Defining one name twice with other values is a programming error and stops
 * the process at start.
 */
export function defineEnum<const Values extends Readonly<Record<string, string>> | readonly [string, ...string[]]>(
  name: string,
  values: Values,
  description?: string,
): Vocabulary<Values extends readonly string[] ? Values[number] : Values[keyof Values] & string> {
  type Value = Values extends readonly string[] ? Values[number] : Values[keyof Values] & string;
  const list = (Array.isArray(values) ? [...values] : Object.values(values)) as [Value, ...Value[]];
  if (list.length === 0) throw new Error(`enum ${name} has no values`);
  const known = registered.get(name);
  if (known && !sameValues(known, list)) {
    throw new Error(`enum ${name} is defined twice with different values: ${known.join(', ')} and ${list.join(', ')}`);
  }
  registered.set(name, list);
  return {
    name,
    values: list,
    description,
    schema(fieldDescription) {
      const base = z.enum(list, { error: `must be one of: ${list.join(', ')}` });
      const schema = (fieldDescription === undefined ? base : base.describe(fieldDescription)) as unknown as z.ZodEnum<{
        [Key in Value]: Key;
      }>;
      enumNames.add(schema, { name });
      return schema;
    },
  };
}
