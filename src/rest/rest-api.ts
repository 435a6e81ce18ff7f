import type { GraphQLSchema } from 'graphql';
import { buildOpenApiDocument, type OpenApiDocument } from './openapi.js';
import { routeTable } from './route-table.js';
import { compileRoutes, type RestRoute } from './routes.js';
import { flatResourceSchema } from './sofa.js';

export interface RestApi {
  routes: RestRoute[];
  /** The schema as REST sees it: resources with their own fields, no relations. */
  restSchema: GraphQLSchema;
}

/** The route table compiled against the schema; done once per process. */
export function compileRestApi(schema: GraphQLSchema): RestApi {
  return { routes: compileRoutes(schema, routeTable), restSchema: flatResourceSchema(schema) };
}

/** Name of the session cookie on plain http (better-auth adds `__Secure-` behind https). */
export const sessionCookieName = 'service.session_token';

export function openApiDocumentOf(api: RestApi, serverUrl: string, version: string): OpenApiDocument {
  return buildOpenApiDocument({
    routes: api.routes,
    restSchema: api.restSchema,
    serverUrl,
    version,
    sessionCookieName,
  });
}
