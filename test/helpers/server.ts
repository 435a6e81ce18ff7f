import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { App } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import type { LiveEvents } from '../../src/events/live.js';
import type { QueryObserver } from '../../src/db/client.js';
import { createLogger, type Logger } from '../../src/lib/logger.js';
import { startTally, type StartOptions } from '../../src/main.js';
import type { Workers } from '../../src/worker.js';
import { testClock } from './clock.js';
import { createTestDatabase } from './database.js';

export interface TestServer {
  /** Base URL, e.g. http://localhost:41234 */
  url: string;
  app: App;
  databaseUrl: string;
  /** The dispatcher and job workers (ROLE all or worker). */
  workers: Workers | undefined;
  /** Live pushes to GraphQL subscribers: `counts()` says how many subscriptions listen. */
  live: LiveEvents;
  stop(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Budgets no test reaches, except those that test the limits. */
export const unlimitedRates = { RATE_LIMIT_PER_MINUTE: '0', AUTH_RATE_LIMIT_PER_MINUTE: '0' };

/** The secrets every test server (and the processes tests start beside it) share. */
export const testSecrets = {
  AUTH_SECRET: 'test-auth-secret-0123456789abcdefghijklmnop',
  ENCRYPTION_KEY: 'test-encryption-key-0123456789abcdefghijkl',
};

/**
 * The real server, in process, on a random port, on a database of this test
 * file's own, on the test clock (test/helpers/clock.ts). `env` adds or
 * overrides environment variables.
 */
export async function startTestServer({
  env = {},
  databaseUrl,
  onQuery,
  log = createLogger(process.env.TEST_LOG_LEVEL ?? 'silent'),
  tuning = {},
}: {
  /** Faster expiry checks or credential rechecks, for tests that wait on them. */
  tuning?: Pick<StartOptions, 'superviseIntervalSeconds' | 'credentialRecheckMs'>;
  env?: Record<string, string>;
  /** Share this database (a second server process) instead of making one. */
  databaseUrl?: string;
  /** Sees every SQL statement the server runs, with its parameters. */
  onQuery?: QueryObserver;
  /** Where the server logs (default: nowhere, or TEST_LOG_LEVEL to stdout). */
  log?: Logger;
} = {}): Promise<TestServer> {
  const database = databaseUrl ? { url: databaseUrl, drop: async () => undefined } : await createTestDatabase();
  const port = env.PORT === undefined ? await freePort() : Number(env.PORT);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tally-test-data-'));
  const config = loadConfig({
    NODE_ENV: 'test',
    DATABASE_URL: database.url,
    PORT: String(port),
    BASE_URL: `http://localhost:${port}`,
    DATA_DIR: dataDir,
    // Tests make far more requests a minute than a client should; the rate limit tests set their own.
    ...unlimitedRates,
    ...testSecrets,
    ...env,
  });
  const tally = await startTally({ config, log, clock: testClock, bootstrap: false, ...tuning, ...(onQuery ? { onQuery } : {}) });
  const { app } = tally;
  return {
    url: `http://localhost:${port}`,
    // A worker-only process (ROLE=worker) builds no HTTP app: asking it for one is the test's mistake.
    get app() {
      if (!app) throw new Error(`ROLE=${config.role} builds no HTTP app`);
      return app;
    },
    databaseUrl: database.url,
    workers: tally.workers,
    live: tally.live,
    async stop() {
      await tally.stop();
      await database.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
