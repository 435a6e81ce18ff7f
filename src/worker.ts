/**
 * The worker role: works every module's queues and runs the outbox
 * dispatcher, in any number of processes beside the API ones.
 *
 * Stopping (SIGTERM) finishes the dispatcher's current pass; the process
 * then stops pg-boss gracefully (src/runtime.ts): no new jobs, running ones
 * finish (up to 20 s; what is left is retried after its expiry), and then
 * frees what the modules' jobs held (closeModuleWork).
 */
import type { PgListener } from './db/listener.js';
import type { Tx } from './db/client.js';
import { createOutboxDispatcher, type OutboxDispatcher, type OutboxEvent } from './events/dispatcher.js';
import type { JobResult, WorkOptions } from 'pg-boss';
import type { JobRunner } from './events/jobs.js';
import type { Metrics } from './http/metrics.js';
import type { Logger } from './lib/logger.js';
import { modules } from './modules/index.js';
import type { JobWorker, ModuleDefinition, WorkDependencies } from './modules/module.js';

type WorkOf<List extends readonly ModuleDefinition[]> = {
  [Module in List[number] as unknown extends ReturnType<NonNullable<Module['createWork']>> ? never : Module['name']]: ReturnType<
    NonNullable<Module['createWork']>
  >;
};
/** The modules' work objects, by module name: what their jobs and event reactions run (tests call them directly). */
export type ModuleWork = WorkOf<typeof modules>;

/** Builds each module's work object, once per worker process. */
function createModuleWork(dependencies: WorkDependencies): ModuleWork {
  return Object.fromEntries(modules.flatMap((module) => (module.createWork ? [[module.name, module.createWork(dependencies)]] : []))) as ModuleWork;
}

export interface Workers {
  dispatcher: OutboxDispatcher;
  work: ModuleWork;
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
  dependencies,
  runner,
  listener,
  metrics,
  log,
}: {
  /** What the work objects are built from (the services among them). */
  dependencies: WorkDependencies;
  runner: JobRunner;
  listener: PgListener;
  metrics: Metrics;
  log: Logger;
}): Promise<Workers> {
  const work = createModuleWork(dependencies);
  const workOf = (module: ModuleDefinition): unknown => (work as Record<string, unknown>)[module.name];
  for (const module of modules as readonly ModuleDefinition[]) {
    for (const job of module.jobs ?? []) {
      const { queue } = job;
      const loops = Math.min(2, queue.concurrency);
      await runner.boss.work<object, unknown, WorkOptions & { perJobResults: true }>(
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
                await job.run(data, { work: workOf(module), log: jobLog });
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
    for (const { queue, cron, onStart } of module.schedules ?? []) {
      await runner.boss.schedule(queue.name, cron, {}, { tz: 'UTC' });
      if (onStart) await runner.boss.send(queue.name, {});
    }
  }
  const dispatcher = createOutboxDispatcher({
    db: dependencies.db,
    listener,
    reactions: (modules as readonly ModuleDefinition[]).flatMap((module) =>
      module.reactsToEvents ? [(tx: Tx, events: readonly OutboxEvent[]) => module.reactsToEvents?.(workOf(module), tx, events) ?? Promise.resolve()] : [],
    ),
    log: log.child({ component: 'dispatcher' }),
  });
  await dispatcher.start();
  log.info({ queues: moduleQueues.map((queue) => queue.name) }, 'workers started');
  return {
    dispatcher,
    work,
    async stop() {
      await dispatcher.stop();
    },
  };
}
