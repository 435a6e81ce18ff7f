/**
 * Reads that tolerate a little lag (reports, exports, search, lists, the
 * change feed) on PostgreSQL streaming replicas (DATABASE_REPLICA_URL), and
 * the one place that decides, per read, which database answers it.
 *
 * - A caller reads their own writes: after a request of theirs wrote, the
 *   primary's flushed WAL position is remembered for them (`wrote`), and
 *   their next read goes to a replica that has replayed it, waits up to
 *   REPLICA_MAX_WAIT_MS for one, or else reads the primary. A caller who
 *   wrote through another process carries the position in `Tally-Read-After`.
 * - A replica that is down, or lags more than REPLICA_MAX_LAG_MS, is skipped;
 *   one that fails under a read (gone, or a conflict with recovery cancelled
 *   the statement) is marked down and the read runs again on the primary:
 *   skipping a replica is never an error for the caller.
 * - Workers and the CLI (the system) always read the primary, and so does
 *   every write: only services that declare a read take `reads`.
 *
 * Without replicas `primaryReads` hands the primary straight to the read:
 * no statement, no await, no bookkeeping.
 */
import type { Logger } from '../lib/logger.js';
import { createDatabaseClient, type DatabaseClient, type Db, type Sql } from './client.js';
import { isDatabaseUnavailable } from './unavailable.js';

/** The databases a read may run on: the primary's or a replica's Prisma client and plain-SQL pool. */
export interface ReadClient {
  db: Db;
  sql: Sql;
}

/**
 * Who reads: the caller of a service (a TenantAccess satisfies it). Users and
 * API keys read their own writes; the system (workers, CLI) reads the primary.
 */
export interface Reader {
  readonly actor: { type: 'user'; userId: string } | { type: 'api_key'; apiKeyId: string } | { type: 'system' };
}

/** What services that read use: the database a read by `reader` runs on, chosen once per read. */
export interface Reads {
  /** `read` on a replica that has the reader's writes, else on the primary; a replica failing under it -> the primary. */
  run<T>(reader: Reader, read: (client: ReadClient) => Promise<T>): Promise<T>;
  /** `open`'s rows from a replica, as `run` chooses it; a replica failing before the first batch -> the primary. */
  stream<Row>(reader: Reader, open: (client: ReadClient) => AsyncGenerator<Row>): AsyncGenerator<Row>;
}

export type ReplicaState = 'up' | 'lagging' | 'down';

/** One replica as /health and /metrics show it. */
export interface ReplicaStatus {
  /** host:port/database: never the credentials. */
  name: string;
  state: ReplicaState;
  /** How far behind the primary it was at the last check; null until it answered once. */
  lagMs: number | null;
  /** Reads it served since the process started. */
  reads: number;
}

/**
 * After `reader` wrote: the primary's position remembered for them (`ReadRouting.wrote`), for HTTP and the
 * WebSocket alike. A failure only costs that guarantee (the write has committed): logged, and undefined.
 */
export async function rememberWrite(reads: Pick<ReadRouting, 'wrote'>, reader: Reader, log: Logger): Promise<string | undefined> {
  try {
    return await reads.wrote(reader);
  } catch (error) {
    log.warn({ err: error }, "the primary's WAL position after a write could not be read; the caller's next reads may not see it on a replica");
    return undefined;
  }
}

/** What the HTTP layer needs: remember a caller's writes, and report on the replicas. */
export interface ReadRouting extends Reads {
  /** Replicas are configured: writes are worth remembering. */
  readonly replicated: boolean;
  /** After a request of `reader` wrote: the primary's flushed WAL position, remembered for them and returned (for `Tally-Read-After`). */
  wrote(reader: Reader): Promise<string | undefined>;
  /** A position `reader` says they wrote up to (the `Tally-Read-After` they carry from another process); ignored unless an LSN. */
  carried(reader: Reader, lsn: string): void;
  replicas(): ReplicaStatus[];
  /** Reads the primary served. */
  primaryReads(): number;
  close(): Promise<void>;
}

/** Every read on the primary: what a process without replicas, and every worker, uses. */
export function primaryReads(primary: ReadClient): ReadRouting {
  let reads = 0;
  return {
    replicated: false,
    run: (_reader, read) => {
      reads += 1;
      return read(primary);
    },
    stream: (_reader, open) => {
      reads += 1;
      return open(primary);
    },
    wrote: async () => undefined,
    carried: () => undefined,
    replicas: () => [],
    primaryReads: () => reads,
    close: async () => undefined,
  };
}

/** A WAL position (`16/B374D848`) as a number that compares. */
export function lsnOf(text: string): bigint | undefined {
  const match = /^([0-9A-Fa-f]{1,8})\/([0-9A-Fa-f]{1,8})$/.exec(text);
  if (!match) return undefined;
  return (BigInt(`0x${match[1]}`) << 32n) + BigInt(`0x${match[2]}`);
}

