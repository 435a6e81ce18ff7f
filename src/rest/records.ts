/**
 * A record as REST answers with its GraphQL type: what native rows return
 * (an uploaded invoice as the upload committed it, not a second read that a
 * worker may already have changed). Each field is resolved from the record
 * as GraphQL resolves it when nested, scalars serialised.
 */
import {
  getNamedType,
  GraphQLSchema,
  isLeafType,
  isObjectType,
  Kind,
  OperationTypeNode,
  type DocumentNode,
  type GraphQLObjectType,
  type SelectionSetNode,
} from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';

/**
 * Every field of `type`, and of the plain objects it holds (an import's
 * `counts`), as a selection set. Relations are not in the REST schema, so
 * what is left nests only values.
 */
function selectionOf(type: GraphQLObjectType, path: readonly string[] = []): SelectionSetNode {
  if (path.length > 3) throw new Error(`${path.join('.')}: REST answers with resources nested at most three levels`);
  return {
    kind: Kind.SELECTION_SET,
    selections: Object.values(type.getFields()).map((field) => {
      const named = getNamedType(field.type);
      if (!isLeafType(named) && !isObjectType(named)) throw new Error(`${type.name}.${field.name}: REST answers with scalars, enums and plain objects`);
      return {
        kind: Kind.FIELD,
        name: { kind: Kind.NAME, value: field.name },
        ...(isObjectType(named) ? { selectionSet: selectionOf(named, [...path, field.name]) } : {}),
      };
    }),
  };
}

/**
 * A query of every field of `type`, compiled against a schema whose root is
 * that type: run with a record as the root value, it resolves the record as a
 * nested field of that type would be.
 */
function recordQueryOf(type: GraphQLObjectType): CompiledQuery {
  const document: DocumentNode = {
    kind: Kind.DOCUMENT,
    definitions: [{ kind: Kind.OPERATION_DEFINITION, operation: OperationTypeNode.QUERY, selectionSet: selectionOf(type, [type.name]) }],
  };
  const compiled = compileQuery(new GraphQLSchema({ query: type }), document, undefined, { disablingCapturingStackErrors: true });
  if (!isCompiledQuery(compiled)) throw new Error(`rendering ${type.name}: ${compiled.errors?.[0]?.message}`);
  return compiled;
}

export interface RecordRenderer {
  /** `record` as JSON of the REST schema's `typeName`; throws the first error a field raised. */
  render(typeName: string, record: object, context: object): Promise<string>;
}

/** `restSchema` is the flat resource schema (rest-schema.ts); each type's query is compiled on first use. */
export function createRecordRenderer(restSchema: GraphQLSchema): RecordRenderer {
  const queries = new Map<string, CompiledQuery>();
  return {
    async render(typeName, record, context) {
      let query = queries.get(typeName);
      if (!query) {
        const type = restSchema.getType(typeName);
        if (!isObjectType(type)) throw new Error(`the REST schema has no object type ${typeName}`);
        query = recordQueryOf(type);
        queries.set(typeName, query);
      }
      const result = await query.query(record, context, {});
      if (result.errors && result.errors.length > 0) throw result.errors[0];
      return JSON.stringify(result.data ?? null);
    },
  };
}
