import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { migrateDatabase, migrationsDirectory, readMigrationFiles } from '../../src/db/migrations.js';
import type { Logger } from '../../src/lib/logger.js';

/**
 * Applies the committed migrations older than `migration` only: a database as
 * it was before that migration, to seed with the data it must carry over.
 * The files are the same, so the full run afterwards applies just the rest.
 */
export async function migrateUpTo(url: string, migration: string, log: Logger): Promise<string[]> {
  const names = readMigrationFiles().map((file) => file.name);
  if (!names.includes(migration)) throw new Error(`no committed migration ${migration}`);
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'tally-migrations-before-'));
  try {
    for (const name of names.filter((name) => name < migration)) {
      fs.cpSync(path.join(migrationsDirectory, name), path.join(directory, name), { recursive: true });
    }
    return await migrateDatabase(url, log, directory);
  } finally {
    fs.rmSync(directory, { recursive: true, force: true });
  }
}
