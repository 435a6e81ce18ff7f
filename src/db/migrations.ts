/**
 * Migrations at runtime: the committed SQL of `prisma/migrations/<timestamp>_<name>/migration.sql`,
 * applied in name order by a small runner under an advisory lock, so that
 * several processes may start at once (one migrates, the others wait).
 *
 * The runner keeps Prisma's own bookkeeping (`_prisma_migrations`, same table,
 * same checksums), so `prisma migrate deploy` and `prisma migrate status`
 * agree with it and can take over at any time. Unlike Prisma, each migration
 * runs in one transaction with its bookkeeping row: a migration that fails
 * leaves nothing half-applied and is simply retried on the next start.
 * Prisma's schema engine (src/db/migration-tools.ts) is only for writing new
 * migrations and checking them against schema.prisma; serving never loads it.
 */
import { createHash, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import type { Logger } from '../lib/logger.js';

const projectRoot = fileURLToPath(new URL('../..', import.meta.url));
export const prismaDirectory = path.join(projectRoot, 'prisma');
export const migrationsDirectory = path.join(prismaDirectory, 'migrations');

/** Arbitrary, stable key shared by every Tally process. */
const migrationLockKey = 7_263_810_001;

/** Prisma's table, exactly as its engine creates it. */
const bookkeepingTable = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
    "id"                    VARCHAR(36) PRIMARY KEY NOT NULL,
    "checksum"              VARCHAR(64) NOT NULL,
    "finished_at"           TIMESTAMPTZ,
    "migration_name"        VARCHAR(255) NOT NULL,
    "logs"                  TEXT,
    "rolled_back_at"        TIMESTAMPTZ,
    "started_at"            TIMESTAMPTZ NOT NULL DEFAULT now(),
    "applied_steps_count"   INTEGER NOT NULL DEFAULT 0
)`;

export interface MigrationFile {
  /** The folder name, `<timestamp>_<name>`. */
  name: string;
  sql: string;
  /** Hex SHA-256 of the file, as Prisma computes it. */
  checksum: string;
}

/** The committed migrations, oldest first. */
export function readMigrationFiles(directory = migrationsDirectory): MigrationFile[] {
  if (!fs.existsSync(directory)) return [];
  return fs
    .readdirSync(directory, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort()
    .map((name) => {
      const file = path.join(directory, name, 'migration.sql');
      if (!fs.existsSync(file)) throw new Error(`${file} is missing`);
      const sql = fs.readFileSync(file, 'utf8');
      return { name, sql, checksum: createHash('sha256').update(sql).digest('hex') };
    });
}

interface AppliedRow {
  migration_name: string;
  checksum: string;
  finished_at: Date | null;
  rolled_back_at: Date | null;
}

/** Applies the pending migrations; safe to call from several processes at once. Returns the names applied. */
export async function migrateDatabase(databaseUrl: string, log: Logger, directory = migrationsDirectory): Promise<string[]> {
  const migrations = readMigrationFiles(directory);
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [migrationLockKey]);
    await client.query(bookkeepingTable);
    const { rows } = await client.query<AppliedRow>('SELECT migration_name, checksum, finished_at, rolled_back_at FROM "_prisma_migrations"');
    const unfinished = rows.filter((row) => row.finished_at === null && row.rolled_back_at === null);
    if (unfinished.length > 0) {
      // Left by `prisma migrate deploy` (which does not use transactions): a person must look at it.
      throw new Error(
        `Migration ${unfinished.map((row) => row.migration_name).join(', ')} failed part-way in an earlier run. ` +
          'Repair the database, then mark it with `prisma migrate resolve --applied <name>` or `--rolled-back <name>`.',
      );
    }
    const applied = new Map(rows.filter((row) => row.finished_at !== null && row.rolled_back_at === null).map((row) => [row.migration_name, row]));
    for (const migration of migrations) {
      const row = applied.get(migration.name);
      if (row && row.checksum !== migration.checksum) {
        log.warn({ migration: migration.name }, 'an applied migration has been edited since; its new text is not applied again');
      }
    }
    const pending = migrations.filter((migration) => !applied.has(migration.name));
    for (const migration of pending) {
      const started = performance.now();
      await client.query('BEGIN');
      try {
        const id = randomUUID();
        await client.query('INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at) VALUES ($1, $2, $3, now())', [
          id,
          migration.checksum,
          migration.name,
        ]);
        await client.query(migration.sql);
        await client.query('UPDATE "_prisma_migrations" SET finished_at = now(), applied_steps_count = 1 WHERE id = $1', [id]);
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw new Error(`Migration ${migration.name} failed and was rolled back: ${(error as Error).message}`, { cause: error });
      }
      log.info({ migration: migration.name, durationMs: Math.round(performance.now() - started) }, 'applied a database migration');
    }
    if (pending.length === 0) log.debug('database schema is up to date');
    return pending.map((migration) => migration.name);
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [migrationLockKey]).catch(() => undefined);
    await client.end();
  }
}
