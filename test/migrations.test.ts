import { describe, expect, it } from 'vitest';
import { diffDatabaseToSchema, diffMigrationsToSchema, migrateDatabase, readMigrations } from '../src/db/migrations.js';
import { createLogger } from '../src/lib/logger.js';
import { createEmptyDatabase } from './helpers/database.js';

const log = createLogger('silent');

describe('migrations', () => {
  it('are in Prisma folder format with a lock file', () => {
    const migrations = readMigrations();
    expect(migrations.lockfile.content).toMatch(/provider = "postgresql"/);
    expect(migrations.migrationDirectories.length).toBeGreaterThan(0);
    for (const directory of migrations.migrationDirectories) {
      expect(directory.path).toMatch(/^\d{14}_[a-z0-9_]+$/);
      expect(directory.migrationFile.content.tag).toBe('ok');
    }
  });

  it('replayed from empty give exactly schema.prisma (empty diff)', async () => {
    const database = await createEmptyDatabase();
    try {
      expect(await diffMigrationsToSchema(database.url)).toBe('');
    } finally {
      await database.drop();
    }
  });

  it('applied to an empty database leave it equal to schema.prisma, and a second run applies nothing', async () => {
    const database = await createEmptyDatabase();
    try {
      const applied = await migrateDatabase(database.url, log);
      expect(applied).toEqual(readMigrations().migrationDirectories.map((directory) => directory.path));
      expect(await diffDatabaseToSchema(database.url)).toBe('');
      expect(await migrateDatabase(database.url, log)).toEqual([]);
    } finally {
      await database.drop();
    }
  });

  it('serialise concurrent runs: two processes starting together apply each migration once', async () => {
    const database = await createEmptyDatabase();
    try {
      const [first, second] = await Promise.all([migrateDatabase(database.url, log), migrateDatabase(database.url, log)]);
      expect([...first, ...second].sort()).toEqual(readMigrations().migrationDirectories.map((directory) => directory.path).sort());
    } finally {
      await database.drop();
    }
  });
});
