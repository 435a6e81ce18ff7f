/**
 * sofa-api turns a GraphQL field into an HTTP operation: it builds the
 * selection for the return type and executes it. We give it one internal POST
 * route per REST route (`/Query/notes`) and call it only from the REST router,
 * which owns the public paths, validation and error format; so sofa's own
 * routes for other fields and its `/webhook` routes are never reachable.
 */
import { execute as toolsExecute } from '@graphql-tools/executor';
import { mapSchema, MapperKind } from '@graphql-tools/utils';
import {
  getNamedType,
  isObjectType,
  type execute as graphqlExecute,
  type GraphQLSchema,
} from 'graphql';
import { useSofa } from 'sofa-api';
import type { GraphQLContext } from '../graphql/context.js';
import { exposedErrorOf } from '../graphql/errors.js';
import type { AppError } from '../lib/errors.js';
import type { Logger } from '../lib/logger.js';
import type { CompiledGraphQLRoute, CompiledRoute } from './compile.js';

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
 * (`Note.author`) stay GraphQL-only, which keeps REST bodies flat and stops
 * sofa from expanding them into nested selections.
 */
export function flatResourceSchema(schema: GraphQLSchema): GraphQLSchema {
  return mapSchema(schema, {
    [MapperKind.OBJECT_FIELD]: (fieldConfig, _fieldName, typeName) =>
      !rootTypes.has(typeName) && isRelationField(fieldConfig.type, fieldConfig.args) ? null : fieldConfig,
  });
}

/** The error with the highest status decides the answer, as sofa itself would. */
function decisiveError(errors: readonly unknown[], log: Logger): AppError {
  return errors
    .map((error) => exposedErrorOf(error, log))
    .reduce((worst, error) => (error.status > worst.status ? error : worst));
}

export interface SofaBridge {
  /** Runs a route's field with `variables`; resolves to the field's data as JSON text, or an AppError. */
  run(route: CompiledGraphQLRoute, variables: Record<string, unknown>, context: GraphQLContext): Promise<{ json: string } | { error: AppError }>;
}

/** `restSchema` is the flat resource schema (see flatResourceSchema). */
const internalPathOf = (route: CompiledGraphQLRoute): string => `/${route.rootType}/${route.fieldName}`;

export function createSofaBridge(restSchema: GraphQLSchema, routes: readonly CompiledRoute[]): SofaBridge {
  const graphqlRoutes = routes.filter((route): route is CompiledGraphQLRoute => route.kind === 'graphql');
  const errorsByResponse = new WeakMap<object, readonly unknown[]>();
  const router = useSofa({
    schema: restSchema,
    basePath: '/',
    routes: Object.fromEntries(graphqlRoutes.map((route) => [route.field, { method: 'POST', path: internalPathOf(route) }])),
    // The tools executor reports variable errors as 400 where graphql-js says 500.
    // sofa's types predate its incremental-delivery results, which sofa never asks for.
    execute: toolsExecute as unknown as typeof graphqlExecute,
    // sofa hands us the raw errors; `run` normalises them with the request's logger.
    errorHandler: (errors) => {
      const response = new Response(null, { status: 500 });
      errorsByResponse.set(response, errors);
      return response as never;
    },
    openAPI: { endpoint: false },
    swaggerUI: { endpoint: false },
  });

  return {
    async run(route, variables, context) {
      const request = new Request(`http://sofa.internal${internalPathOf(route)}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(variables),
      });
      const response = (await router.fetch(request, context)) as Response | undefined;
      if (!response) throw new Error(`sofa has no route for ${internalPathOf(route)}`);
      const errors = errorsByResponse.get(response);
      if (errors) return { error: decisiveError(errors, context.log) };
      // Already JSON: passed through as text rather than parsed and serialised again.
      return { json: await response.text() };
    },
  };
}
