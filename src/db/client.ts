import { PrismaPg } from '@prisma/adapter-pg';
import { once } from 'node:events';
import pg from 'pg';
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
  /** Longest wait for a connection before a query fails (default 3 s; a replica's is shorter, the primary is there to fall back on). */
  connectTimeoutMs?: number;
  /** Called with every SQL statement and its parameters (query-plan and query-count tests only). */
  onQuery?: QueryObserver;
}

/**
 * Plain SQL on the same pool, for the few hot paths where Prisma's fixed cost
 * per statement shows against pg's (figures: docs/performance.md). Each use sits behind a service function, typed by hand.
 */
/** One connection inside a transaction of `Sql.transaction`. */
export interface SqlClient {
  query<Row extends Record<string, unknown>>(text: string, values?: readonly unknown[]): Promise<Row[]>;
}

export interface Sql extends SqlClient {
  /**
   * `query` as a named prepared statement: parsed and planned once per connection, then only executed. For a hot
   * statement of fixed text whose plan does not depend on its values (rows by their ids); `name` is its own.
   */
  queryPrepared<Row extends Record<string, unknown>>(name: string, text: string, values: readonly unknown[]): Promise<Row[]>;
  /**
   * `work` in one transaction on one connection: committed when it resolves,
   * rolled back when it throws. For the few hot writes where Prisma's
   * interactive transaction is the wall (about twice the CPU of this:
   * docs/performance.md).
   */
  transaction<T>(work: (client: SqlClient) => Promise<T>): Promise<T>;
  /**
   * A statement that sorts or hashes tens of thousands of rows (a report's
   * grouping), with `work_mem` raised for it alone (`SET LOCAL` in a
   * transaction of its own): under the default `work_mem`, a year of a
   * million entries' day totals is sorted on disk, several times slower.
   * `parallel: false` keeps it in one process, for statements whose rows are
   * too few to pay for starting workers.
   */
  queryLarge<Row extends Record<string, unknown>>(text: string, values?: readonly unknown[], options?: { parallel?: boolean }): Promise<Row[]>;
  /**
   * The rows of a statement in batches, read through a server-side cursor
   * in a read-only transaction on a connection of its own: constant memory
   * however many rows. Stopping early (a `break`, a client gone) closes the
   * cursor and the transaction and gives the connection back.
   */
  cursor<Row extends Record<string, unknown>>(text: string, values: readonly unknown[], batchSize: number): AsyncGenerator<Row[]>;
}

/**
 * How `sql` reads a `timestamptz`: the instant its text names, offset and
 * all, as pg's own parser reads it (right whatever the session's or the
 * process's time zone). The plain form PostgreSQL prints
 * (`2026-11-25 23:40:43.729+09`, `+05:30`, `+00:53:28`) is read digit by
 * digit: every row of a list has two instants, and pg's parser (regular
 * expressions, then Date arithmetic) costs several times as much, which
 * shows in a list request's CPU (docs/performance.md).
 * Anything else (BC, infinity, years before 100 or past 9999) goes to pg's
 * parser.
 * Prisma's statements bring their own parsers (@prisma/adapter-pg passes
 * them per query), so this changes only ours.
 */
const plainSqlTypes = {
  getTypeParser(oid: number, format?: string) {
    if (oid === pg.types.builtins.TIMESTAMPTZ && format !== 'binary') return instantOf;
    return pg.types.getTypeParser(oid, format as 'text');
  },
} as pg.CustomTypesConfig;

const parseTimestamptz = pg.types.getTypeParser(pg.types.builtins.TIMESTAMPTZ, 'text') as (text: string) => Date;
const digitAt = (text: string, index: number): number => text.charCodeAt(index) - 48;
const isDigit = (text: string, index: number): boolean => {
  const code = text.charCodeAt(index);
  return code >= 48 && code <= 57;
};
const plusSign = 43;
const minusSign = 45;
const colon = 58;

