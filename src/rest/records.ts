/**
 * A record as REST answers with its GraphQL type: what native rows return
 * (an uploaded invoice as the upload committed it, not a second read that a
 * worker may already have changed), and lists of them (a feed, a report's
 * rows). Each field is resolved from the record as GraphQL resolves it when
 * nested, scalars serialised.
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
import type { TenantAccess } from '../auth/tenant-access.js';
import { rateHiderOf, seesRates } from '../graphql/rates.js';

/**
 * Every field of `type`, and of the plain objects it holds (an import's
 * `counts`, a summary's groups and their totals), as a selection set.
 * Relations are not in the REST schema, so what is left nests only values.
 * A type nests in itself once at most (a report's groups hold sub-groups,
 * which hold none).
 */
function selectionOf(type: GraphQLObjectType, path: readonly string[], outer: readonly GraphQLObjectType[] = []): SelectionSetNode {
  if (path.length > 4) throw new Error(`${path.join('.')}: REST answers with resources nested at most four levels`);
  const within = [...outer, type];
  return {
    kind: Kind.SELECTION_SET,
    selections: Object.values(type.getFields()).flatMap((field) => {
      const named = getNamedType(field.type);
      if (!isLeafType(named) && !isObjectType(named)) throw new Error(`${type.name}.${field.name}: REST answers with scalars, enums and plain objects`);
      if (isObjectType(named) && within.filter((each) => each === named).length >= 2) return [];
      return [
        {
          kind: Kind.FIELD,
          name: { kind: Kind.NAME, value: field.name },
          ...(isObjectType(named) ? { selectionSet: selectionOf(named, [...path, field.name], within) } : {}),
        },
      ];
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
  /** `record` (or each of `records`) as JSON of the REST schema's `typeName`; throws the first error a field raised. */
  render(typeName: string, record: object | readonly object[], context: object): Promise<string>;
  /**
   * Records of `typeName` as a caller sees them where no GraphQL runs (a file): with the type's Rate fields null
   * unless `access` may read rates (src/graphql/rates.ts). The identity for those who may.
   */
  visible<Row extends object>(typeName: string, access: TenantAccess): (row: Row) => Row;
}

/** `restSchema` is the flat resource schema (rest-schema.ts); each type's query is compiled on first use. */
export function createRecordRenderer(restSchema: GraphQLSchema): RecordRenderer {
  const queries = new Map<string, CompiledQuery>();
  const typeOf = (typeName: string): GraphQLObjectType => {
    const type = restSchema.getType(typeName);
    if (!isObjectType(type)) throw new Error(`the REST schema has no object type ${typeName}`);
    return type;
  };
  const renderOne = async (query: CompiledQuery, record: object, context: object): Promise<string> => {
    const result = await query.query(record, context, {});
    if (result.errors && result.errors.length > 0) throw result.errors[0];
    return JSON.stringify(result.data ?? null);
  };
  return {
    async render(typeName, record, context) {
      let query = queries.get(typeName);
      if (!query) {
        query = recordQueryOf(typeOf(typeName));
        queries.set(typeName, query);
      }
      if (!isRecordList(record)) return renderOne(query, record, context);
      const rendered: string[] = [];
      for (const each of record) rendered.push(await renderOne(query, each, context));
      return `[${rendered.join(',')}]`;
    },
    visible<Row extends object>(typeName: string, access: TenantAccess) {
      const hide = seesRates(access) ? undefined : rateHiderOf(typeOf(typeName));
      return (hide ?? ((row: object) => row)) as unknown as (row: Row) => Row;
    },
  };
}

const isRecordList = (value: object | readonly object[]): value is readonly object[] => Array.isArray(value);
