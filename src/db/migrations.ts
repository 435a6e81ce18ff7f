/**
 * Migrations in Prisma's own folder format (`prisma/migrations/<timestamp>_<name>/migration.sql`
 * plus `migration_lock.toml`), so `prisma migrate deploy` works on them unchanged.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import type { MigrationList } from '@prisma/schema-engine-wasm/schema_engine_bg';
import type { Logger } from '../lib/logger.js';
import { withSchemaEngine, type SchemaFile } from './schema-engine.js';

const projectRoot = fileURLToPath(new URL('../..', import.meta.url));
const prismaDirectory = path.join(projectRoot, 'prisma');
const migrationsDirectory = path.join(prismaDirectory, 'migrations');
const schemaPath = path.join(prismaDirectory, 'schema.prisma');

const noFilters = { externalTables: [], externalEnums: [] };
/** Arbitrary, stable key: several processes may start at once; one migrates, the others wait. */
const migrationLockKey = 7_263_810_001;

function readSchema(): SchemaFile {
  return { path: 'schema.prisma', content: fs.readFileSync(schemaPath, 'utf8') };
}

/** The migrations folder as the schema engine wants it. */
export function readMigrations(directory = migrationsDirectory): MigrationList {
  const lockfilePath = path.join(directory, 'migration_lock.toml');
  const names = fs.existsSync(directory)
    ? fs
        .readdirSync(directory, { withFileTypes: true })
        .filter((entry) => entry.isDirectory())
        .map((entry) => entry.name)
        .sort()
    : [];
  return {
    baseDir: directory,
    lockfile: {
      path: 'migration_lock.toml',
      content: fs.existsSync(lockfilePath) ? fs.readFileSync(lockfilePath, 'utf8') : null,
    },
    shadowDbInitScript: '',
    migrationDirectories: names.map((name) => {
      const file = path.join(directory, name, 'migration.sql');
      return {
        path: name,
        migrationFile: {
          path: 'migration.sql',
          content: fs.existsSync(file)
            ? { tag: 'ok' as const, value: fs.readFileSync(file, 'utf8') }
            : { tag: 'error' as const, value: `${file} is missing` },
        },
      };
    }),
  };
}

/** Applies pending migrations; safe to call from several processes at once. Returns the names applied. */
export async function migrateDatabase(databaseUrl: string, log: Logger): Promise<string[]> {
  const lock = new pg.Client({ connectionString: databaseUrl });
  await lock.connect();
  try {
    await lock.query('SELECT pg_advisory_lock($1)', [migrationLockKey]);
    const { appliedMigrationNames } = await withSchemaEngine(databaseUrl, readSchema(), (engine) =>
      engine.applyMigrations({ migrationsList: readMigrations(), filters: noFilters }),
    );
    if (appliedMigrationNames.length > 0) log.info({ migrations: appliedMigrationNames }, 'applied database migrations');
    else log.debug('database schema is up to date');
    return appliedMigrationNames;
  } finally {
    await lock.query('SELECT pg_advisory_unlock($1)', [migrationLockKey]).catch(() => undefined);
    await lock.end();
  }
}

/**
 * The SQL that would take the migrations to schema.prisma; empty when they
 * agree. Needs a database server for the shadow database it replays the
 * migrations into (`databaseUrl` itself is not changed).
 */
export async function diffMigrationsToSchema(databaseUrl: string): Promise<string> {
  const schema = readSchema();
  const result = await withSchemaEngine(databaseUrl, schema, (engine) =>
    engine.diff({
      from: { tag: 'migrations', ...readMigrations() },
      to: { tag: 'schemaDatamodel', files: [schema] },
      script: true,
      exitCode: null,
      filters: noFilters,
    }),
  );
  return emptyDiffToEmpty(result.stdout ?? '');
}

/** The SQL that would take the live database at `databaseUrl` to schema.prisma; empty when they agree. */
export async function diffDatabaseToSchema(databaseUrl: string): Promise<string> {
  const schema = readSchema();
  const result = await withSchemaEngine(databaseUrl, schema, (engine) =>
    engine.diff({
      from: { tag: 'schemaDatasource', files: [schema], configDir: prismaDirectory },
      to: { tag: 'schemaDatamodel', files: [schema] },
      script: true,
      exitCode: null,
      filters: noFilters,
    }),
  );
  return emptyDiffToEmpty(result.stdout ?? '');
}

function emptyDiffToEmpty(script: string): string {
  return script.replace(/^-- This is an empty migration\.\s*$/m, '').trim();
}

function timestamp(date: Date): string {
  const pad = (value: number): string => String(value).padStart(2, '0');
  return (
    `${date.getUTCFullYear()}${pad(date.getUTCMonth() + 1)}${pad(date.getUTCDate())}` +
    `${pad(date.getUTCHours())}${pad(date.getUTCMinutes())}${pad(date.getUTCSeconds())}`
  );
}

/** Writes `prisma/migrations/<timestamp>_<name>/migration.sql` from the schema diff; undefined when nothing changed. */
export async function createMigration(databaseUrl: string, name: string): Promise<string | undefined> {
  if (!/^[a-z0-9_]+$/.test(name)) throw new Error('A migration name is lower-case letters, digits and _ only');
  fs.mkdirSync(migrationsDirectory, { recursive: true });
  const lockfile = path.join(migrationsDirectory, 'migration_lock.toml');
  if (!fs.existsSync(lockfile)) {
    fs.writeFileSync(
      lockfile,
      '# Please do not edit this file manually\n# It should be added in your version-control system (e.g., Git)\nprovider = "postgresql"\n',
    );
  }
  const script = await diffMigrationsToSchema(databaseUrl);
  if (script === '') return undefined;
  const folder = path.join(migrationsDirectory, `${timestamp(new Date())}_${name}`);
  fs.mkdirSync(folder);
  fs.writeFileSync(path.join(folder, 'migration.sql'), `${script}\n`);
  return folder;
}
