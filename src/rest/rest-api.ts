import type { GraphQLSchema } from 'graphql';
import { sessionCookieName } from '../auth/session-cookie.js';
import { compileRoutes, type CompiledRoute } from './compile.js';
import { buildOpenApiDocument, type OpenApiDocument } from './openapi.js';
import type { TaggedRouteSpec } from './route.js';
import { flatResourceSchema } from './rest-schema.js';

/** The rows compiled against the schema, and the schema as REST sees it. */
export interface CompiledRestApi {
  routes: CompiledRoute[];
  /** The schema as REST sees it: resources with their own fields, no relations. */
  restSchema: GraphQLSchema;
}

/** The route rows compiled against the schema; done once per process. */
export function compileRestApi(schema: GraphQLSchema, table: readonly TaggedRouteSpec[]): CompiledRestApi {
  return { routes: compileRoutes(schema, table), restSchema: flatResourceSchema(schema) };
}

export function openApiDocumentOf(api: CompiledRestApi, serverUrl: string, version: string): OpenApiDocument {
  return buildOpenApiDocument({ routes: api.routes, restSchema: api.restSchema, serverUrl, version, sessionCookieName });
}
