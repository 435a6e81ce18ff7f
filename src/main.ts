/**
 * Starting and stopping a Tally process: database (embedded or external),
 * migrations, then the roles it runs. `tally serve` and the integration tests
 * both start Tally through here.
 */
import type { AddressInfo } from 'node:net';
import type http from 'node:http';
import v8 from 'node:v8';
import { createApp, type App } from './app.js';
import type { Config, ProcessRole } from './config.js';
import { createDatabaseClient, type DatabaseClient, type QueryObserver } from './db/client.js';
import { openDatabaseServer } from './db/database.js';
import { createPgListener, type PgListener } from './db/listener.js';
import { migrateDatabase } from './db/migrations.js';
import { startJobs, type JobRunner } from './events/jobs.js';
import { createLiveEvents } from './events/live.js';
import { createMetrics } from './http/metrics.js';
import { createHttpServer } from './http/server.js';
import { attachGraphQLWebSocket, type GraphQLWebSocket } from './http/websocket.js';
import { createLogger, type Logger } from './lib/logger.js';
import { resolveSecrets } from './lib/secrets.js';
import { bootstrapDemoTenant, printBootstrapKey } from './modules/tenant/bootstrap.js';
import { moduleQueues, startWorkers, type Workers } from './worker.js';

export interface StartOptions {
  config: Config;
  log?: Logger;
  /** Create tenant `demo` and print a key on an empty development database (default true). */
  bootstrap?: boolean;
  /** Sees every SQL statement (query-plan and query-count tests only). */
  onQuery?: QueryObserver;
  /** Seconds between pg-boss's expiry checks in worker processes (default 10; tests shorten it). */
  superviseIntervalSeconds?: number;
  /** How often open WebSocket connections re-check their credential (default 30 s). */
  credentialRecheckMs?: number;
}

export interface RunningTally {
  /** Where the HTTP server listens (undefined for a worker-only process). */
  url: string | undefined;
  databaseUrl: string;
  app: App;
  /** The outbox dispatcher and job workers, in processes with the worker role. */
  workers: Workers | undefined;
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

const runsApi = (role: ProcessRole): boolean => role === 'all' || role === 'api';
const runsWorkers = (role: ProcessRole): boolean => role === 'all' || role === 'worker';

/**
 * Prisma's query compiler is WebAssembly. Compiled by V8's baseline compiler
 * alone it takes about 50 MB less resident memory, and measured no slower
 * (its per-query work is small; the optimising tier mostly costs compile
 * time). Set before the first query compiles it.
 */
function compileWebAssemblyLightly(): void {
  v8.setFlagsFromString('--liftoff-only');
}

export async function startTally({
  config,
  log = createLogger(config.logLevel),
  bootstrap = true,
  onQuery,
  superviseIntervalSeconds,
  credentialRecheckMs,
}: StartOptions): Promise<RunningTally> {
  compileWebAssemblyLightly();
  const secrets = resolveSecrets(config, log);
  const database = await openDatabaseServer(config, log);
  let client: DatabaseClient | undefined;
  let listener: PgListener | undefined;
  let jobs: JobRunner | undefined;
  let workers: Workers | undefined;
  try {
    await migrateDatabase(database.url, log);
    client = createDatabaseClient({ url: database.url, log, ...(onQuery ? { onQuery } : {}) });
    const { db, sql } = client;
    listener = createPgListener({ url: database.url, log: log.child({ component: 'listener' }) });
    const live = createLiveEvents({ listener, log: log.child({ component: 'live' }) });
    jobs = await startJobs({
      databaseUrl: database.url,
      sql,
      log: log.child({ component: 'jobs' }),
      queues: moduleQueues,
      works: runsWorkers(config.role),
      ...(superviseIntervalSeconds ? { superviseIntervalSeconds } : {}),
    });
    const runner = jobs;
    const metrics = createMetrics({
      poolUse: client.poolUse,
      queueDepths: async () =>
        (await runner.boss.getQueues()).map((queue) => ({ name: queue.name, ready: queue.readyCount, deferred: queue.deferredCount, active: queue.activeCount })),
    });
    const app = createApp({ config, secrets, log, db, sql, jobs, live, metrics, embeddedDatabase: database.embedded !== undefined });

    // Workers first: once the process says it listens, it runs everything its role has.
    if (runsWorkers(config.role)) {
      workers = await startWorkers({ db, services: app.services, jobs, listener, metrics, log: log.child({ component: 'worker' }) });
    }

    let server: http.Server | undefined;
    let webSocket: GraphQLWebSocket | undefined;
    let url: string | undefined;
    if (runsApi(config.role)) {
      if (bootstrap) {
        const created = await bootstrapDemoTenant({ config, db, services: app.services, log });
        if (created) printBootstrapKey(created, config.baseUrl);
      }
      server = createHttpServer(app, {
        requestTimeoutMs: config.requestTimeoutMs,
        headersTimeoutMs: config.headersTimeoutMs,
        bodyIdleTimeoutMs: config.bodyIdleTimeoutMs,
      });
      webSocket = attachGraphQLWebSocket(server, app, { live, ...(credentialRecheckMs ? { credentialRecheckMs } : {}) });
      const address = await listen(server, config.port, config.host);
      const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
      url = `http://${host}:${address.port}`;
      log.info({ url, baseUrl: config.baseUrl, role: config.role }, 'Tally is listening');
    }
    const openClient = client;
    const openListener = listener;
    const openJobs = jobs;
    const openWorkers = workers;
    let stopping: Promise<void> | undefined;
    return {
      url,
      databaseUrl: database.url,
      app,
      workers,
      stop() {
        stopping ??= (async () => {
          await webSocket?.close();
          if (server) await closeServer(server);
          // No request comes any more: what the rate limits counted only here goes to the store while it still can.
          await app.limits.close();
          await openWorkers?.stop();
          await openJobs.stop({ graceful: true, timeoutMs: 20_000 });
          await openWorkers?.close();
          await openListener.close();
          await openClient.close();
          await database.stop();
        })();
        return stopping;
      },
    };
  } catch (error) {
    await workers?.stop().catch(() => undefined);
    await jobs?.stop({ graceful: false }).catch(() => undefined);
    await workers?.close().catch(() => undefined);
    await listener?.close().catch(() => undefined);
    await client?.close().catch(() => undefined);
    await database.stop().catch(() => undefined);
    throw error;
  }
}
