/**
 * `npm run db:migration:create -- <name>`: writes the next migration from the
 * difference between prisma/migrations and prisma/schema.prisma. The engine
 * replays the migrations into a scratch database, so it needs a server: the
 * one in DATABASE_URL if set, otherwise a throw-away embedded PostgreSQL.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createLogger } from '../lib/logger.js';
import { startEmbeddedPostgres } from './embedded-postgres.js';
import { createMigration } from './migration-tools.js';

const name = process.argv[2];
if (name === undefined || name.startsWith('-')) {
  process.stderr.write('usage: npm run db:migration:create -- <name>   (lower-case letters, digits and _)\n');
  process.exit(2);
}

const log = createLogger(process.env.LOG_LEVEL ?? 'warn');
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'tally-migration-'));
fs.chmodSync(scratch, 0o755);
const server = process.env.DATABASE_URL
  ? undefined
  : await startEmbeddedPostgres({ clusterDir: path.join(scratch, 'postgres'), database: 'postgres', log, ephemeral: true });
try {
  const url = process.env.DATABASE_URL ?? server?.url;
  if (url === undefined) throw new Error('no database: set DATABASE_URL, or let the embedded one start');
  const folder = await createMigration(url, name);
  process.stdout.write(folder ? `wrote ${path.relative(process.cwd(), folder)}/migration.sql\n` : 'schema.prisma matches the migrations: nothing to write\n');
} finally {
  await server?.stop();
  fs.rmSync(scratch, { recursive: true, force: true });
}
