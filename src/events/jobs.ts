/**
 * Background jobs on pg-boss, in its own `pgboss` schema of our database.
 *
 * A module defines its queues (`defineQueue`) with the retry, expiry and
 * dead-letter settings its work needs, and enqueues inside the transaction
 * of the change that causes the work (`jobs.send(tx, ...)`): the job exists
 * exactly when the change commits. Every process can enqueue; processes
 * with the worker role also work the queues (src/worker.ts).
 *
 * Processing is at least once: a worker that dies holding a job has it
 * retried after the queue's `expireInSeconds`, so handlers are idempotent.
 */
import type { ConstructorOptions, PgBoss, Queue } from 'pg-boss';
import pg from 'pg';
import type { Tx } from '../db/client.js';
import type { Logger } from '../lib/logger.js';

export const jobSchema = 'pgboss';

export type QueueSettings = Omit<Queue, 'name' | 'partition'>;

/** A queue and the shape of its jobs' data. */
export interface QueueDefinition<Data extends object = object> {
  name: string;
  settings: QueueSettings;
  /** How many jobs one worker process runs at once (default 1). */
  concurrency: number;
  /** Phantom: the data type, for `send`. */
  readonly data?: Data;
}

export function defineQueue<Data extends object>(
  name: string,
  settings: QueueSettings,
  { concurrency = 1 }: { concurrency?: number } = {},
): QueueDefinition<Data> {
  return { name, settings, concurrency };
}

export interface SendOptions {
  /**
   * Not before this many seconds from now. A delay, not an instant: pg-boss schedules by the database's
   * clock, and an instant of the clock rules read (a pinned one, in tests) is no time on it.
   */
  startAfterSeconds?: number;
  /** On `stately`/`singleton` queues: one job per key (one run per mailbox sync). */
  singletonKey?: string;
}

export interface JobQueue {
  /** Enqueues one job inside the caller's transaction. */
  send<Data extends object>(tx: Tx, queue: QueueDefinition<Data>, data: Data, options?: SendOptions): Promise<void>;
  /** Enqueues many jobs in one statement, inside the caller's transaction. */
  sendMany<Data extends object>(tx: Tx, queue: QueueDefinition<Data>, items: readonly Data[]): Promise<void>;
}

/** A queue's jobs by state, as pg-boss counts them (for /metrics). */
export interface QueueDepth {
  name: string;
  ready: number;
  deferred: number;
  active: number;
}

export interface JobRunner extends JobQueue {
  /** The pg-boss instance, for the worker runtime. */
  boss: PgBoss;
  queueDepths(): Promise<QueueDepth[]>;
  stop(options?: { graceful?: boolean; timeoutMs?: number }): Promise<void>;
}

export interface StartJobsOptions {
  databaseUrl: string;
  log: Logger;
  queues: readonly QueueDefinition[];
  /** Works the queues: its own connections, wake-ups by LISTEN/NOTIFY, expiry supervision. */
  works: boolean;
  /** Seconds between expiry checks (pg-boss's monitor); default 10. */
  superviseIntervalSeconds?: number;
}

/** Makes the queues match their definitions: created when new, updated when the code changed them. */
async function ensureQueues(boss: PgBoss, queues: readonly QueueDefinition[]): Promise<void> {
  // Dead-letter queues first: a queue naming one needs it to exist.
  const ordered = [...queues].sort((a, b) => Number(Boolean(a.settings.deadLetter)) - Number(Boolean(b.settings.deadLetter)));
  for (const { name, settings } of ordered) {
    const existing = await boss.getQueue(name);
    if (!existing) {
      await boss.createQueue(name, settings);
      continue;
    }
    const { policy: _policy, deadLetter, retryDelayMax: _retryDelayMax, heartbeatSeconds: _heartbeatSeconds, ...changeable } = settings;
    await boss.updateQueue(name, { ...changeable, deadLetter: deadLetter ?? null });
  }
}

