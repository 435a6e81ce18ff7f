/**
 * The one composition root of a process: `tally serve` (API, workers or
 * both), the CLI and the tests build what they run through createRuntime,
 * and tear it down through one stack, in the reverse order of building.
 *
 * - `data`: the database (embedded or DATABASE_URL), migrations, the
 *   services (jobs are enqueued through a queue that starts pg-boss only if
 *   something is enqueued): what the CLI needs.
 * - `worker`: pg-boss working every module's queues, the outbox dispatcher.
 * - `api`: the HTTP app (schema, routes, gate, OpenAPI), the server and the
 *   WebSocket endpoint. A worker-only process never builds it.
 */
import 'disposablestack/AsyncDisposableStack/auto';
import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp, type App } from './app.js';
import type { Config } from './config.js';
import { createDatabaseClient, type Db, type QueryObserver, type Sql } from './db/client.js';
import { openDatabaseServer } from './db/database.js';
import { createReplicaReads, primaryReads, type ReadRouting } from './db/replicas.js';
import { createPgListener } from './db/listener.js';
import { migrateDatabase } from './db/migrations.js';
import { lazyJobQueue, startJobs, type JobQueue, type JobRunner, type QueueDepth } from './events/jobs.js';
import { createLiveEvents, type LiveEvents } from './events/live.js';
import { createMetrics } from './http/metrics.js';
import { createHttpServer } from './http/server.js';
import { attachGraphQLWebSocket } from './http/websocket.js';
import { pinnedClock, systemClock, type Clock } from './lib/clock.js';
import { createIdleCollector } from './lib/idle-collector.js';
import { createLogger, type Logger } from './lib/logger.js';
import { resolveSecrets } from './lib/secrets.js';
import type { Services } from './modules/services.js';
import { bootstrapDemoTenant, printBootstrapKey } from './modules/platform/tenant/bootstrap.js';
import { createServices } from './services.js';
import { closeModuleWork, moduleQueues, startWorkers, type Workers } from './worker.js';
import { createBesideWrites } from './modules/beside-writes.js';

/** What a process runs besides its data: the API, the workers, or both. */
export type RuntimeRole = 'api' | 'worker';

export interface RuntimeOptions {
  config: Config;
  /** What to run besides the data; none for the CLI. */
  roles: readonly RuntimeRole[];
  log?: Logger;
  /**
   * What time it is for every rule: the one clock of the process, handed to every service and work object
   * (default: the system clock, or with NODE_ENV=test one starting at TEST_CLOCK).
   */
  clock?: Clock;
  /** Create tenant `demo` and print a key on an empty development database (API processes; default true). */
  bootstrap?: boolean;
  /** Sees every SQL statement (query-plan and query-count tests only). */
  onQuery?: QueryObserver;
  /** Seconds between pg-boss's expiry checks in worker processes (default 10; tests shorten it). */
  superviseIntervalSeconds?: number;
  /** How often open WebSocket connections re-check their credential (default 30 s). */
  credentialRecheckMs?: number;
  /** An API process that served requests collects its garbage once it has served none for this long (default 5 s; src/lib/idle-collector.ts). */
  idleCollectionMs?: number;
}

export interface Runtime extends AsyncDisposable {
  config: Config;
  log: Logger;
  clock: Clock;
  databaseUrl: string;
  db: Db;
  sql: Sql;
  services: Services;
  /** The HTTP app, in API processes. */
  app: App | undefined;
  /** Where the HTTP server listens, in API processes. */
  url: string | undefined;
  /** The outbox dispatcher and job workers, in worker processes. */
  workers: Workers | undefined;
  /** Live pushes to GraphQL subscribers (their counts: how many subscriptions listen now). */
  live: LiveEvents;
  /** Tears everything down, last built first; once, however often it is called. */
  stop(): Promise<void>;
}

const drainTimeoutMs = 10_000;

async function listen(server: http.Server, port: number, host: string): Promise<AddressInfo> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return server.address() as AddressInfo;
}

/** Stops accepting, lets in-flight requests finish (up to 10 s), then closes what is left. */
async function closeServer(server: http.Server): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  const timer = setTimeout(() => server.closeAllConnections(), drainTimeoutMs);
  await closed;
  clearTimeout(timer);
}

