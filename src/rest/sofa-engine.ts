/**
 * sofa-api, the engine of every GraphQL-backed REST row (CONTRACT.md section
 * 1): its router registers each row from the `routes` config (method, path,
 * status, tag, description), builds each row's operation document once, and
 * serves the row: it runs the field with our `context`, our `execute` and our
 * `errorHandler`, and answers with the field's value and the row's status.
 *
 * The adapter (router.ts) has decided everything about a request before sofa
 * runs it: the row, its path and query, the caller's permission, the body (as
 * the row's DTO, validated) and its Idempotency-Key. It hands sofa's router
 * the request's method and path and, as the server context, a FieldRun: what
 * to run, prepared. sofa's `context` passes that on to `execute`, which runs
 * the row's document through graphql-jit (compiled once per row) with the
 * validated input as the root value (PreparedInvocation).
 *
 * Where sofa is short of the contract, the adapter works around it, never
 * inside it:
 * - sofa would fill variables by name from the query string and the top-level
 *   keys of the body, and coerce them with GraphQL's scalars. Our rows take
 *   the body as the DTO (`{"content": "..."}`), refuse unknown parameters and
 *   name bad fields. So sofa is handed the method and the path only, and
 *   `execute` takes the variables the adapter prepared.
 * - sofa would route every Query and Mutation field of its schema: it is given
 *   a schema of the REST rows' fields only, the flat resources
 *   (rest-schema.ts), in the order its router must try them.
 * - its OpenAPI document and Swagger UI are switched off: ours is built from
 *   the rows (openapi.ts).
 *
 * Two hooks sofa lacked are patched in, written to go upstream
 * (patches/sofa-api+0.18.10.patch): `plugins`, handed to the feTS router it
 * creates, through which an `onRoute` plugin sees every route sofa registers
 * (so the engine checks, at start, that sofa serves each row where the table
 * says and tries them in the table's order); and no `/webhook` routes
 * (subscriptions by callback) for a schema without a Subscription type.
 */
import { GraphQLError, GraphQLObjectType, type DocumentNode, type ExecutionArgs, type ExecutionResult, type GraphQLSchema } from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';
import { mapSchema, MapperKind } from '@graphql-tools/utils';
import { Response, type RouterPlugin } from 'fets';
import { useSofa } from 'sofa-api';
import type { PreparedInvocation } from '../graphql/operations.js';
import type { HttpResult } from '../lib/problem.js';
import { assertSameChoice, byPrecedence, routerPathOf, type CompiledGraphQLRoute, type CompiledRoute } from './compile.js';

/** One request of a GraphQL-backed row, prepared by the adapter: what sofa's router is to run. */
export interface FieldRun<Call = unknown> {
  route: CompiledGraphQLRoute;
  /** The request's path as the adapter matched it (segments percent-encoded again): what sofa's router matches. */
  path: string;
  /** The GraphQL context of the request. */
  context: object;
  /** The row's variables as sent: the path and query values, and the body as `input`. */
  variables: Record<string, unknown>;
  /** The validated input, the root value of the operation. */
  invocation: PreparedInvocation;
  /** The adapter's own per-request state, handed back to `problem`. */
  call: Call;
}

export interface SofaEngineOptions<Call> {
  /** The flat resource schema (rest-schema.ts). */
  restSchema: GraphQLSchema;
  /** Every row of the table: sofa registers the GraphQL-backed ones, and must try them in the table's order. */
  routes: readonly CompiledRoute[];
  /**
   * The answer to a failed run (problem+json): the errors its field raised
   * (or the one its execution threw). `call` is undefined only for a failure
   * of sofa's own before it runs the field, which our rows do not cause.
   */
  problem(errors: readonly unknown[], call: Call | undefined): HttpResult & { body: string };
}

export interface SofaEngine<Call> {
  /** The routes sofa's router registered, in the order it registered them. */
  registered: readonly { method: string; path: string }[];
  /** Has sofa's router serve a prepared row: it matches the path, runs the row's operation, and answers. */
  run(run: FieldRun<Call>): Promise<HttpResult>;
}

/** A run's failure, carrying its run to sofa's error handler (which sofa calls with the errors alone). */
class RunFailure extends GraphQLError {
  constructor(
    readonly failures: readonly unknown[],
    readonly run: FieldRun,
  ) {
    super('The field failed', { originalError: failures[0] instanceof Error ? failures[0] : undefined });
  }
}

/** sofa's name for the operation of a row: `<field>_<query|mutation>`. */
const operationNameOf = (route: CompiledGraphQLRoute): string => `${route.fieldName}_${route.rootType === 'Query' ? 'query' : 'mutation'}`;

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

