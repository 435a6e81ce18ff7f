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
import { PgBoss, fromPrisma, type ConstructorOptions, type Queue } from 'pg-boss';
import type { Sql, Tx } from '../db/client.js';
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
  /** Not before this time. */
  startAfter?: Date;
  /** On `stately`/`singleton` queues: one job per key (one run per mailbox sync). */
  singletonKey?: string;
}

export interface JobQueue {
  /** Enqueues one job inside the caller's transaction. */
  send<Data extends object>(tx: Tx, queue: QueueDefinition<Data>, data: Data, options?: SendOptions): Promise<void>;
  /** Enqueues many jobs in one statement, inside the caller's transaction. */
  sendMany<Data extends object>(tx: Tx, queue: QueueDefinition<Data>, items: readonly Data[]): Promise<void>;
}

export interface JobRunner extends JobQueue {
  /** The pg-boss instance, for the worker runtime. */
  boss: PgBoss;
  stop(options?: { graceful?: boolean; timeoutMs?: number }): Promise<void>;
}

export interface StartJobsOptions {
  databaseUrl: string;
  sql: Sql;
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
 * pg-boss for this process. API-only processes enqueue through the
 * process's pool (no extra connections, no polling); worker processes get
 * pg-boss's own pool and its LISTEN connection.
 */
export async function startJobs({ databaseUrl, sql, log, queues, works, superviseIntervalSeconds = 10 }: StartJobsOptions): Promise<JobRunner> {
  const common: ConstructorOptions = { schema: jobSchema, schedule: false };
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
        db: { executeSql: async (text, values) => ({ rows: await sql.query(text, values ?? []) }) },
        supervise: false,
      };
  const boss = new PgBoss(options);
  boss.on('error', (error) => log.error({ err: error }, 'job queue error'));
  boss.on('warning', (warning) => log.warn({ warning }, 'job queue warning'));
  await boss.start();
  await ensureQueues(boss, queues);

  return {
    boss,
    async send(tx, queue, data, { startAfter, singletonKey } = {}) {
      await boss.send(queue.name, data, { ...(startAfter ? { startAfter } : {}), ...(singletonKey ? { singletonKey } : {}), db: fromPrisma(tx) });
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
    },
  };
}

/** A JobQueue that starts pg-boss on first use (the CLI seldom enqueues). */
export function lazyJobQueue(start: () => Promise<JobRunner>): JobQueue & { stop(): Promise<void> } {
  let runner: Promise<JobRunner> | undefined;
  const started = () => (runner ??= start());
  return {
    async send(tx, queue, data, options) {
      await (await started()).send(tx, queue, data, options);
    },
    async sendMany(tx, queue, items) {
      if (items.length > 0) await (await started()).sendMany(tx, queue, items);
    },
    async stop() {
      if (runner) await (await runner).stop({ graceful: true, timeoutMs: 5_000 });
    },
  };
}