export async function createRuntime({
  config,
  roles,
  log = createLogger(config.logLevel),
  clock = config.testClock ? pinnedClock(config.testClock) : systemClock,
  bootstrap = true,
  onQuery,
  superviseIntervalSeconds,
  credentialRecheckMs,
  idleCollectionMs = 5_000,
}: RuntimeOptions): Promise<Runtime> {
  const serves = roles.includes('api');
  const works = roles.includes('worker');
  // Each part is deferred as soon as it exists: a failure halfway tears down exactly what was built.
  const stack = new AsyncDisposableStack();
  try {
    const secrets = resolveSecrets(config, log);
    const database = await openDatabaseServer(config, log);
    stack.defer(() => database.stop());
    await migrateDatabase(database.url, log);
    const client = createDatabaseClient({ url: database.url, log, ...(onQuery ? { onQuery } : {}) });
    stack.defer(() => client.close());
    const { db, sql } = client;
    // Only API processes read from replicas: workers (and the CLI) read the primary, always.
    const reads: ReadRouting =
      serves && config.databaseReplicaUrls.length > 0
        ? createReplicaReads({
            primary: { db, sql },
            urls: config.databaseReplicaUrls,
            maxWaitMs: config.replicaMaxWaitMs,
            maxLagMs: config.replicaMaxLagMs,
            log: log.child({ component: 'replicas' }),
          })
        : primaryReads({ db, sql });
    stack.defer(() => reads.close());
    const listener = createPgListener({ url: database.url, log: log.child({ component: 'listener' }) });
    stack.defer(() => listener.close());
    const live = createLiveEvents({ listener, log: log.child({ component: 'live' }) });

    // Worker processes run pg-boss from the start; every other process (API, CLI) starts it on its first
    // enqueue, or when /metrics asks for the queues (src/events/jobs.ts says why).
    let jobs: JobQueue;
    let runner: JobRunner | undefined;
    let queueDepths: () => Promise<QueueDepth[]>;
    if (works) {
      // What jobs hold (the OCR engine's thread) is freed once pg-boss has stopped: deferred before it.
      stack.defer(() => closeModuleWork());
      const started = await startJobs({
        databaseUrl: database.url,
        log: log.child({ component: 'jobs' }),
        queues: moduleQueues,
        works,
        ...(superviseIntervalSeconds ? { superviseIntervalSeconds } : {}),
      });
      stack.defer(() => started.stop({ graceful: true, timeoutMs: 20_000 }));
      runner = started;
      jobs = started;
      queueDepths = () => started.queueDepths();
    } else {
      const lazy = lazyJobQueue(() => startJobs({ databaseUrl: database.url, log: log.child({ component: 'jobs' }), queues: moduleQueues, works: false }));
      stack.defer(() => lazy.stop());
      jobs = lazy;
      queueDepths = () => lazy.queueDepths();
    }
    const dependencies = { db, sql, reads, log, config, secrets, jobs, live, clock, besideWrites: createBesideWrites() };
    const services = createServices(dependencies);
    const metrics = serves || works ? createMetrics({ poolUse: client.poolUse, queueDepths, reads, liveSubscribers: live.counts }) : undefined;

    // Workers first: once the process says it listens, it runs everything its role has.
    let workers: Workers | undefined;
    if (works && runner && metrics) {
      workers = await startWorkers({ dependencies: { ...dependencies, services }, runner, listener, metrics, log: log.child({ component: 'worker' }) });
      const started = workers;
      stack.defer(() => started.stop());
    }

    let app: App | undefined;
    let url: string | undefined;
    if (serves && metrics) {
      app = createApp({ config, secrets, log, db, sql, reads, services, metrics, embeddedDatabase: database.embedded !== undefined });
      const built = app;
      // No request comes any more: what the rate limits counted only here goes to the store while it still can.
      stack.defer(() => built.limits.close());
      // A prune of expired Idempotency-Keys under way ends before the pool closes.
      stack.defer(() => built.idempotency.close());
      if (bootstrap) {
        const created = await bootstrapDemoTenant({ config, db, services, log });
        if (created) printBootstrapKey(created, config.baseUrl);
      }
      const idle = createIdleCollector({ quietMs: idleCollectionMs, log });
      stack.defer(() => idle.close());
      const server = createHttpServer(
        app,
        { requestTimeoutMs: config.requestTimeoutMs, headersTimeoutMs: config.headersTimeoutMs, bodyIdleTimeoutMs: config.bodyIdleTimeoutMs },
        idle,
      );
      stack.defer(() => closeServer(server));
      const webSocket = attachGraphQLWebSocket(server, app, { live, ...(credentialRecheckMs ? { credentialRecheckMs } : {}) });
      stack.defer(() => webSocket.close());
      const address = await listen(server, config.port, config.host);
      // Starting is work too: building the schemas and routes leaves garbage, which a process waiting for its
      // first request kept until V8's memory reducer came by (figures: docs/performance.md).
      idle.busy()();
      const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
      url = `http://${host}:${address.port}`;
      log.info({ url, baseUrl: config.baseUrl, role: config.role }, 'Tally is listening');
    }

    const teardown = stack.move();
    let stopping: Promise<void> | undefined;
    const stop = (): Promise<void> => (stopping ??= teardown.disposeAsync());
    return { config, log, clock, databaseUrl: database.url, db, sql, services, app, url, workers, live, stop, [Symbol.asyncDispose]: stop };
  } catch (error) {
    await stack.disposeAsync().catch((teardownError: unknown) => log.error({ err: teardownError }, 'tearing down a failed start failed too'));
    throw error;
  }
}
