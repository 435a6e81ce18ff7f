/**
 * Prometheus metrics of one process (`GET /metrics`, text format), built
 * once: HTTP requests by route template and status (never by raw path, so
 * ids do not explode the series), GraphQL operations, the database pool,
 * the event loop (prom-client's defaults), and the job queues and their
 * outcomes. Readable by superadmins, by owners and admins of any tenant and
 * API keys, or with `Authorization: Bearer <METRICS_TOKEN>` for a scraper.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { PoolUse } from '../db/client.js';
import type { ReadRouting } from '../db/replicas.js';
import type { QueueDepth } from '../events/jobs.js';

export interface Metrics {
  /** One answered HTTP request: its route template (`/tenants/{tenantId}/notes`), not its path. */
  request(method: string, route: string, status: number, seconds: number): void;
  /** One GraphQL operation at /graphql. */
  graphqlOperation(type: string, outcome: 'ok' | 'error'): void;
  /** One job a worker finished. */
  job(queue: string, outcome: 'completed' | 'failed'): void;
  contentType: string;
  render(): Promise<string>;
}

/** A gauge with one label, read at each scrape from a record of counts: one series per key, the key as the label's value. */
function countsGauge<Key extends string>(registry: Registry, name: string, help: string, label: string, read: () => Record<Key, number>): void {
  new Gauge({
    name,
    help,
    labelNames: [label],
    registers: [registry],
    collect() {
      for (const [key, value] of Object.entries<number>(read())) this.set({ [label]: key }, value);
    },
  });
}

export function createMetrics({
  poolUse,
  queueDepths,
  reads,
  liveSubscribers,
}: {
  poolUse: () => PoolUse;
  queueDepths: () => Promise<QueueDepth[]>;
  /** The replicas and the reads each served (none without DATABASE_REPLICA_URL). */
  reads?: Pick<ReadRouting, 'replicas' | 'primaryReads'>;
  /** GraphQL subscriptions listening in this process now, by kind. */
  liveSubscribers?: () => { notifications: number; events: number };
}): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'tally_' });
  const requests = new Counter({
    name: 'tally_http_requests_total',
    help: 'HTTP requests answered',
    labelNames: ['method', 'route', 'status'],
    registers: [registry],
  });
  const latency = new Histogram({
    name: 'tally_http_request_duration_seconds',
    help: 'Time to answer an HTTP request',
    labelNames: ['method', 'route', 'status'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const operations = new Counter({
    name: 'tally_graphql_operations_total',
    help: 'GraphQL operations run at /graphql',
    labelNames: ['type', 'outcome'],
    registers: [registry],
  });
  const jobs = new Counter({ name: 'tally_jobs_total', help: 'Jobs finished by this worker process', labelNames: ['queue', 'outcome'], registers: [registry] });
  countsGauge(registry, 'tally_db_pool_connections', 'Database pool connections by state (waiting: queries waiting for one)', 'state', poolUse);
  new Gauge({
    name: 'tally_queue_jobs',
    help: 'Jobs in each queue by state (shared by all processes)',
    labelNames: ['queue', 'state'],
    registers: [registry],
    async collect() {
      for (const queue of await queueDepths().catch(() => [])) {
        this.set({ queue: queue.name, state: 'ready' }, queue.ready);
        this.set({ queue: queue.name, state: 'deferred' }, queue.deferred);
        this.set({ queue: queue.name, state: 'active' }, queue.active);
      }
    },
  });
  if (liveSubscribers)
    countsGauge(
      registry,
      'tally_live_subscribers',
      'GraphQL subscriptions listening in this process (notifications: notificationAdded; events: tenantEvents)',
      'kind',
      liveSubscribers,
    );
  if (reads && reads.replicas().length > 0) replicaMetrics(registry, reads);
  return {
    request(method, route, status, seconds) {
      const labels = { method, route, status: String(status) };
      requests.inc(labels);
      latency.observe(labels, seconds);
    },
    graphqlOperation: (type, outcome) => operations.inc({ type, outcome }),
    job: (queue, outcome) => jobs.inc({ queue, outcome }),
    contentType: registry.contentType,
    render: () => registry.metrics(),
  };
}

/**
 * Each replica's lag and state, and the reads each database served, as a
 * counter and as the share of all reads this process routed (replicas and
 * the primary, which has the label `primary`).
 */
function replicaMetrics(registry: Registry, reads: Pick<ReadRouting, 'replicas' | 'primaryReads'>): void {
  new Gauge({
    name: 'tally_replica_lag_seconds',
    help: 'How far each read replica was behind the primary at its last check (-1: not yet known)',
    labelNames: ['replica'],
    registers: [registry],
    collect() {
      for (const replica of reads.replicas()) this.set({ replica: replica.name }, replica.lagMs === null ? -1 : replica.lagMs / 1000);
    },
  });
  new Gauge({
    name: 'tally_replica_up',
    help: 'Whether each read replica serves reads (1), or is skipped as down or lagging (0)',
    labelNames: ['replica', 'state'],
    registers: [registry],
    collect() {
      this.reset();
      for (const replica of reads.replicas()) this.set({ replica: replica.name, state: replica.state }, replica.state === 'up' ? 1 : 0);
    },
  });
  const served = (): { database: string; reads: number }[] => [
    { database: 'primary', reads: reads.primaryReads() },
    ...reads.replicas().map((replica) => ({ database: replica.name, reads: replica.reads })),
  ];
  new Counter({
    name: 'tally_db_reads_total',
    help: 'Reads routed by this process (reports, exports, search, lists, the change feed), by the database that served them',
    labelNames: ['database'],
    registers: [registry],
    collect() {
      this.reset();
      for (const { database, reads: count } of served()) this.inc({ database }, count);
    },
  });
  new Gauge({
    name: 'tally_db_reads_share',
    help: 'The share of routed reads each database served since the process started (0 to 1)',
    labelNames: ['database'],
    registers: [registry],
    collect() {
      const all = served();
      const total = all.reduce((sum, { reads: count }) => sum + count, 0);
      for (const { database, reads: count } of all) this.set({ database }, total === 0 ? 0 : count / total);
    },
  });
}
