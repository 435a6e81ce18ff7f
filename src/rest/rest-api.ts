import type { GraphQLSchema } from 'graphql';
import { sessionCookieName } from '../auth/session-cookie.js';
import { buildOpenApiDocument, type OpenApiDocument } from './openapi.js';
import { routeTable, type NativeRouteSpec } from './route-table.js';
import { compileRoutes, isNative, type RestRoute } from './routes.js';
import { flatResourceSchema } from './sofa.js';

export interface RestApi {
  routes: RestRoute[];
  /** Routes with their own handlers (sign-in), for the document. */
  nativeRoutes: NativeRouteSpec[];
  /** The schema as REST sees it: resources with their own fields, no relations. */
  restSchema: GraphQLSchema;
}

/** The route table compiled against the schema; done once per process. */
export function compileRestApi(schema: GraphQLSchema): RestApi {
  return {
    routes: compileRoutes(schema, routeTable),
    nativeRoutes: routeTable.filter(isNative),
    restSchema: flatResourceSchema(schema),
  };
}

export function openApiDocumentOf(api: RestApi, serverUrl: string, version: string): OpenApiDocument {
  return buildOpenApiDocument({
    routes: api.routes,
    nativeRoutes: api.nativeRoutes,
    restSchema: api.restSchema,
    serverUrl,
    version,
    sessionCookieName,
  });
}
