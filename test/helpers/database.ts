import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import { runStatement } from '../../src/db/statement.js';

export function databaseUrl(database: string): string {
  const parsed = new URL(inject('databaseAdminUrl'));
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

async function administer(sql: string): Promise<void> {
  await runStatement(inject('databaseAdminUrl'), sql);
}

export interface TestDatabase {
  name: string;
  url: string;
  drop(): Promise<void>;
}

/** A fresh, migrated database of this test file's own, cloned from the run's template. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const name = `tally_test_${process.pid}_${randomBytes(4).toString('hex')}`;
  await administer(`CREATE DATABASE ${pg.escapeIdentifier(name)} TEMPLATE ${pg.escapeIdentifier(inject('templateDatabase'))}`);
  return {
    name,
    url: databaseUrl(name),
    drop: () => administer(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(name)} WITH (FORCE)`),
  };
}

/** An empty database (nothing migrated), for tests of the migrations themselves. */
export async function createEmptyDatabase(): Promise<TestDatabase> {
  const name = `tally_empty_${process.pid}_${randomBytes(4).toString('hex')}`;
  await administer(`CREATE DATABASE ${pg.escapeIdentifier(name)}`);
  return {
    name,
    url: databaseUrl(name),
    drop: () => administer(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(name)} WITH (FORCE)`),
  };
}