/**
 * Refuses a router that does not serve exactly the rows, or would choose
 * another row than the table for some path (feTS tries literal paths first,
 * then patterns as they were registered).
 */
function assertServesTheRows(registered: readonly { method: string; path: string }[], routes: readonly CompiledRoute[]): void {
  const graphqlRoutes = routes.filter((route): route is CompiledGraphQLRoute => route.kind === 'graphql');
  const rowOf = new Map(graphqlRoutes.map((route) => [`${route.method} ${routerPathOf(route)}`, route]));
  const served = registered.map(({ method, path }) => {
    const route = rowOf.get(`${method} ${path}`);
    if (!route) throw new Error(`sofa registered ${method} ${path}, which no row of the route table names`);
    return route;
  });
  const missing = graphqlRoutes.filter((route) => !served.includes(route)).map((route) => `${route.method} ${route.path}`);
  if (missing.length > 0 || served.length !== graphqlRoutes.length) {
    const named = missing.length > 3 ? `${missing.slice(0, 3).join(', ')} and ${missing.length - 3} more` : missing.join(', ');
    throw new Error(`sofa did not register each row once: ${named || 'a row twice'}`);
  }
  const literal = (route: CompiledRoute): boolean => route.segments.every((segment) => 'literal' in segment);
  assertSameChoice([...served.filter(literal), ...served.filter((route) => !literal(route))], byPrecedence(routes));
}

/** An answer as the server writes it. 204 carries no body and no content type (sofa's JSON would say `null`). */
async function resultOf(response: globalThis.Response): Promise<HttpResult> {
  if (response.status === 204) return { status: 204, headers: {} };
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  return { status: response.status, headers, body: await response.text() };
}

/** sofa's router for the GraphQL-backed rows. */
export function createSofaEngine<Call>({ restSchema, routes, problem }: SofaEngineOptions<Call>): SofaEngine<Call> {
  const graphqlRoutes = routes.filter((route): route is CompiledGraphQLRoute => route.kind === 'graphql');
  // A table of native rows only (a test's) has nothing for sofa to serve; given a schema, sofa would route every query of it.
  if (graphqlRoutes.length === 0) {
    return { registered: [], run: async ({ route }) => Promise.reject(new Error(`no GraphQL-backed row is served here: ${route.path}`)) };
  }
  const schema = routedSchema(restSchema, graphqlRoutes);
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

  async function execute({ document, contextValue, operationName }: ExecutionArgs): Promise<ExecutionResult> {
    const run = contextValue as FieldRun;
    try {
      if (operationName !== operationNameOf(run.route)) {
        throw new Error(`sofa's router ran ${operationName} for the row ${run.route.method} ${run.route.path}`);
      }
      const result = await compiledFor(document).query(run.invocation, run.context, run.variables);
      if (!result.errors || result.errors.length === 0) return result as ExecutionResult;
      return { errors: [new RunFailure(result.errors, run)] };
    } catch (error) {
      return { errors: [new RunFailure([error], run)] };
    }
  }

  const registered: { method: string; path: string }[] = [];
  const recordRoutes: RouterPlugin<{ run: FieldRun<Call> }, Record<string, never>> = {
    onRoute: ({ route }) => void registered.push({ method: String(route.method), path: route.path }),
  };
  const router = useSofa({
    basePath: '/',
    schema,
    routes: Object.fromEntries(
      graphqlRoutes.map((route) => [
        route.field,
        { method: route.method, path: routerPathOf(route), responseStatus: route.status, tags: [route.tag], description: route.summary },
      ]),
    ),
    plugins: [recordRoutes],
    // The server context carries the prepared run; execute gets it as the context value.
    context: (serverContext) => (serverContext as unknown as { run: FieldRun<Call> }).run,
    execute: execute as NonNullable<Parameters<typeof useSofa>[0]['execute']>,
    errorHandler(errors) {
      const failure = errors.find((error): error is RunFailure => error instanceof RunFailure);
      const { status, headers, body } = failure ? problem(failure.failures, failure.run.call as Call) : problem(errors, undefined);
      return new Response(body, { status, headers });
    },
    openAPI: { endpoint: false },
    swaggerUI: { endpoint: false },
  });
  assertServesTheRows(registered, routes);
  // Read once: the router is a Proxy that binds a fresh function on every read of a method.
  const fetchRouted = router.fetch;

  return {
    registered,
    async run(run) {
      // The router sees the method and the path only: the adapter has read the query string and the body.
      return resultOf(await fetchRouted(`http://localhost${run.path}`, { method: run.route.method }, { run }));
    },
  };
}
