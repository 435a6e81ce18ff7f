import path from 'node:path';
import type { Config } from '../config.js';
import type { Logger } from '../lib/logger.js';
import { startEmbeddedPostgres, type RunningPostgres } from './embedded-postgres.js';

export interface DatabaseServer {
  url: string;
  /** Set when we started the embedded PostgreSQL ourselves. */
  embedded: RunningPostgres | undefined;
  /** Stops the embedded server, if any; an external database is left alone. */
  stop(): Promise<void>;
}

/** DATABASE_URL when set; otherwise the embedded PostgreSQL under DATA_DIR/postgres. */
export async function openDatabaseServer(config: Config, log: Logger): Promise<DatabaseServer> {
  if (config.databaseUrl !== undefined) {
    return { url: config.databaseUrl, embedded: undefined, stop: async () => undefined };
  }
  const embedded = await startEmbeddedPostgres({
    clusterDir: path.join(config.dataDir, 'postgres'),
    database: 'tally',
    log: log.child({ component: 'embedded-postgres' }),
  });
  return { url: embedded.url, embedded, stop: () => embedded.stop() };
}