/**
 * pg-boss for this process. Worker processes get pg-boss's own pool and its
 * LISTEN connection. Other processes only enqueue (inside the caller's
 * transaction) and read queue depths: pg-boss's own statements go through
 * a pool of one connection of their own (no polling), never the request pool, since
 * such a process starts pg-boss on its first enqueue (lazyJobQueue), when
 * every connection of the pool may be held by a transaction waiting for it.
 * pg-boss itself is loaded then: heap an API process that never enqueues
 * does without.
 */
export async function startJobs({ databaseUrl, log, queues, works, superviseIntervalSeconds = 10 }: StartJobsOptions): Promise<JobRunner> {
  const { PgBoss, fromPrisma } = await import('pg-boss');
  const common: ConstructorOptions = { schema: jobSchema, schedule: false };
  // A pool of one: it reconnects after a lost connection (a database restart) and lets an idle one go.
  let ownConnection: pg.Pool | undefined;
  if (!works) {
    ownConnection = new pg.Pool({ connectionString: databaseUrl, application_name: 'tally-jobs', max: 1, idleTimeoutMillis: 30_000 });
    ownConnection.on('error', (error) => log.warn({ reason: error.message }, 'an idle job queue connection was lost; the next use opens another'));
  }
  const options: ConstructorOptions = works
    ? {
        ...common,
        connectionString: databaseUrl,
        application_name: 'tally-worker',
        max: 4,
        useListenNotify: true,
        // Cron schedules (modules' `schedules`) fire in worker processes only.
        schedule: true,
        supervise: true,
        superviseIntervalSeconds,
        monitorIntervalSeconds: superviseIntervalSeconds,
      }
    : {
        ...common,
        db: { executeSql: async (text, values) => ({ rows: (await (ownConnection as pg.Pool).query(text, values ?? [])).rows }) },
        supervise: false,
      };
  const boss = new PgBoss(options);
  boss.on('error', (error) => log.error({ err: error }, 'job queue error'));
  boss.on('warning', (warning) => log.warn({ warning }, 'job queue warning'));
  try {
    await boss.start();
    await ensureQueues(boss, queues);
  } catch (error) {
    await ownConnection?.end().catch(() => undefined);
    throw error;
  }

  return {
    boss,
    async queueDepths() {
      return (await boss.getQueues()).map((queue) => ({ name: queue.name, ready: queue.readyCount, deferred: queue.deferredCount, active: queue.activeCount }));
    },
    async send(tx, queue, data, { startAfterSeconds, singletonKey } = {}) {
      await boss.send(queue.name, data, {
        ...(startAfterSeconds ? { startAfter: startAfterSeconds } : {}),
        ...(singletonKey ? { singletonKey } : {}),
        db: fromPrisma(tx),
      });
    },
    async sendMany(tx, queue, items) {
      if (items.length === 0) return;
      await boss.insert(
        queue.name,
        items.map((data) => ({ data })),
        { db: fromPrisma(tx) },
      );
    },
    async stop({ graceful = true, timeoutMs = 20_000 } = {}) {
      await boss.stop({ graceful, timeout: timeoutMs, close: true });
      await ownConnection?.end().catch(() => undefined);
    },
  };
}

/**
 * A JobQueue that starts pg-boss on first use: the CLI seldom enqueues, and
 * an API process only for some requests (an upload, an import, a mailbox
 * run) or when /metrics asks for the queues. A start that failed is tried
 * again by the next use.
 */
export function lazyJobQueue(start: () => Promise<JobRunner>): JobQueue & Pick<JobRunner, 'queueDepths'> & { stop(): Promise<void> } {
  let runner: Promise<JobRunner> | undefined;
  const started = (): Promise<JobRunner> => {
    if (!runner) {
      const starting = start();
      runner = starting;
      starting.catch(() => {
        if (runner === starting) runner = undefined;
      });
    }
    return runner;
  };
  return {
    async send(tx, queue, data, options) {
      await (await started()).send(tx, queue, data, options);
    },
    async sendMany(tx, queue, items) {
      if (items.length > 0) await (await started()).sendMany(tx, queue, items);
    },
    async queueDepths() {
      return (await started()).queueDepths();
    },
    async stop() {
      const current = runner;
      runner = undefined;
      if (current) await (await current.catch(() => undefined))?.stop({ graceful: true, timeoutMs: 5_000 });
    },
  };
}
