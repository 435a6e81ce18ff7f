/**
 * One transaction is one connection, which runs one statement at a time.
 * Prisma's query plan fetches an operation's relations at once (a join's
 * children under Promise.all); inside a transaction they went out together
 * on its connection, and pg warned ("Calling client.query() when the client
 * is already executing a query", refused by pg 9). The patched driver
 * adapter sends them one after another (patches/@prisma+adapter-pg+*.patch);
 * test/setup/overlapping-queries.ts fails any test during which a
 * connection is sent a query while it runs one, this one included.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createDatabaseClient, type DatabaseClient } from '../src/db/client.js';
import { exposedErrorOf } from '../src/graphql/errors.js';
import { createLogger } from '../src/lib/logger.js';
import { createTestDatabase, type TestDatabase } from './helpers/database.js';

let database: TestDatabase;
let client: DatabaseClient;

beforeAll(async () => {
  database = await createTestDatabase();
  client = createDatabaseClient({ url: database.url, log: createLogger('silent') });
});

afterAll(async () => {
  await client?.close();
  await database?.drop();
});

it('reads a record with several relations inside a transaction, one statement after another', async () => {
  const read = await client.db.$transaction(async (tx) => {
    const tenant = await tx.tenant.create({ data: { name: 'Relations', slug: 'relations-in-a-transaction' } });
    await tx.client.create({ data: { tenantId: tenant.id, name: 'A client', currency: 'EUR' } });
    // An update that returns relations: one statement for the row, then one for each relation, on this transaction's connection.
    return tx.tenant.update({
      where: { id: tenant.id },
      data: { name: 'Relations read' },
      include: { clients: true, users: true, projects: true, vehicles: true },
    });
  });
  expect(read.name).toBe('Relations read');
  expect(read.clients.map((row) => row.name)).toEqual(['A client']);
  expect([read.users, read.projects, read.vehicles]).toEqual([[], [], []]);
});

it('a transaction that outlives its timeout is answered 503 UNAVAILABLE with Retry-After (nothing committed), not an internal error', async () => {
  const failed = await client.db
    .$transaction(
      async (tx) => {
        await tx.$queryRaw`SELECT 1 AS slept FROM pg_sleep(0.3)`;
        await tx.tenant.create({ data: { name: 'Too late', slug: 'a-transaction-past-its-timeout' } });
      },
      { timeout: 100 },
    )
    .catch((error: unknown) => error);
  const exposed = exposedErrorOf(failed, createLogger('silent'));
  expect(exposed.code).toBe('UNAVAILABLE');
  expect(exposed.headers?.['retry-after']).toMatch(/^\d+$/);
  expect(await client.db.tenant.count({ where: { slug: 'a-transaction-past-its-timeout' } })).toBe(0);
});
