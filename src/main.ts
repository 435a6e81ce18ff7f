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
import { migrateDatabase } from './db/migrations.js';
import { createHttpServer } from './http/server.js';
import { attachGraphQLWebSocket, type GraphQLWebSocket } from './http/websocket.js';
import { createLogger, type Logger } from './lib/logger.js';
import { resolveSecrets } from './lib/secrets.js';
import { bootstrapDemoTenant, printBootstrapKey } from './modules/tenant/bootstrap.js';

export interface StartOptions {
  config: Config;
  log?: Logger;
  /** Create tenant `demo` and print a key on an empty development database (default true). */
  bootstrap?: boolean;
  /** Sees every SQL statement (query-plan and query-count tests only). */
  onQuery?: QueryObserver;
}

export interface RunningTally {
  /** Where the HTTP server listens (undefined for a worker-only process). */
  url: string | undefined;
  databaseUrl: string;
  app: App;
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
}: StartOptions): Promise<RunningTally> {
  compileWebAssemblyLightly();
  const secrets = resolveSecrets(config, log);
  const database = await openDatabaseServer(config, log);
  let client: DatabaseClient | undefined;
  try {
    await migrateDatabase(database.url, log);
    client = createDatabaseClient({ url: database.url, log, ...(onQuery ? { onQuery } : {}) });
    const { db, sql } = client;
    const app = createApp({ config, secrets, log, db, sql, embeddedDatabase: database.embedded !== undefined });

    let server: http.Server | undefined;
    let webSocket: GraphQLWebSocket | undefined;
    let url: string | undefined;
    if (runsApi(config.role)) {
      if (bootstrap) {
        const created = await bootstrapDemoTenant({ config, db, services: app.services, log });
        if (created) printBootstrapKey(created, config.baseUrl);
      }
      server = createHttpServer(app);
      webSocket = attachGraphQLWebSocket(server, app);
      const address = await listen(server, config.port, config.host);
      const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
      url = `http://${host}:${address.port}`;
      log.info({ url, baseUrl: config.baseUrl, role: config.role }, 'Tally is listening');
    }
    if (config.role === 'worker') {
      log.warn('ROLE=worker: this version has no background jobs yet; the process only keeps the schema migrated');
    }

    const openClient = client;
    let stopping: Promise<void> | undefined;
    return {
      url,
      databaseUrl: database.url,
      app,
      stop() {
        stopping ??= (async () => {
          await webSocket?.close();
          if (server) await closeServer(server);
          await openClient.close();
          await database.stop();
        })();
        return stopping;
      },
    };
  } catch (error) {
    await client?.close().catch(() => undefined);
    await database.stop().catch(() => undefined);
    throw error;
  }
}