const lsnText = (lsn: bigint): string => `${(lsn >> 32n).toString(16).toUpperCase()}/${(lsn & 0xffffffffn).toString(16).toUpperCase()}`;

/**
 * What a replica's failure under a read looks like besides being unreachable:
 * a statement cancelled by a conflict with recovery (40001, 40P01), the
 * database dropped under it (57P04). The primary would have answered it.
 */
const replicaFailures: ReadonlySet<string> = new Set(['40001', '40P01', '57P04']);

const readerKey = (reader: Reader): string | undefined => {
  const { actor } = reader;
  return actor.type === 'user' ? `user:${actor.userId}` : actor.type === 'api_key' ? `api_key:${actor.apiKeyId}` : undefined;
};

export function replicaName(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname}:${parsed.port || '5432'}${parsed.pathname}`;
  } catch {
    return 'replica';
  }
}

interface Replica extends ReplicaStatus {
  client: DatabaseClient;
  /** The WAL position it had replayed at the last look. */
  replayed: bigint;
}

export interface ReplicaOptions {
  primary: ReadClient;
  urls: readonly string[];
  maxWaitMs: number;
  maxLagMs: number;
  log: Logger;
  /** How often each replica's position is checked (default 1 s). */
  pollMs?: number;
  /** Connections per replica pool (default 10, as the primary's). */
  poolSize?: number;
}

/** Callers whose writes the replicas may not have yet; beyond this many the oldest are forgotten (their reads go by lag alone). */
const rememberedCallers = 100_000;
/** How often a read waiting for its caller's write asks the replica again. */
const waitStepMs = 5;

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Reads routed to the replicas at `urls`, each checked every `pollMs` in the background. */
export function createReplicaReads({ primary, urls, maxWaitMs, maxLagMs, log, pollMs = 1_000, poolSize = 10 }: ReplicaOptions): ReadRouting {
  const replicas: Replica[] = urls.map((url) => ({
    name: replicaName(url),
    // Down until its first check answers: a replica is used only once it is known to be close enough.
    state: 'down',
    lagMs: null,
    reads: 0,
    replayed: 0n,
    // A replica that does not answer in a second is skipped: the primary is there to fall back on.
    client: createDatabaseClient({ url, log: log.child({ replica: replicaName(url) }), poolSize, connectTimeoutMs: 1_000 }),
  }));
  let primaryCount = 0;
  let turn = 0;
  /** The flushed WAL position of each caller's last write. */
  const written = new Map<string, bigint>();
  /** The primary's position at each check (monotonic milliseconds): how long ago the primary passed a replica's position. */
  const seen: { lsn: bigint; at: number }[] = [];

  function remember(key: string, lsn: bigint): void {
    const before = written.get(key);
    if (before !== undefined && before >= lsn) return;
    written.delete(key); // re-inserted last: the Map's order is the order of last writes
    written.set(key, lsn);
    if (written.size > rememberedCallers) written.delete(written.keys().next().value as string);
  }

  async function check(): Promise<void> {
    let head: bigint | undefined;
    try {
      const [row] = await primary.sql.query<{ lsn: string }>('SELECT pg_current_wal_flush_lsn()::text AS lsn');
      head = row ? lsnOf(row.lsn) : undefined;
    } catch (error) {
      log.debug({ err: error }, 'the primary did not tell its WAL position; replica lag left as it was');
      return;
    }
    if (head === undefined) return;
    const now = performance.now();
    seen.push({ lsn: head, at: now });
    // Kept for twice the longest lag that matters: a replica further behind is lagging whatever the exact figure.
    while (seen.length > 1 && (seen[0] as { at: number }).at < now - 2 * maxLagMs) seen.shift();
    await Promise.all(
      replicas.map(async (replica) => {
        try {
          const [row] = await replica.client.sql.query<{ lsn: string | null; recovering: boolean }>(
            'SELECT pg_last_wal_replay_lsn()::text AS lsn, pg_is_in_recovery() AS recovering',
          );
          const replayed = row?.lsn ? lsnOf(row.lsn) : undefined;
          // A server out of recovery (promoted) is no longer a copy of this primary.
          if (!row?.recovering || replayed === undefined) throw new Error('not a streaming replica');
          replica.replayed = replayed;
          // Lag: since the primary was first seen past the replayed position (0 when it has not moved on).
          const passed = seen.find((sample) => sample.lsn > replayed);
          replica.lagMs = passed === undefined ? 0 : Math.round(now - passed.at);
          const state: ReplicaState = replica.lagMs > maxLagMs ? 'lagging' : 'up';
          if (state !== replica.state) log.info({ replica: replica.name, state, lagMs: replica.lagMs }, 'replica state changed');
          replica.state = state;
        } catch (error) {
          if (replica.state !== 'down') log.warn({ replica: replica.name, err: error }, 'a replica is down; reads skip it');
          replica.state = 'down';
        }
      }),
    );
    // Callers every usable replica has caught up with read anywhere: forgotten.
    const usable = replicas.filter((replica) => replica.state === 'up');
    if (usable.length === replicas.length && usable.length > 0) {
      const everywhere = usable.reduce((least, replica) => (replica.replayed < least ? replica.replayed : least), usable[0]?.replayed ?? 0n);
      for (const [key, lsn] of written) if (lsn <= everywhere) written.delete(key);
    }
  }

  // One check at a time, the next `pollMs` after the last ended; the timer never keeps a process alive.
  let closed = false;
  let timer: NodeJS.Timeout | undefined;
  const checkLoop = async (): Promise<void> => {
    await check();
    if (closed) return;
    timer = setTimeout(() => {
      checking = checkLoop();
    }, pollMs);
    timer.unref();
  };
  let checking = checkLoop();

  /** A replica that has replayed `needed`, by the last look; round robin among them. */
  function caughtUp(needed: bigint | undefined): Replica | undefined {
    for (let step = 0; step < replicas.length; step += 1) {
      turn = (turn + 1) % replicas.length;
      const replica = replicas[turn] as Replica;
      if (replica.state === 'up' && (needed === undefined || replica.replayed >= needed)) return replica;
    }
    return undefined;
  }

  /** Waits, up to REPLICA_MAX_WAIT_MS, for the usable replica furthest ahead to replay `needed`. */
  async function waitFor(needed: bigint): Promise<Replica | undefined> {
    const usable = replicas.filter((replica) => replica.state === 'up');
    const ahead = usable.sort((a, b) => (a.replayed > b.replayed ? -1 : a.replayed < b.replayed ? 1 : 0))[0];
    if (!ahead) return undefined;
    const deadline = performance.now() + maxWaitMs;
    while (performance.now() < deadline) {
      try {
        const [row] = await ahead.client.sql.query<{ lsn: string | null }>('SELECT pg_last_wal_replay_lsn()::text AS lsn');
        const replayed = row?.lsn ? lsnOf(row.lsn) : undefined;
        if (replayed !== undefined && replayed > ahead.replayed) ahead.replayed = replayed;
        if (ahead.replayed >= needed) return ahead;
      } catch {
        return undefined;
      }
      await pause(Math.min(waitStepMs, Math.max(0, deadline - performance.now())));
    }
    return undefined;
  }

  /** The replica this read goes to, or undefined for the primary. */
  async function choose(reader: Reader): Promise<Replica | undefined> {
    const key = readerKey(reader);
    if (key === undefined) return undefined;
    const needed = written.get(key);
    return caughtUp(needed) ?? (needed === undefined ? undefined : await waitFor(needed));
  }

  function failed(replica: Replica, error: unknown): boolean {
    if (!isDatabaseUnavailable(error, replicaFailures)) return false;
    log.warn({ replica: replica.name, err: error }, 'a read failed on a replica; it is skipped and the read runs on the primary');
    // A conflict with recovery is not an outage: only an unreachable replica waits for the next check.
    if (isDatabaseUnavailable(error)) replica.state = 'down';
    return true;
  }

  function onPrimary(): ReadClient {
    primaryCount += 1;
    return primary;
  }

  return {
    replicated: true,
    async run(reader, read) {
      const replica = await choose(reader);
      if (!replica) return read(onPrimary());
      try {
        const result = await read(replica.client);
        replica.reads += 1;
        return result;
      } catch (error) {
        if (!failed(replica, error)) throw error;
        return read(onPrimary());
      }
    },
    async *stream(reader, open) {
      const replica = await choose(reader);
      if (!replica) return yield* open(onPrimary());
      const rows = open(replica.client);
      let first: IteratorResult<unknown>;
      try {
        first = await rows.next();
      } catch (error) {
        if (!failed(replica, error)) throw error;
        return yield* open(onPrimary());
      }
      replica.reads += 1;
      if (first.done) return;
      yield first.value as Awaited<ReturnType<typeof rows.next>>['value'];
      yield* rows;
    },
    async wrote(reader) {
      const key = readerKey(reader);
      if (key === undefined) return undefined;
      const [row] = await primary.sql.query<{ lsn: string }>('SELECT pg_current_wal_flush_lsn()::text AS lsn');
      const lsn = row ? lsnOf(row.lsn) : undefined;
      if (lsn === undefined) return undefined;
      remember(key, lsn);
      return lsnText(lsn);
    },
    carried(reader, text) {
      const key = readerKey(reader);
      const lsn = lsnOf(text);
      if (key !== undefined && lsn !== undefined) remember(key, lsn);
    },
    replicas: () => replicas.map(({ name, state, lagMs, reads }) => ({ name, state, lagMs, reads })),
    primaryReads: () => primaryCount,
    async close() {
      closed = true;
      clearTimeout(timer);
      await checking;
      await Promise.all(replicas.map((replica) => replica.client.close()));
    },
  };
}
