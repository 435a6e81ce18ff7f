/**
 * Runs the GraphQL field behind a REST row, without any HTTP in between: the
 * operation document of each row is built and validated once, at start (the
 * selection sofa-api would build: every field of the returned resource, no
 * relations), and each request only executes it with the row's variables.
 */
import { buildOperationNodeForField } from '@graphql-tools/utils';
import {
  getNamedType,
  GraphQLSchema,
  isLeafType,
  isObjectType,
  Kind,
  OperationTypeNode,
  validate,
  type DocumentNode,
  type ExecutionResult,
  type GraphQLObjectType,
} from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';
import type { GraphQLContext } from '../graphql/context.js';
import { exposedErrorOf } from '../graphql/errors.js';
import type { AppError } from '../lib/errors.js';
import type { Logger } from '../lib/logger.js';
import type { CompiledGraphQLRoute, CompiledRoute } from './compile.js';

export type FieldOutcome = { json: string } | { error: AppError };

export interface FieldExecutor {
  /** Runs a route's field with `variables`; resolves to the field's data as JSON text, or the error that decides the answer. */
  run(route: CompiledGraphQLRoute, variables: Record<string, unknown>, context: GraphQLContext): Promise<FieldOutcome>;
  /**
   * A record as REST answers with its type (`Invoice`): each field resolved
   * from it as GraphQL would, scalars serialised. What native rows return:
   * the record as the request left it, not a second read that a worker may
   * already have changed.
   */
  renderRecord(typeName: string, record: object, context: GraphQLContext): Promise<FieldOutcome>;
}

/** The error with the highest status decides the answer. */
function decisiveError(errors: readonly unknown[], log: Logger): AppError {
  return errors
    .map((error) => exposedErrorOf(error, log))
    .reduce((worst, error) => (error.status > worst.status ? error : worst));
}

function operationOf(restSchema: GraphQLSchema, route: CompiledGraphQLRoute): DocumentNode {
  const operation = buildOperationNodeForField({
    schema: restSchema,
    kind: route.rootType === 'Query' ? OperationTypeNode.QUERY : OperationTypeNode.MUTATION,
    field: route.fieldName,
    models: [],
    ignore: [],
    circularReferenceDepth: 1,
  });
  const document: DocumentNode = { kind: Kind.DOCUMENT, definitions: [operation] };
  const errors = validate(restSchema, document);
  if (errors.length > 0) throw new Error(`route ${route.method} ${route.path}: its operation does not validate: ${errors[0]?.message}`);
  return document;
}

/**
 * A query of every field of `type`, compiled against a schema whose root is
 * that type: run with a record as the root value, it resolves the record as a
 * nested field of that type would be.
 */
function recordQueryOf(type: GraphQLObjectType): CompiledQuery {
  const fields = Object.values(type.getFields());
  if (!fields.every((field) => isLeafType(getNamedType(field.type)))) {
    throw new Error(`${type.name} has fields that are not scalars or enums; REST answers with flat resources`);
  }
  const document: DocumentNode = {
    kind: Kind.DOCUMENT,
    definitions: [
      {
        kind: Kind.OPERATION_DEFINITION,
        operation: OperationTypeNode.QUERY,
        selectionSet: {
          kind: Kind.SELECTION_SET,
          selections: fields.map((field) => ({ kind: Kind.FIELD, name: { kind: Kind.NAME, value: field.name } })),
        },
      },
    ],
  };
  const compiled = compileQuery(new GraphQLSchema({ query: type }), document, undefined, { disablingCapturingStackErrors: true });
  if (!isCompiledQuery(compiled)) throw new Error(`rendering ${type.name}: ${compiled.errors?.[0]?.message}`);
  return compiled;
}

/** `restSchema` is the flat resource schema (see flatResourceSchema). */
export function createFieldExecutor(restSchema: GraphQLSchema, routes: readonly CompiledRoute[]): FieldExecutor {
  const queries = new Map<string, CompiledQuery>(
    routes.flatMap((route) => {
      if (route.kind !== 'graphql') return [];
      const compiled = compileQuery(restSchema, operationOf(restSchema, route), undefined, { disablingCapturingStackErrors: true });
      if (!isCompiledQuery(compiled)) throw new Error(`route ${route.method} ${route.path}: ${compiled.errors?.[0]?.message}`);
      return [[route.field, compiled] as const];
    }),
  );
  const recordQueries = new Map<string, CompiledQuery>();
  return {
    async run(route, variables, context) {
      const query = queries.get(route.field) as CompiledQuery;
      const result: ExecutionResult = await query.query(undefined, context, variables);
      if (result.errors && result.errors.length > 0) return { error: decisiveError(result.errors, context.log) };
      // One field, already plain data: serialised once, straight to the body.
      return { json: JSON.stringify(result.data?.[route.fieldName] ?? null) };
    },
    async renderRecord(typeName, record, context) {
      let query = recordQueries.get(typeName);
      if (!query) {
        const type = restSchema.getType(typeName);
        if (!isObjectType(type)) throw new Error(`the REST schema has no object type ${typeName}`);
        query = recordQueryOf(type);
        recordQueries.set(typeName, query);
      }
      const result: ExecutionResult = await query.query(record, context, {});
      if (result.errors && result.errors.length > 0) return { error: decisiveError(result.errors, context.log) };
      return { json: JSON.stringify(result.data ?? null) };
    },
  };
}