/** A `timestamptz` column's text as a Date, as pg reads it (see plainSqlTypes). */
export function instantOf(text: string): Date {
  const { length } = text;
  // Up to six fraction digits after the seconds, then the offset: +hh, +hh:mm or +hh:mm:ss.
  let signAt = 19;
  if (text.charCodeAt(19) === 46 /* . */) {
    signAt = 20;
    while (signAt < length && signAt < 26 && isDigit(text, signAt)) signAt += 1;
  }
  const sign = text.charCodeAt(signAt);
  const offsetLength = length - signAt;
  const plain =
    text.charCodeAt(4) === minusSign &&
    text.charCodeAt(7) === minusSign &&
    text.charCodeAt(10) === 32 /* space */ &&
    text.charCodeAt(13) === colon &&
    text.charCodeAt(16) === colon &&
    (sign === plusSign || sign === minusSign) &&
    (offsetLength === 3 ||
      (offsetLength === 6 && text.charCodeAt(signAt + 3) === colon) ||
      (offsetLength === 9 && text.charCodeAt(signAt + 3) === colon && text.charCodeAt(signAt + 6) === colon)) &&
    isDigit(text, length - 1);
  const year = digitAt(text, 0) * 1000 + digitAt(text, 1) * 100 + digitAt(text, 2) * 10 + digitAt(text, 3);
  // Date.UTC reads years 0 to 99 as 1900 to 1999.
  if (!plain || year < 100) return parseTimestamptz(text);
  const month = digitAt(text, 5) * 10 + digitAt(text, 6) - 1;
  const day = digitAt(text, 8) * 10 + digitAt(text, 9);
  const hours = digitAt(text, 11) * 10 + digitAt(text, 12);
  const minutes = digitAt(text, 14) * 10 + digitAt(text, 15);
  const seconds = digitAt(text, 17) * 10 + digitAt(text, 18);
  // Date keeps milliseconds: the first three fraction digits.
  let milliseconds = 0;
  for (let index = 20, scale = 100; index < signAt && scale >= 1; index += 1, scale /= 10) milliseconds += digitAt(text, index) * scale;
  let offsetSeconds = (digitAt(text, signAt + 1) * 10 + digitAt(text, signAt + 2)) * 3600;
  if (offsetLength > 3) offsetSeconds += (digitAt(text, signAt + 4) * 10 + digitAt(text, signAt + 5)) * 60;
  if (offsetLength > 6) offsetSeconds += digitAt(text, signAt + 7) * 10 + digitAt(text, signAt + 8);
  const local = Date.UTC(year, month, day, hours, minutes, seconds, milliseconds);
  return new Date(sign === plusSign ? local - offsetSeconds * 1000 : local + offsetSeconds * 1000);
}

/** What `queryLarge` gives a statement to sort and hash in: a year of a million entries' day totals needs about 8 MB. */
const largeWorkMem = '32MB';

export type QueryObserver = (sql: string, params: readonly unknown[]) => void;

/** How the pool's connections are used right now (for /metrics). */
export interface PoolUse {
  total: number;
  idle: number;
  /** Queries waiting for a connection. */
  waiting: number;
  max: number;
}

export interface DatabaseClient {
  db: Db;
  sql: Sql;
  poolUse(): PoolUse;
  /** Resolves once every connection is closed (`$disconnect` alone does not wait for the pool). */
  close(): Promise<void>;
}

const closeTimeoutMs = 5000;

