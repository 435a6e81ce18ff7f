/**
 * The outbox dispatcher gathers a burst: events committed within its linger
 * after a wake-up reach the reactions as one batch (one transaction, one read
 * of what the reactions need), and `drain()` does not wait.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createDatabaseClient, type DatabaseClient } from '../src/db/client.js';
import { createPgListener, type PgListener } from '../src/db/listener.js';
import { createOutboxDispatcher, type OutboxDispatcher, type OutboxEvent } from '../src/events/dispatcher.js';
import { createLogger } from '../src/lib/logger.js';
import { createTestDatabase, type TestDatabase } from './helpers/database.js';
import { eventually } from './helpers/eventually.js';

let database: TestDatabase;
let client: DatabaseClient;
let listener: PgListener;
let dispatcher: OutboxDispatcher | undefined;
const batches: string[][] = [];
const log = createLogger('silent');

/** Commits one event of its own (the insert's NOTIFY wakes the dispatcher on commit). */
async function commitEvent(subjectId: string): Promise<void> {
  await client.sql.query(`INSERT INTO events (id, type, "actorType", "subjectId", data) VALUES (gen_random_uuid()::text, 'webhook.test', 'system', $1, '{}')`, [
    subjectId,
  ]);
}

function startDispatcher(lingerMs: number): Promise<void> {
  dispatcher = createOutboxDispatcher({
    db: client.db,
    listener,
    log,
    lingerMs,
    reactions: [
      async (_tx, events: readonly OutboxEvent[]) => {
        batches.push(events.map((event) => event.subjectId as string));
      },
    ],
  });
  return dispatcher.start();
}

beforeAll(async () => {
  database = await createTestDatabase();
  client = createDatabaseClient({ url: database.url, log });
  listener = createPgListener({ url: database.url, log });
});

afterAll(async () => {
  await dispatcher?.stop();
  await listener?.close();
  await client?.close();
  await database?.drop();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

it('claims the events of a burst together: writes 30 ms apart inside the linger are one batch', async () => {
  // A linger far wider than the burst, so that a loaded machine cannot split it.
  await startDispatcher(1_000);
  batches.length = 0;
  for (const subject of ['first', 'second', 'third']) {
    await commitEvent(subject);
    await sleep(30);
  }
  await eventually(async () => expect(batches.flat()).toEqual(['first', 'second', 'third']), 10_000);
  // Without the linger the first NOTIFY's pass claims 'first' alone, 30 ms before 'second' commits.
  expect(batches).toEqual([['first', 'second', 'third']]);
  await dispatcher?.stop();
});

it('drains at once when asked (tests, shutdown): drain() does not wait for the linger', async () => {
  await startDispatcher(60_000);
  batches.length = 0;
  await commitEvent('asked');
  const started = performance.now();
  await dispatcher?.drain();
  expect(batches.flat()).toEqual(['asked']);
  expect(performance.now() - started).toBeLessThan(30_000);
  await dispatcher?.stop();
});
