/**
 * sofa-api, the engine of every GraphQL-backed REST row (CONTRACT.md section
 * 1): its router registers each row from the `routes` config (method, path,
 * status, tag, description), matches requests, builds each route's operation
 * document once, maps path parameters to variables, and runs the field with
 * our context, our `execute` and our `errorHandler`.
 *
 * Where sofa is short of the contract, the adapter works around it, never
 * inside it:
 * - sofa would fill variables by name from the query string and the top-level
 *   keys of the body, and coerce them with GraphQL's scalars. Our rows take
 *   the body as the DTO (`{"content": "..."}`), refuse unknown parameters and
 *   name bad fields. So sofa is handed the method and the path only; our
 *   `execute` reads and validates the query and the body against the row's
 *   zod schemas (src/rest/request-input.ts) and runs sofa's document with the
 *   validated invocation as the root value (PreparedInvocation).
 * - sofa would route every Query and Mutation field of its schema: it is given
 *   a schema of the REST rows' fields only, the flat resources
 *   (rest-schema.ts), in the order its router must try them (`/users/me`
 *   before `/users/{id}`).
 * - its OpenAPI document and Swagger UI are switched off: ours is built from
 *   the rows (openapi.ts).
 * - its `/webhook` routes (subscriptions by callback) are not registered: a
 *   schema without a Subscription type has nothing to deliver, and our patch
 *   of sofa (patches/sofa-api+0.18.10.patch, written to go upstream) leaves
 *   them out then.
 */
import { GraphQLError, GraphQLObjectType, type DocumentNode, type ExecutionArgs, type ExecutionResult, type GraphQLSchema } from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';
import { mapSchema, MapperKind } from '@graphql-tools/utils';
import { Response } from 'fets';
import { useSofa } from 'sofa-api';
import type { PreparedInvocation } from '../graphql/operations.js';
import type { AppError } from '../lib/errors.js';
import { byPrecedence, routerPathOf, type CompiledGraphQLRoute, type CompiledRoute } from './compile.js';

/** What the adapter prepares for one execution: the context, the variables as sent, and the validated invocation. */
export interface PreparedExecution {
  context: object;
  variables: Record<string, unknown>;
  invocation: PreparedInvocation;
}

export interface SofaEngineOptions<Call extends object> {
  /** The flat resource schema (rest-schema.ts). */
  restSchema: GraphQLSchema;
  routes: readonly CompiledRoute[];
  /**
   * Reads, validates and admits one request of a row: its path values (as
   * sofa matched them, by argument name), query and body. Throws an error
   * to refuse it.
   */
  prepare(route: CompiledGraphQLRoute, call: Call, pathValues: Record<string, string>): Promise<PreparedExecution>;
  /** The error a caller may see, logged when internal (one per request: the decisive one). */
  expose(error: unknown, call: Call | undefined): AppError;
  /** The problem+json answer of an error. */
  problem(error: AppError, call: Call | undefined): { status: number; headers: Record<string, string>; body: string };
}

/** An execution's failure, carrying the request it belongs to to sofa's error handler. */
class RowFailure extends GraphQLError {
  constructor(
    readonly failure: AppError,
    readonly call: object,
  ) {
    super(failure.message, { originalError: failure });
  }
}

/** The schema sofa routes: only the fields of REST rows, each root's fields in the order the router must try them. */
function routedSchema(restSchema: GraphQLSchema, routes: readonly CompiledGraphQLRoute[]): GraphQLSchema {
  const ordered = byPrecedence(routes);
  const only = (type: GraphQLObjectType, root: 'Query' | 'Mutation'): GraphQLObjectType | null => {
    const fields = type.toConfig().fields;
    const kept = ordered.flatMap((route) => {
      const field = route.rootType === root ? fields[route.fieldName] : undefined;
      return field ? [[route.fieldName, field] as const] : [];
    });
    if (kept.length === 0) return null;
    return new GraphQLObjectType({ ...type.toConfig(), fields: Object.fromEntries(kept) });
  };
  return mapSchema(restSchema, {
    [MapperKind.QUERY]: (type) => only(type, 'Query') ?? type,
    [MapperKind.MUTATION]: (type) => only(type, 'Mutation'),
    [MapperKind.SUBSCRIPTION]: () => null,
  });
}

