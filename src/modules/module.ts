/**
 * What a module is: a name (its key in `context.services`), a service
 * factory, its REST rows, its GraphQL types (registered on the builder by
 * importing its `.graphql.ts` from the manifest), and, if it has background
 * work, a work factory with the jobs and event reactions that use it. Each
 * domain's manifest lists its modules once (src/modules/domain.ts), and
 * src/modules/index.ts the domains; the services, the schema and the route
 * table are built from the modules of that list.
 */
import type { Config } from '../config.js';
import type { Db, Sql, Tx } from '../db/client.js';
import type { Reads } from '../db/replicas.js';
import type { OutboxEvent } from '../events/dispatcher.js';
import type { JobQueue, QueueDefinition } from '../events/jobs.js';
import type { LiveEvents } from '../events/live.js';
import type { BesideWrites } from './beside-writes.js';
import type { Services } from './services.js';
import type { Clock } from '../lib/clock.js';
import type { ConflictVocabulary } from '../lib/errors.js';
import type { Logger } from '../lib/logger.js';
import type { Secrets } from '../lib/secrets.js';
import type { RouteSpec, RouteTag } from '../rest/route.js';

/** What a service factory may use. Services declare the parts they need. */
export interface ServiceDependencies {
  db: Db;
  sql: Sql;
  /**
   * Where a read that tolerates a little lag runs (reports, exports, search,
   * lists, the change feed): a replica that has the caller's writes, else the
   * primary (src/db/replicas.ts). Writes, and reads inside a write, use `db`/`sql`.
   */
  reads: Reads;
  log: Logger;
  config: Config;
  secrets: Secrets;
  /** Enqueues background jobs inside a transaction. */
  jobs: JobQueue;
  /** Pushes to live subscribers, from any process. */
  live: LiveEvents;
  /** What time it is, for every rule (src/lib/clock.ts): never the system clock directly. */
  clock: Clock;
  /** Reads a module starts beside another's write, on a connection of their own (src/modules/beside-writes.ts). */
  besideWrites: BesideWrites;
}

/**
 * What a module's work object may use: what its service uses, and the
 * services (work done on a tenant's behalf, like importing a mail's
 * invoices, goes through them with a TenantAccess like any caller's).
 */
export interface WorkDependencies extends ServiceDependencies {
  services: Services;
}

/** What a job handler gets besides its data: its module's work object (built in worker processes only). */
export interface JobContext<Work = unknown> {
  work: Work;
  log: Logger;
}

/** A queue this module works, and what one of its jobs does. */
export interface JobWorker<Work = unknown> {
  queue: QueueDefinition;
  run(data: object, context: JobContext<Work>): Promise<void>;
}

/** Declares how jobs of `queue` are worked; the data type follows the queue's, the work object the module's. */
export function job<Data extends object, Work>(queue: QueueDefinition<Data>, run: (data: Data, context: JobContext<Work>) => Promise<void>): JobWorker<Work> {
  return { queue, run: run as JobWorker<Work>['run'] };
}

/** A queue that gets a job on a cron schedule (UTC), from whichever worker process's turn it is. */
export interface Schedule {
  queue: QueueDefinition;
  /** Five-field cron, e.g. `* * * * *` for every minute. */
  cron: string;
  /** Also one job whenever a worker process starts: work that catches up what a day without workers missed. */
  onStart?: boolean;
}

export interface ModuleDefinition<Name extends string = string, Service = unknown, Work = unknown> {
  name: Name;
  /** What callers reach through `context.services`: every method takes the caller's TenantAccess (or Actor) first. */
  createService(dependencies: ServiceDependencies): Service;
  /**
   * What the module's jobs and event reactions do, on bare ids and in the
   * dispatcher's transaction: built in worker processes only, and reachable
   * from their handlers alone, never from a resolver.
   */
  createWork?(dependencies: WorkDependencies): Work;
  /** REST rows: a `crud()` block plus the irregular rows beside it. */
  routes: readonly RouteSpec[];
  /** The OpenAPI tag its rows are listed under (a module with rows must have one; modules may share one). */
  tag?: RouteTag;
  /** Why its writes may be refused with 409 (`conflictReasons(...)`): the `reason`s its routes' 409s document. */
  conflicts?: ConflictVocabulary;
  /** Background work: the module's queues and their handlers (run by worker processes). */
  jobs?: readonly JobWorker<NoInfer<Work>>[];
  /** Jobs enqueued on a clock (each queue must also be in `jobs`). */
  schedules?: readonly Schedule[];
  /** What committed events cause in this module (webhook deliveries, notifications), in the outbox dispatcher's transaction. */
  reactsToEvents?(work: NoInfer<Work>, tx: Tx, events: readonly OutboxEvent[]): Promise<void>;
  /** Frees what the module's jobs hold (the OCR engine's thread), once the queues have stopped. */
  afterWork?: () => Promise<void>;
}

export function defineModule<const Name extends string, Service, Work = unknown>(
  module: ModuleDefinition<Name, Service, Work>,
): ModuleDefinition<Name, Service, Work> {
  return module;
}
