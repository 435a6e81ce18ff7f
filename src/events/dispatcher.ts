/**
 * The outbox dispatcher: turns each committed event into the work it causes
 * (webhook deliveries, notifications), once per event however many worker
 * processes run it.
 *
 * A batch of unprocessed events is claimed with FOR UPDATE SKIP LOCKED, each
 * reaction writes its rows (and enqueues its jobs) in that same transaction,
 * and the events are marked processed before it commits: all of it happens,
 * or none of it and the next pass claims them again. Workers are woken by
 * the events table's NOTIFY (on commit); a sweep every 30 s covers a lost
 * LISTEN connection and events written while no worker ran.
 *
 * A wake-up waits `lingerMs` before it claims: the writes of a burst (a
 * client saving a week of entries, an import's pages) then reach the
 * reactions as one batch, whose reactions read what they need once per
 * batch (a tenant's settings, a member's days for the working-time rules)
 * instead of once per event. A webhook or notification leaves that much
 * later; `drain()` (tests, shutdown) does not wait.
 */
import type { Db, Tx } from '../db/client.js';
import type { PgListener } from '../db/listener.js';
import type { ActorType } from '../generated/prisma/enums.js';
import type { Logger } from '../lib/logger.js';
import type { EventType } from './outbox.js';

/** An event as the dispatcher hands it to reactions. */
export interface OutboxEvent {
  id: string;
  tenantId: string | null;
  type: EventType;
  actorType: ActorType;
  actorId: string | null;
  subjectId: string | null;
  /** The resource as the API shows it (JSON). */
  data: Record<string, unknown>;
  createdAt: Date;
}

/** What an event causes: rows written (and jobs enqueued) in the dispatcher's transaction. */
export type OutboxReaction = (tx: Tx, events: readonly OutboxEvent[]) => Promise<void>;

export interface OutboxDispatcher {
  start(): Promise<void>;
  /** Dispatches everything pending now; resolves when nothing is left (tests, shutdown). */
  drain(): Promise<number>;
  stop(): Promise<void>;
}

export const eventsChannel = 'tally_events';

const batchSize = 200;
const sweepIntervalMs = 30_000;
/** How long a wake-up gathers events before it claims them: a fraction of a webhook's usual latency, a burst's worth of writes. */
const defaultLingerMs = 50;

export function createOutboxDispatcher({
  db,
  listener,
  reactions,
  log,
  lingerMs = defaultLingerMs,
}: {
  db: Db;
  listener: PgListener;
  reactions: readonly OutboxReaction[];
  log: Logger;
  lingerMs?: number;
}): OutboxDispatcher {
  let running: Promise<number> | undefined;
  let again = false;
  let stopped = false;
  let sweep: NodeJS.Timeout | undefined;
  let lingering: NodeJS.Timeout | undefined;
  let unlisten: (() => void) | undefined;

  /** Claims up to `limit` pending events (or the one named) and runs every reaction on them; returns the ids. */
  async function dispatch(limit: number, only?: string): Promise<string[]> {
    return db.$transaction(
      async (tx) => {
        const events = await tx.$queryRaw<OutboxEvent[]>`
          SELECT "id", "tenantId", "type", "actorType", "actorId", "subjectId", "data", "createdAt"
          FROM "events" WHERE "processedAt" IS NULL AND (${only ?? null}::text IS NULL OR "id" = ${only ?? null})
          ORDER BY "createdAt" LIMIT ${limit}
          FOR UPDATE SKIP LOCKED`;
        if (events.length === 0) return [];
        for (const react of reactions) await react(tx, events);
        const ids = events.map((event) => event.id);
        await tx.$executeRaw`UPDATE "events" SET "processedAt" = now() WHERE "id" = ANY(${ids})`;
        return ids;
      },
      { timeout: 60_000, maxWait: 10_000 },
    );
  }

  /**
   * After a failed batch, its events one at a time, so that one event no
   * reaction can handle does not hold back all the others: that one is
   * logged with its id and set aside (marked processed).
   */
  async function isolate(batchError: unknown): Promise<number> {
    const pending = await db.$queryRaw<{ id: string }[]>`
      SELECT "id" FROM "events" WHERE "processedAt" IS NULL ORDER BY "createdAt" LIMIT ${batchSize}`;
    if (pending.length === 0) return 0;
    log.warn({ err: batchError, events: pending.length }, 'a batch of events failed; dispatching them one at a time');
    let done = 0;
    for (const { id } of pending) {
      try {
        done += (await dispatch(1, id)).length;
      } catch (error) {
        await db.$executeRaw`UPDATE "events" SET "processedAt" = now() WHERE "id" = ${id} AND "processedAt" IS NULL`;
        log.error({ err: error, eventId: id }, 'an event could not be dispatched and was set aside: no webhooks or notifications for it');
      }
    }
    return done;
  }

  async function dispatchBatch(): Promise<number> {
    try {
      return (await dispatch(batchSize)).length;
    } catch (error) {
      return isolate(error);
    }
  }

  async function drainAll(): Promise<number> {
    let total = 0;
    do {
      again = false;
      for (;;) {
        const count = await dispatchBatch();
        total += count;
        if (count < batchSize || stopped) break;
      }
    } while (again && !stopped);
    if (total > 0) log.debug({ events: total }, 'events dispatched');
    return total;
  }

  function drain(): Promise<number> {
    if (running) {
      // Whatever committed after the running pass looked is picked up by one more pass.
      again = true;
      return running;
    }
    running = drainAll().finally(() => {
      running = undefined;
    });
    return running;
  }

  function wake(): void {
    // Wake-ups during the linger join the pass it starts.
    if (stopped || lingering) return;
    lingering = setTimeout(() => {
      lingering = undefined;
      if (stopped) return;
      drain().catch((error: unknown) => log.error({ err: error }, 'dispatching events failed; the next wake-up or sweep retries'));
    }, lingerMs);
  }

  return {
    async start() {
      unlisten = await listener.listen(eventsChannel, wake);
      listener.onReconnect(wake);
      sweep = setInterval(wake, sweepIntervalMs);
      sweep.unref();
      wake();
    },
    drain,
    async stop() {
      stopped = true;
      clearInterval(sweep);
      clearTimeout(lingering);
      unlisten?.();
      await running?.catch(() => undefined);
    },
  };
}
