/**
 * One PostgreSQL for the whole run (embedded, or TEST_DATABASE_URL), with a
 * migrated template database. Every test file clones its own database from
 * the template (test/helpers/server.ts), so files run in parallel. The
 * services beyond npm packages (pdftotext, Dovecot) are made ready first.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { startEmbeddedPostgres } from '../../src/db/embedded-postgres.js';
import { migrateDatabase } from '../../src/db/migrations.js';
import { runStatement } from '../../src/db/statement.js';
import { createLogger } from '../../src/lib/logger.js';
import { startTestServices } from './services.js';

declare module 'vitest' {
  export interface ProvidedContext {
    databaseAdminUrl: string;
    templateDatabase: string;
  }
}

function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  startTestServices();
  const log = createLogger(process.env.TEST_LOG_LEVEL ?? 'warn', { component: 'test-setup' });
  let adminUrl = process.env.TEST_DATABASE_URL;
  let scratch: string | undefined;
  let stopServer: (() => Promise<void>) | undefined;
  if (!adminUrl) {
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'tally-test-'));
    fs.chmodSync(scratch, 0o755);
    const server = await startEmbeddedPostgres({
      clusterDir: path.join(scratch, 'postgres'),
      database: 'postgres',
      log,
      ephemeral: true,
    });
    adminUrl = server.url;
    stopServer = () => server.stop();
  }
  const template = `tally_template_${process.pid}`;
  await runStatement(adminUrl, `DROP DATABASE IF EXISTS ${pg.escapeIdentifier(template)}`);
  await runStatement(adminUrl, `CREATE DATABASE ${pg.escapeIdentifier(template)}`);
  await migrateDatabase(withDatabase(adminUrl, template), log);
  project.provide('databaseAdminUrl', adminUrl);
  project.provide('templateDatabase', template);

  return async () => {
    await runStatement(adminUrl, `DROP DATABASE IF EXISTS ${pg.escapeIdentifier(template)} WITH (FORCE)`).catch(() => undefined);
    await stopServer?.();
    if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
  };
}
