/**
 * The GraphQL schema as REST sees it. REST answers with resources' own
 * fields; relations and connections are GraphQL's alone.
 */
import { mapSchema, MapperKind } from '@graphql-tools/utils';
import { getNamedType, isObjectType, type GraphQLSchema } from 'graphql';

const rootTypes = new Set(['Query', 'Mutation', 'Subscription']);

/** A field REST leaves out: relations to other resources and connections (GraphQL-only). */
function isRelationField(type: unknown, args: object | undefined): boolean {
  const named = getNamedType(type as Parameters<typeof getNamedType>[0]);
  if (!isObjectType(named)) return false;
  if (args !== undefined && Object.keys(args).length > 0) return true;
  return named.extensions.pothosPrismaModel !== undefined || named.name.endsWith('Connection');
}

/**
 * The schema as REST sees it: each resource with its own fields. Relations
 * (`Note.author`) stay GraphQL-only, which keeps REST bodies flat and keeps
 * each route's selection to the resource's own fields.
 */
export function flatResourceSchema(schema: GraphQLSchema): GraphQLSchema {
  return mapSchema(schema, {
    [MapperKind.OBJECT_FIELD]: (fieldConfig, _fieldName, typeName) =>
      !rootTypes.has(typeName) && isRelationField(fieldConfig.type, fieldConfig.args) ? null : fieldConfig,
  });
}
