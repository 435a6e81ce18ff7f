/**
 * The one composition root (src/runtime.ts): what each role builds, and one
 * teardown that undoes exactly what was built, also when a start fails
 * halfway.
 */
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemActor } from '../src/auth/actor.js';
import { systemAccess } from '../src/auth/tenant-access.js';
import { loadConfig, type Config } from '../src/config.js';
import { createLogger } from '../src/lib/logger.js';
import { createRuntime } from '../src/runtime.js';
import { createTestDatabase, type TestDatabase } from './helpers/database.js';
import { eventually } from './helpers/eventually.js';
import { uniqueSlug } from './helpers/seed.js';
import { freePort, testSecrets, unlimitedRates } from './helpers/server.js';

let database: TestDatabase;
let dataDir: string;
const log = createLogger(process.env.TEST_LOG_LEVEL ?? 'silent');

beforeAll(async () => {
  database = await createTestDatabase();
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tally-runtime-'));
});
afterAll(async () => {
  await database?.drop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

function configFor(port: number, role: Config['role'] = 'all', extra: Record<string, string> = {}): Config {
  return loadConfig({
    NODE_ENV: 'test',
    DATABASE_URL: database.url,
    HOST: '127.0.0.1',
    PORT: String(port),
    BASE_URL: `http://localhost:${port}`,
    DATA_DIR: dataDir,
    ROLE: role,
    ...unlimitedRates,
    ...testSecrets,
    ...extra,
  });
}

/** Connections to the test database other than the one asking. */
async function otherConnections(): Promise<number> {
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    const result = await client.query<{ count: string }>(
      'SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
    );
    return Number(result.rows[0]?.count);
  } finally {
    await client.end();
  }
}

/** Connections to the test database that name themselves `applicationName`. */
async function connectionsNamed(applicationName: string): Promise<number> {
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    const result = await client.query<{ count: string }>('SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1', [
      applicationName,
    ]);
    return Number(result.rows[0]?.count);
  } finally {
    await client.end();
  }
}

describe('the runtime', () => {
  it('builds no HTTP app in a worker-only process, and stops once however often it is asked', async () => {
    const runtime = await createRuntime({ config: configFor(await freePort(), 'worker'), roles: ['worker'], log, bootstrap: false });
    expect(runtime.app).toBeUndefined();
    expect(runtime.url).toBeUndefined();
    expect(runtime.workers).toBeDefined();
    await Promise.all([runtime.stop(), runtime.stop(), runtime[Symbol.asyncDispose]()]);
    await eventually(async () => expect(await otherConnections()).toBe(0));
  });

  it('starts pg-boss in an API-only process only once it is needed (here: /metrics asks for the queues), on a connection of its own', async () => {
    const runtime = await createRuntime({ config: configFor(await freePort(), 'api'), roles: ['api'], log, bootstrap: false });
    try {
      expect(await fetch(`${runtime.url}/health`).then((answer) => answer.status)).toBe(200);
      expect(await connectionsNamed('tally-jobs')).toBe(0);
      await runtime.app?.metrics.render();
      expect(await connectionsNamed('tally-jobs')).toBe(1);
    } finally {
      await runtime.stop();
    }
    await eventually(async () => expect(await connectionsNamed('tally-jobs')).toBe(0));
  });

  it('collects the garbage of its start once it is quiet, before any request comes', async () => {
    const lines: { msg: string }[] = [];
    const captured = createLogger('debug', {}, { write: (line: string) => lines.push(JSON.parse(line) as { msg: string }) });
    const runtime = await createRuntime({ config: configFor(await freePort(), 'api'), roles: ['api'], log: captured, bootstrap: false, idleCollectionMs: 100 });
    try {
      await eventually(async () => expect(lines.filter((line) => line.msg === 'collected garbage while idle')).toHaveLength(1), 3_000);
    } finally {
      await runtime.stop();
    }
  });

  it('tears down what it built when a start fails halfway (the port is taken): no connection is left open', async () => {
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const { port } = taken.address() as net.AddressInfo;
    try {
      await expect(createRuntime({ config: configFor(port), roles: ['api', 'worker'], log, bootstrap: false })).rejects.toThrow(/EADDRINUSE/);
      await eventually(async () => expect(await otherConnections()).toBe(0));
    } finally {
      taken.close();
    }
  });

  it('runs every service on its one clock: with NODE_ENV=test, the one TEST_CLOCK starts (a CLI process here)', async () => {
    const runtime = await createRuntime({ config: configFor(await freePort(), 'all', { TEST_CLOCK: '2027-04-01' }), roles: [], log });
    try {
      expect(runtime.clock.today('UTC')).toBe('2027-04-01');
      const actor = systemActor('test');
      const tenant = await runtime.services.tenants.create(actor, { name: 'On the clock', slug: uniqueSlug('clock'), ownerEmail: 'owner@clock.example' });
      // A key expires 30 days after the clock's today, and a member joins on it (vacation is pro rata from then).
      const { apiKey } = await runtime.services.apiKeys.create(systemAccess(tenant, actor), { name: 'clock', expiresInDays: 30 });
      expect(apiKey.expiresAt.toISOString().slice(0, 10)).toBe('2027-05-01');
      expect(runtime.services.apiKeys.status(apiKey)).toBe('active');
      const owner = await runtime.db.tenantUser.findFirstOrThrow({ where: { email: 'owner@clock.example' } });
      expect(owner.createdAt.toISOString().slice(0, 10)).toBe('2027-04-01');
    } finally {
      await runtime.stop();
    }
  });
});
