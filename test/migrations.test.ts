import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { applyWithPrismaEngine, diffDatabaseToSchema, diffMigrationsToSchema, readMigrations } from '../src/db/migration-tools.js';
import { migrateDatabase, readMigrationFiles } from '../src/db/migrations.js';
import { runStatement } from '../src/db/statement.js';
import { createLogger } from '../src/lib/logger.js';
import { createEmptyDatabase } from './helpers/database.js';

const log = createLogger('silent');
const committed = readMigrationFiles().map((migration) => migration.name);

async function withEmptyDatabase(work: (url: string) => Promise<void>): Promise<void> {
  const database = await createEmptyDatabase();
  try {
    await work(database.url);
  } finally {
    await database.drop();
  }
}

describe('migrations', () => {
  it('are in Prisma folder format with a lock file', () => {
    const migrations = readMigrations();
    expect(migrations.lockfile.content).toMatch(/provider = "postgresql"/);
    expect(migrations.migrationDirectories.map((directory) => directory.path)).toEqual(committed);
    for (const directory of migrations.migrationDirectories) {
      expect(directory.path).toMatch(/^\d{14}_[a-z0-9_]+$/);
      expect(directory.migrationFile.content.tag).toBe('ok');
    }
  });

  it('replayed from empty give exactly schema.prisma (empty diff)', async () => {
    await withEmptyDatabase(async (url) => expect(await diffMigrationsToSchema(url)).toBe(''));
  });

  it('applied to an empty database leave it equal to schema.prisma, and a second run applies nothing', async () => {
    await withEmptyDatabase(async (url) => {
      expect(await migrateDatabase(url, log)).toEqual(committed);
      expect(await diffDatabaseToSchema(url)).toBe('');
      expect(await migrateDatabase(url, log)).toEqual([]);
    });
  });

  it("keep Prisma's bookkeeping: what the runner applied, Prisma's engine finds applied, and the other way round", async () => {
    await withEmptyDatabase(async (url) => {
      await migrateDatabase(url, log);
      expect(await applyWithPrismaEngine(url)).toEqual([]);
    });
    await withEmptyDatabase(async (url) => {
      expect(await applyWithPrismaEngine(url)).toEqual(committed);
      expect(await migrateDatabase(url, log)).toEqual([]);
    });
  });

  it('serialise concurrent runs: two processes starting together apply each migration once', async () => {
    await withEmptyDatabase(async (url) => {
      const [first, second] = await Promise.all([migrateDatabase(url, log), migrateDatabase(url, log)]);
      expect([...first, ...second].sort()).toEqual(committed);
    });
  });

  it('roll a failing migration back whole, record nothing of it, and retry it on the next run', async () => {
    const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'tally-migrations-'));
    const write = (name: string, sql: string): void => {
      fs.mkdirSync(path.join(directory, name));
      fs.writeFileSync(path.join(directory, name, 'migration.sql'), sql);
    };
    try {
      write('20260101000000_first', 'CREATE TABLE first_table (id int);');
      write('20260102000000_broken', 'CREATE TABLE half_made (id int);\nSELECT no_such_function();');
      await withEmptyDatabase(async (url) => {
        await expect(migrateDatabase(url, log, directory)).rejects.toThrow(/20260102000000_broken failed and was rolled back/);
        const tables = await runStatement(url, "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1");
        expect(tables.rows.map((row: { table_name: string }) => row.table_name)).toEqual(['_prisma_migrations', 'first_table']);
        const recorded = await runStatement(url, 'SELECT migration_name FROM _prisma_migrations');
        expect(recorded.rows).toEqual([{ migration_name: '20260101000000_first' }]);

        fs.writeFileSync(path.join(directory, '20260102000000_broken', 'migration.sql'), 'CREATE TABLE half_made (id int);');
        expect(await migrateDatabase(url, log, directory)).toEqual(['20260102000000_broken']);
      });
    } finally {
      fs.rmSync(directory, { recursive: true, force: true });
    }
  });
});