/** One Prisma client on one pg pool per process, through the pure-JS driver adapter. */
export function createDatabaseClient({ url, log, poolSize = 10, connectTimeoutMs = 3_000, onQuery }: DatabaseClientOptions): DatabaseClient {
  // We own the pool so that closing can wait for its connections: pg-pool's
  // end() resolves as soon as it has *asked* each client to end, before the
  // sockets close, and a database stopped in that gap fails every one of them.
  // A request waits at most 3 s for a connection: when the database is down it gets a 503 quickly, not a hang.
  const pool = new pg.Pool({
    connectionString: url,
    max: poolSize,
    idleTimeoutMillis: 30_000,
    connectionTimeoutMillis: connectTimeoutMs,
    types: plainSqlTypes,
  });
  const connections = new Set<pg.PoolClient>();
  pool.on('connect', (connection) => {
    connections.add(connection);
    connection.once('end', () => connections.delete(connection));
  });
  // An idle connection ends when the database restarts or the network drops it: the pool replaces it on next use.
  // The error carries the whole pg client; its code and message are what helps.
  pool.on('error', (error: Error & { code?: string }) =>
    log.warn({ code: error.code, reason: error.message }, 'an idle database connection was lost; the pool opens a new one when needed'),
  );
  const db = new PrismaClient({
    adapter: new PrismaPg(pool),
    // Colourless, stack-free messages: the pretty format captures a stack trace on every query.
    errorFormat: 'minimal',
    log: [{ level: 'warn', emit: 'event' }, { level: 'error', emit: 'event' }, ...(onQuery ? [{ level: 'query' as const, emit: 'event' as const }] : [])],
  });
  db.$on('warn', (event) => log.warn({ prisma: event.message }, 'prisma warning'));
  // Every failed statement surfaces where it was run: the request logs it once, with its requestId and what it
  // meant (a 503 while the database is away, a conflict, or an internal error); this copy is for debugging.
  db.$on('error', (event) => log.debug({ prisma: event.message }, 'prisma error'));
  if (onQuery) db.$on('query', (event) => onQuery(event.query, JSON.parse(event.params) as unknown[]));
  /**
   * A pool connection for one transaction. A connection lost while checked
   * out emits 'error', and the pool listens to idle ones only: without a
   * listener here that ended the process (a report export whose connection
   * the database dropped). The statement under way fails on its own; the
   * connection is released as broken when it was lost or could not roll back.
   */
  async function checkOut() {
    const connection = await pool.connect();
    let broken: Error | undefined;
    const lost = (error: Error): void => {
      broken = error;
    };
    connection.on('error', lost);
    return {
      connection,
      async rollback(): Promise<void> {
        await connection.query('ROLLBACK').catch((error: Error) => {
          broken ??= error;
        });
      },
      release(): void {
        connection.off('error', lost);
        connection.release(broken);
      },
    };
  }

  /** `work` between `begin` and COMMIT on one connection; rolled back when it throws. */
  async function inTransaction<T>(begin: string, work: (connection: pg.PoolClient) => Promise<T>): Promise<T> {
    const { connection, rollback, release } = await checkOut();
    try {
      await connection.query(begin);
      const result = await work(connection);
      await connection.query('COMMIT');
      return result;
    } catch (error) {
      await rollback();
      throw error;
    } finally {
      release();
    }
  }

  const sql: Sql = {
    async query<Row extends Record<string, unknown>>(text: string, values: readonly unknown[] = []) {
      onQuery?.(text, values);
      return (await pool.query<Row>(text, values as unknown[])).rows;
    },
    async queryPrepared<Row extends Record<string, unknown>>(name: string, text: string, values: readonly unknown[]) {
      onQuery?.(text, values);
      return (await pool.query<Row>({ name, text, values: values as unknown[] })).rows;
    },
    transaction<T>(work: (client: SqlClient) => Promise<T>): Promise<T> {
      return inTransaction('BEGIN', (connection) =>
        work({
          async query<Row extends Record<string, unknown>>(text: string, values: readonly unknown[] = []) {
            onQuery?.(text, values);
            return (await connection.query<Row>(text, values as unknown[])).rows;
          },
        }),
      );
    },
    queryLarge<Row extends Record<string, unknown>>(text: string, values: readonly unknown[] = [], { parallel = true }: { parallel?: boolean } = {}) {
      const settings = `SET LOCAL work_mem = '${largeWorkMem}'${parallel ? '' : '; SET LOCAL max_parallel_workers_per_gather = 0'}`;
      return inTransaction(`BEGIN READ ONLY; ${settings}`, async (connection) => {
        onQuery?.(text, values);
        return (await connection.query<Row>(text, values as unknown[])).rows;
      });
    },
    async *cursor<Row extends Record<string, unknown>>(text: string, values: readonly unknown[], batchSize: number) {
      const { connection, rollback, release } = await checkOut();
      let finished = false;
      let ahead: Promise<Row[]> | undefined;
      const fetchBatch = (): Promise<Row[]> => {
        const batch = connection.query<Row>(`FETCH ${Math.max(1, Math.floor(batchSize))} FROM rows`).then(({ rows }) => rows);
        // Marked as handled now: it is awaited later, and a connection lost while the caller writes out the
        // batch before must fail that await, not the process (an unhandled rejection).
        batch.catch(() => undefined);
        return batch;
      };
      try {
        await connection.query('BEGIN READ ONLY');
        onQuery?.(text, values);
        await connection.query(`DECLARE rows NO SCROLL CURSOR FOR ${text}`, values as unknown[]);
        ahead = fetchBatch();
        for (;;) {
          const rows = await ahead;
          if (rows.length === 0) break;
          // The next batch is asked for before this one is handed over: the database reads it while the caller
          // writes this one out, instead of each waiting for the other (an export's rows/s: the sum of both
          // sides' time per batch became the larger of the two). At most two batches are held.
          ahead = fetchBatch();
          yield rows;
        }
        ahead = undefined;
        await connection.query('COMMIT');
        finished = true;
      } finally {
        // Ended early or failed: a batch still being read is awaited (its failure is the rollback's concern), then
        // the transaction (and its cursor) goes.
        await ahead?.catch(() => undefined);
        if (!finished) await rollback();
        release();
      }
    },
  };
  let closing: Promise<void> | undefined;
  return {
    db,
    sql,
    poolUse: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount, max: poolSize }),
    close() {
      closing ??= (async () => {
        await db.$disconnect();
        const ending = Promise.all([...connections].map((connection) => once(connection, 'end')));
        await pool.end();
        let timer: NodeJS.Timeout | undefined;
        const gaveUp = new Promise<void>((resolve) => {
          timer = setTimeout(resolve, closeTimeoutMs);
        });
        await Promise.race([ending, gaveUp]);
        clearTimeout(timer);
      })();
      return closing;
    },
  };
}
