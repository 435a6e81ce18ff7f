/**
 * The composition root of an API process: everything built once at start
 * (schema, routes, OpenAPI, services) and shared by every request.
 */
import type { GraphQLSchema } from 'graphql';
import type { Config } from './config.js';
import type { Actor } from './auth/actor.js';
import { createAuthenticator, type Authenticator } from './auth/authenticate.js';
import { createAuth, type Auth } from './auth/better-auth.js';
import { createSessionResolver } from './auth/sessions.js';
import { createSignInRules } from './auth/sign-in.js';
import type { Db } from './db/client.js';
import { createGraphQLContext, type GraphQLContext } from './graphql/context.js';
import { schema } from './graphql/schema.js';
import { createAuthRoutes, type AuthRoutes } from './http/auth-routes.js';
import { createDocsHandler, type DocsHandler } from './http/docs.js';
import { createGraphQLServer, type GraphQLServer } from './http/graphql.js';
import { createHealthCheck } from './http/health.js';
import { createOriginPolicy, type OriginPolicy } from './http/origins.js';
import type { HttpResult } from './http/problem.js';
import type { Logger } from './lib/logger.js';
import type { Secrets } from './lib/secrets.js';
import type { OpenApiDocument } from './rest/openapi.js';
import { compileRestApi, openApiDocumentOf } from './rest/rest-api.js';
import { createRestRouter, type RestRouter } from './rest/rest-router.js';
import { RouteMatcher } from './rest/routes.js';
import { createSofaBridge } from './rest/sofa.js';
import { createServices, type Services } from './services.js';
import { version } from './version.js';

export interface App {
  config: Config;
  log: Logger;
  db: Db;
  services: Services;
  schema: GraphQLSchema;
  openApi: OpenApiDocument;
  auth: Auth;
  authRoutes: AuthRoutes;
  origins: OriginPolicy;
  authenticator: Authenticator;
  graphql: GraphQLServer;
  rest: RestRouter;
  docs: DocsHandler;
  health(): Promise<HttpResult>;
  /** The GraphQL context of one request (REST runs through GraphQL too). */
  contextFor(actor: Actor | null, requestId: string, log: Logger): GraphQLContext;
}

export interface AppOptions {
  config: Config;
  secrets: Secrets;
  log: Logger;
  db: Db;
  embeddedDatabase: boolean;
}

export function createApp({ config, secrets, log, db, embeddedDatabase }: AppOptions): App {
  const services = createServices({ db });
  const restApi = compileRestApi(schema);
  const openApi = openApiDocumentOf(restApi, config.baseUrl, version);
  const origins = createOriginPolicy(config.trustedOrigins);
  const afterSignIn = createSignInRules({ db, users: services.users, superadminEmails: config.superadminEmails, log });
  const auth = createAuth({ config, secrets, db, log, afterSignIn });
  return {
    config,
    log,
    db,
    services,
    schema,
    openApi,
    auth,
    authRoutes: createAuthRoutes({ auth, config, origins }),
    origins,
    authenticator: createAuthenticator({ apiKeys: services.apiKeys, resolveSession: createSessionResolver(auth) }),
    graphql: createGraphQLServer({ schema, log }),
    rest: createRestRouter({
      matcher: new RouteMatcher(restApi.routes),
      sofa: createSofaBridge(restApi.restSchema, restApi.routes),
    }),
    docs: createDocsHandler(openApi),
    health: createHealthCheck({ db, version, embeddedDatabase }),
    contextFor: (actor, requestId, requestLog) =>
      createGraphQLContext({ db, services }, { actor, requestId, log: requestLog }),
  };
}
