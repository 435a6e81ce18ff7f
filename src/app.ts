/**
 * The HTTP app of an API process: everything built once at start (schema,
 * routes, OpenAPI, gate, sign-in) and shared by every request. The process
 * itself, services included, is put together by src/runtime.ts.
 */
import type { GraphQLSchema } from 'graphql';
import type { Actor } from './auth/actor.js';
import { createAuthenticator, type Authenticator } from './auth/authenticate.js';
import { createAuth, type LazyAuth } from './auth/better-auth.js';
import { createOriginPolicy, type OriginPolicy } from './auth/origins.js';
import { createSessions } from './auth/sessions.js';
import { createSignInRules } from './auth/sign-in.js';
import type { Config } from './config.js';
import type { Db, Sql } from './db/client.js';
import type { ReadRouting } from './db/replicas.js';
import { createGraphQLContext, type GraphQLContext } from './graphql/context.js';
import type { Services } from './modules/services.js';
import { createDocsHandler, type DocsHandler } from './http/docs.js';
import { createGate } from './http/gate.js';
import type { Gate, RequestState } from './request/request.js';
import { createClientAddressOf } from './lib/client-address.js';
import { createIdempotency, type Idempotency } from './request/idempotency.js';
import { createRateLimits, type RateLimits } from './http/rate-limit.js';
import type { Metrics } from './http/metrics.js';
import { createGraphQLServer, type GraphQLServer } from './http/graphql.js';
import { createHealthCheck } from './http/health.js';
import type { Logger } from './lib/logger.js';
import type { HttpResult } from './lib/problem.js';
import type { Secrets } from './lib/secrets.js';
import type { Platform } from './rest/route.js';
import { openApiDocumentOf } from './rest/rest-api.js';
import { createRestApi, type RestApi } from './rest/router.js';
import { routeTable } from './routes.js';
import { schema, schemaWithRestTypes } from './schema.js';
import { version } from './version.js';

export interface App {
  config: Config;
  log: Logger;
  db: Db;
  services: Services;
  schema: GraphQLSchema;
  auth: LazyAuth;
  origins: OriginPolicy;
  authenticator: Authenticator;
  graphql: GraphQLServer;
  rest: RestApi;
  /** What native routes use besides the services (configuration, sign-in, sessions, origins). */
  platform: Platform;
  docs: DocsHandler;
  health(): Promise<HttpResult>;
  /** The authentication gate of HTTP requests. */
  gate: Gate;
  /** Request budgets shared by every process. */
  limits: RateLimits;
  /** Idempotency-Key claims and stored answers (REST and GraphQL). */
  idempotency: Idempotency;
  metrics: Metrics;
  /** After a caller's write: remember what their next reads must see (nothing without replicas). */
  reads: Pick<ReadRouting, 'replicated' | 'wrote'>;
  /** Superadmins, API keys, and people who are owner or admin somewhere read /metrics (METRICS_TOKEN aside). */
  mayReadMetrics(actor: Actor): Promise<boolean>;
  /** The GraphQL context of one request (REST runs through GraphQL too). */
  contextFor(actor: Actor | null, state: RequestState): GraphQLContext;
}

export interface AppOptions {
  config: Config;
  secrets: Secrets;
  log: Logger;
  db: Db;
  sql: Sql;
  /** Where reads that tolerate lag run, and the caller's writes they must see (src/db/replicas.ts). */
  reads: ReadRouting;
  /** The process's services (src/runtime.ts builds them, for the workers too). */
  services: Services;
  /** The process's metrics (built once, shared with the workers). */
  metrics: Metrics;
  embeddedDatabase: boolean;
}

/** The REST paths under which even an unknown path is public (sign-in). */
const publicPrefixes = ['/api/auth/'];

export function createApp({ config, secrets, log, db, sql, reads, services, metrics, embeddedDatabase }: AppOptions): App {
  const origins = createOriginPolicy(config.trustedOrigins);
  const afterSignIn = createSignInRules({ db, users: services.users, superadminEmails: config.superadminEmails, log });
  const auth = createAuth({ config, secrets, db, log, afterSignIn });
  const sessions = createSessions(auth);
  const authenticator = createAuthenticator({ apiKeys: services.apiKeys, resolveSession: sessions.resolve });
  const limits = createRateLimits({ sql, config, log });
  const gate = createGate({ authenticator, sessions, origins, limits, clientAddress: createClientAddressOf(config.trustProxy), reads });
  const platform: Platform = { config, auth, sessions, origins };
  const contextFor = (actor: Actor | null, state: RequestState): GraphQLContext =>
    createGraphQLContext({ db, services }, { actor, requestId: state.requestId, log: state.log, knownTenant: state.knownTenant });
  const idempotency = createIdempotency({ sql, log });
  const rest = createRestApi({ schema: schemaWithRestTypes, table: routeTable, platform, gate, contextFor, publicPrefixes, log, idempotency });
  return {
    config,
    log,
    db,
    services,
    schema,
    auth,
    origins,
    authenticator,
    graphql: createGraphQLServer({ schema, log, metrics, idempotency, markingMutations: reads.replicated }),
    rest,
    platform,
    docs: createDocsHandler(() => openApiDocumentOf(rest, config.baseUrl, version)),
    health: createHealthCheck({ db, version, embeddedDatabase, replicas: reads.replicas }),
    gate,
    limits,
    idempotency,
    metrics,
    reads,
    async mayReadMetrics(actor) {
      if (actor.type === 'api_key' || actor.type === 'system') return true;
      if (actor.isSuperadmin) return true;
      const admin = await db.tenantUser.findFirst({
        where: { userId: actor.userId, status: 'active', role: { in: ['owner', 'admin'] } },
        select: { id: true },
      });
      return admin !== null;
    },
    contextFor,
  };
}