/** The order in which sofa registers routes: its queries, then its mutations, each as routedSchema ordered them. */
export function sofaRegistrationOrder(routes: readonly CompiledRoute[]): CompiledGraphQLRoute[] {
  const graphqlRoutes = byPrecedence(routes.filter((route): route is CompiledGraphQLRoute => route.kind === 'graphql'));
  return [...graphqlRoutes.filter((route) => route.rootType === 'Query'), ...graphqlRoutes.filter((route) => route.rootType === 'Mutation')];
}

/** sofa's router for the GraphQL-backed rows; the native rows and the fallback are added to it by the adapter. */
export function createSofaEngine<Call extends object>({ restSchema, routes, prepare, expose, problem }: SofaEngineOptions<Call>) {
  const graphqlRoutes = routes.filter((route): route is CompiledGraphQLRoute => route.kind === 'graphql');
  const schema = routedSchema(restSchema, graphqlRoutes);
  // sofa names each route's operation `<field>_<query|mutation>`.
  const routeByOperation = new Map(graphqlRoutes.map((route) => [`${route.fieldName}_${route.rootType === 'Query' ? 'query' : 'mutation'}`, route]));
  // graphql-jit, compiled once per route document (sofa builds each document once, at start).
  const compiled = new WeakMap<DocumentNode, CompiledQuery>();
  const compiledFor = (document: DocumentNode): CompiledQuery => {
    let query = compiled.get(document);
    if (!query) {
      const result = compileQuery(schema, document, undefined, { disablingCapturingStackErrors: true });
      if (!isCompiledQuery(result)) throw new Error(`a REST route's document does not compile: ${result.errors?.[0]?.message}`);
      query = result;
      compiled.set(document, query);
    }
    return query;
  };

  async function execute({ document, contextValue, variableValues, operationName }: ExecutionArgs): Promise<ExecutionResult> {
    const call = contextValue as Call;
    const route = routeByOperation.get(operationName ?? '');
    try {
      if (!route) throw new Error(`sofa ran an operation of no REST row: ${operationName}`);
      const pathValues = Object.fromEntries(Object.entries(variableValues ?? {}).map(([name, value]) => [name, String(value)]));
      const { context, variables, invocation } = await prepare(route, call, pathValues);
      const result = await compiledFor(document).query(invocation, context, variables);
      if (!result.errors || result.errors.length === 0) return result as ExecutionResult;
      // The error with the highest status decides the answer.
      const decisive = result.errors.map((error) => expose(error, call)).reduce((worst, error) => (error.status > worst.status ? error : worst));
      return { errors: [new RowFailure(decisive, call)] };
    } catch (error) {
      return { errors: [new RowFailure(expose(error, call), call)] };
    }
  }

  const router = useSofa({
    basePath: '/',
    schema,
    routes: Object.fromEntries(
      graphqlRoutes.map((route) => [
        route.field,
        { method: route.method, path: routerPathOf(route), responseStatus: route.status, tags: [route.tag], description: route.summary },
      ]),
    ),
    // The call (the request, its state and its GraphQL context) goes to execute, which hands the resolvers the GraphQL context.
    context: (serverContext) => serverContext,
    execute: execute as NonNullable<Parameters<typeof useSofa>[0]['execute']>,
    errorHandler(errors) {
      const failure = errors.find((error): error is RowFailure => error instanceof RowFailure);
      // Only sofa itself fails outside execute (it reads no body or query here); such a failure has no call.
      const { status, headers, body } = failure ? problem(failure.failure, failure.call as Call) : problem(expose(errors[0], undefined), undefined);
      return new Response(body, { status, headers });
    },
    openAPI: { endpoint: false },
    swaggerUI: { endpoint: false },
  });
  return { router, schema };
}

export type SofaRouter = ReturnType<typeof createSofaEngine>['router'];
