/**
 * Runs the GraphQL field behind a REST row, without any HTTP in between: the
 * operation document of each row is built and validated once, at start (the
 * selection sofa-api would build: every field of the returned resource, no
 * relations), and each request only executes it with the row's variables.
 */
import { buildOperationNodeForField } from '@graphql-tools/utils';
import { Kind, OperationTypeNode, validate, type DocumentNode, type ExecutionResult, type GraphQLSchema } from 'graphql';
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
  /** Runs the field of another row (`Query.invoice`) to answer as that row would: what native rows return. */
  render(field: CompiledGraphQLRoute['field'], variables: Record<string, unknown>, context: GraphQLContext): Promise<FieldOutcome>;
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
  async function render(field: CompiledGraphQLRoute['field'], variables: Record<string, unknown>, context: GraphQLContext): Promise<FieldOutcome> {
    const query = queries.get(field);
    if (!query) throw new Error(`no REST row runs ${field}`);
    const result: ExecutionResult = await query.query(undefined, context, variables);
    if (result.errors && result.errors.length > 0) return { error: decisiveError(result.errors, context.log) };
    // One field, already plain data: serialised once, straight to the body.
    return { json: JSON.stringify(result.data?.[field.slice(field.indexOf('.') + 1)] ?? null) };
  }
  return { run: (route, variables, context) => render(route.field, variables, context), render };
}
