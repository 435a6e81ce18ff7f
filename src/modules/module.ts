/**
 * What a module is: a name (its key in `context.services`), a service
 * factory, its REST rows, and its GraphQL types (registered on the builder by
 * importing its `.graphql.ts` from the manifest). src/modules/index.ts lists
 * the modules once; the services, the schema and the route table are built
 * from that list.
 */
import type { Config } from '../config.js';
import type { Db, Sql, Tx } from '../db/client.js';
import type { OutboxEvent } from '../events/dispatcher.js';
import type { JobQueue, QueueDefinition } from '../events/jobs.js';
import type { LiveEvents } from '../events/live.js';
import type { Services } from './services.js';
import type { Logger } from '../lib/logger.js';
import type { Secrets } from '../lib/secrets.js';
import type { RouteSpec, RouteTag } from '../rest/route.js';

/** What a service factory may use. Services declare the parts they need. */
export interface ServiceDependencies {
  db: Db;
  sql: Sql;
  log: Logger;
  config: Config;
  secrets: Secrets;
  /** Enqueues background jobs inside a transaction. */
  jobs: JobQueue;
  /** Pushes to live subscribers, from any process. */
  live: LiveEvents;
}

/** What a job handler gets besides its data. */
export interface JobContext {
  services: Services;
  log: Logger;
}

/** A queue this module works, and what one of its jobs does. */
export interface JobWorker {
  queue: QueueDefinition;
  run(data: object, context: JobContext): Promise<void>;
}

/** Declares how jobs of `queue` are worked; the data type follows the queue's. */
export function work<Data extends object>(queue: QueueDefinition<Data>, run: (data: Data, context: JobContext) => Promise<void>): JobWorker {
  return { queue, run: run as JobWorker['run'] };
}

/** What a module makes of committed events, in the outbox dispatcher's transaction. */
/** A queue that gets a job on a cron schedule (UTC), from whichever worker process's turn it is. */
export interface Schedule {
  queue: QueueDefinition;
  /** Five-field cron, e.g. `* * * * *` for every minute. */
  cron: string;
}

export type EventReaction = (services: Services, tx: Tx, events: readonly OutboxEvent[]) => Promise<void>;

export interface ModuleDefinition<Name extends string = string, Service = unknown> {
  name: Name;
  createService(dependencies: ServiceDependencies): Service;
  /** REST rows: a `crud()` block plus the irregular rows beside it. */
  routes: readonly RouteSpec[];
  /** The OpenAPI tag its rows are listed under (a module with rows must have one; modules may share one). */
  tag?: RouteTag;
  /** Background work: the module's queues and their handlers (run by worker processes). */
  jobs?: readonly JobWorker[];
  /** Jobs enqueued on a clock (each queue must also be in `jobs`). */
  schedules?: readonly Schedule[];
  /** What committed events cause in this module (webhook deliveries, notifications). */
  reactsToEvents?: EventReaction;
  /** Frees what the module's jobs hold (the OCR engine's thread), once the queues have stopped. */
  afterWork?: () => Promise<void>;
}

export function defineModule<const Name extends string, Service>(module: ModuleDefinition<Name, Service>): ModuleDefinition<Name, Service> {
  return module;
}
