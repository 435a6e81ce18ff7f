import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import pg from 'pg';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { startTally } from '../src/main.js';
import { createTestDatabase, databaseUrl } from './helpers/database.js';
import { seeder } from './helpers/seed.js';
import { freePort } from './helpers/server.js';

/**
 * Regression: `$disconnect()` resolved while pooled connections were still
 * closing, so stopping the embedded PostgreSQL right after logged one error
 * per connection. The race showed about every other time; three rounds.
 */
async function stopRightAfterLoad(): Promise<string[]> {
  const database = await createTestDatabase();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tally-stop-'));
  const port = await freePort();
  const problems: string[] = [];
  const log = pino(
    { level: 'warn' },
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        problems.push(chunk.toString());
        done();
      },
    }),
  );
  const config = loadConfig({ NODE_ENV: 'test', DATABASE_URL: database.url, DATA_DIR: dataDir, PORT: String(port) });
  const tally = await startTally({ config, log, bootstrap: false });
  const admin = new pg.Client({ connectionString: databaseUrl('postgres') });
  await admin.connect();
  try {
    const server = {
      url: `http://localhost:${port}`,
      app: tally.app!,
      databaseUrl: database.url,
      workers: tally.workers,
      live: tally.live,
      stop: async () => undefined,
    };
    const tenant = await seeder(server).tenant();
    // Every pooled connection busy at once, as on a loaded server.
    await Promise.all(Array.from({ length: 40 }, () => tenant.api.get(`/tenants/${tenant.tenant.id}/notes`)));
    await tally.stop();
    // What a database shutdown does to connections still open: end them from the server side.
    await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1', [database.name]);
    await new Promise((resolve) => setTimeout(resolve, 300));
    return problems;
  } finally {
    await tally.stop();
    await admin.end();
    await database.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

describe('stopping a server', () => {
  it('has closed its database connections when stop() returns: PostgreSQL going away right after logs nothing', async () => {
    for (let round = 0; round < 3; round += 1) expect(await stopRightAfterLoad()).toEqual([]);
  });
});
