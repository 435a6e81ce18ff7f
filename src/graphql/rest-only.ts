/**
 * Types REST answers with that GraphQL has no field for (a detailed report's
 * row: GraphQL reads the same entries as `Entry`). They are declared with
 * Pothos like every type, so that REST renders them and OpenAPI describes
 * them from one declaration, and left out of the GraphQL schema.
 */
import { MapperKind, mapSchema } from '@graphql-tools/utils';
import type { GraphQLSchema } from 'graphql';

/** `extensions` of a REST-only object type. */
export const restOnly = { restOnly: true } as const;

/** The schema GraphQL serves: without the REST-only types. */
export function withoutRestOnlyTypes(schema: GraphQLSchema): GraphQLSchema {
  return mapSchema(schema, {
    [MapperKind.OBJECT_TYPE]: (type) => ((type.extensions as { restOnly?: unknown }).restOnly === true ? null : type),
  });
}
