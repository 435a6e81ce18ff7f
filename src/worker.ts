/**
 * The worker role: works every module's queues and runs the outbox
 * dispatcher, in any number of processes beside the API ones.
 *
 * Stopping (SIGTERM) finishes the dispatcher's current pass; the process
 * then stops pg-boss gracefully (src/runtime.ts): no new jobs, running ones
 * finish (up to 20 s; what is left is retried after its expiry), and then
 * frees what the modules' jobs held (closeModuleWork).
 */
import type { Db } from './db/client.js';
import type { PgListener } from './db/listener.js';
import { createOutboxDispatcher, type OutboxDispatcher } from './events/dispatcher.js';
import type { JobResult, WorkOptions } from 'pg-boss';
import type { JobRunner } from './events/jobs.js';
import type { Services } from './modules/services.js';
import type { Metrics } from './http/metrics.js';
import type { Logger } from './lib/logger.js';
import { modules } from './modules/index.js';
import type { JobWorker } from './modules/module.js';

export interface Workers {
  dispatcher: OutboxDispatcher;
  /** Stops the dispatcher; pg-boss stops the queues next. */
  stop(): Promise<void>;
}

/** Frees what jobs held (modules' `afterWork`), once pg-boss has stopped. */
export async function closeModuleWork(): Promise<void> {
  for (const module of modules) await module.afterWork?.();
}

/** Every queue some module works (the API processes create them too, to enqueue). */
export const moduleQueues = modules.flatMap((module) => (module.jobs ?? []).map((job: JobWorker) => job.queue));

export async function startWorkers({
  db,
  services,
  jobs,
  listener,
  metrics,
  log,
}: {
  db: Db;
  services: Services;
  jobs: JobRunner;
  listener: PgListener;
  metrics: Metrics;
  log: Logger;
}): Promise<Workers> {
  for (const module of modules) {
    for (const job of module.jobs ?? []) {
      const { queue } = job;
      const loops = Math.min(2, queue.concurrency);
      await jobs.boss.work<object, unknown, WorkOptions & { perJobResults: true }>(
        queue.name,
        {
          // pg-boss waits a whole polling interval after each fetch unless NOTIFY wakes it or the fetch came
          // back full: with batches (full batch: fetch again at once) a backlog drains at full speed.
          localConcurrency: loops,
          batchSize: Math.ceil(queue.concurrency / loops),
          burstWhenBatchFull: true,
          perJobResults: true,
          // NOTIFY wakes workers for jobs due now; jobs due later (retries) are found by polling at pg-boss's usual 2 s.
          pollingIntervalSeconds: 2,
          notifyPollingIntervalSeconds: 2,
        },
        (claimed) =>
          Promise.all(
            claimed.map(async ({ id, data, retryCount }): Promise<JobResult> => {
              const jobLog = log.child({ queue: queue.name, jobId: id, retry: retryCount });
              try {
                await job.run(data, { services, log: jobLog });
                metrics.job(queue.name, 'completed');
                return { id, status: 'completed' };
              } catch (error) {
                metrics.job(queue.name, 'failed');
                jobLog.error({ err: error }, 'job failed; pg-boss retries it');
                return { id, status: 'failed', output: { message: error instanceof Error ? error.message : String(error) } };
              }
            }),
          ),
      );
    }
  }
  for (const module of modules) {
    // Upserts: every worker process declares the same schedules; pg-boss fires each once per tick.
    for (const { queue, cron } of module.schedules ?? []) await jobs.boss.schedule(queue.name, cron, {}, { tz: 'UTC' });
  }
  const dispatcher = createOutboxDispatcher({
    db,
    listener,
    reactions: modules.flatMap((module) => {
      const react = module.reactsToEvents;
      return react ? [(tx: Parameters<typeof react>[1], events: Parameters<typeof react>[2]) => react(services, tx, events)] : [];
    }),
    log: log.child({ component: 'dispatcher' }),
  });
  await dispatcher.start();
  log.info({ queues: moduleQueues.map((queue) => queue.name) }, 'workers started');
  return {
    dispatcher,
    async stop() {
      await dispatcher.stop();
    },
  };
}
