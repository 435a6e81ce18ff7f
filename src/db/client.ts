import { PrismaPg } from '@prisma/adapter-pg';
import { Prisma, PrismaClient } from '../generated/prisma/client.js';
import type { Logger } from '../lib/logger.js';

export { Prisma };
export type Db = PrismaClient;
/** The client inside `db.$transaction(async (tx) => ...)`. */
export type Tx = Prisma.TransactionClient;

export interface DatabaseClientOptions {
  url: string;
  log: Logger;
  /** Connections per process. */
  poolSize?: number;
}

/** One Prisma client (and pg pool) per process, on the pure-JS driver adapter. */
export function createDatabaseClient({ url, log, poolSize = 10 }: DatabaseClientOptions): Db {
  const adapter = new PrismaPg(
    { connectionString: url, max: poolSize, idleTimeoutMillis: 30_000 },
    { onPoolError: (error) => log.error({ err: error }, 'idle database connection failed') },
  );
  const client = new PrismaClient({
    adapter,
    log: [
      { level: 'warn', emit: 'event' },
      { level: 'error', emit: 'event' },
    ],
  });
  client.$on('warn', (event) => log.warn({ prisma: event.message }, 'prisma warning'));
  client.$on('error', (event) => log.error({ prisma: event.message }, 'prisma error'));
  return client;
}
