/**
 * Prisma's schema engine, run from `@prisma/schema-engine-wasm` with a pg
 * driver adapter, because the native schema-engine binary cannot be
 * downloaded on machines without access to Prisma's binary host. Two adapter defects are worked
 * around here, both verified against @prisma/adapter-pg 7.10:
 *
 * - The catalog type `"char"` (OID 18, e.g. pg_constraint.contype) is not in
 *   the adapter's type map, so introspection failed. We read it as text and
 *   tell the engine it is a Character column, which is what it expects.
 * - `connectToShadowDb` builds its pool from `{...config, database}`; with a
 *   connection string, pg ignores `database`, so the "shadow" database was
 *   the main one. We create and drop shadow databases ourselves.
 * - `executeScript` splits a migration on every `;`, even inside comments,
 *   quoted strings and function bodies, so a migration defining a trigger
 *   function failed. PostgreSQL runs a multi-statement script itself (simple
 *   query protocol), which is what `psql` and our own runner do.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { parse as parseConnectionString } from 'pg-connection-string';
import { PrismaPg } from '@prisma/adapter-pg';
import { runStatement } from './statement.js';
import {
  bindMigrationAwareSqlAdapterFactory,
  ColumnTypeEnum,
  type SqlDriverAdapter,
  type SqlMigrationAwareDriverAdapterFactory,
  type SqlQuery,
  type SqlResultSet,
  type Transaction,
} from '@prisma/driver-adapter-utils';
import * as engineBindings from '@prisma/schema-engine-wasm/schema_engine_bg';
import type { SchemaEngine } from '@prisma/schema-engine-wasm/schema_engine_bg';

export type { SchemaEngine };

const charTypeOid = 18;
const textTypeOid = 25;

/** Node has WebAssembly; the typings for Node 20 do not declare it. */
const webAssembly = (
  globalThis as unknown as {
    WebAssembly: {
      instantiate(bytes: Uint8Array, imports: Record<string, unknown>): Promise<{ instance: { exports: unknown } }>;
    };
  }
).WebAssembly;

/**
 * The engine leaves a 10 s timer running after `free()`, which kept short
 * commands (`tally migrate`, test setup) alive for 10 s. Its timers must not
 * hold the process open; while it works, its database sockets do.
 */
function withUnrefTimers(bindings: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(bindings).map(([name, binding]) => {
      if (!name.startsWith('__wbg_setTimeout_') || typeof binding !== 'function') return [name, binding];
      return [
        name,
        (...args: unknown[]) => {
          const timer = (binding as (...parameters: unknown[]) => unknown)(...args);
          (timer as { unref?: () => void } | undefined)?.unref?.();
          return timer;
        },
      ];
    }),
  );
}

let wasmReady: Promise<void> | undefined;

/** Node 20 cannot `import` a .wasm file, so the module is instantiated by hand, once per process. */
function loadWasm(): Promise<void> {
  wasmReady ??= (async () => {
    const globals = globalThis as { PRISMA_WASM_PANIC_REGISTRY?: { set_message(message: string): void } };
    // The engine reports Rust panics through this global before it aborts.
    globals.PRISMA_WASM_PANIC_REGISTRY ??= {
      set_message(message: string) {
        process.stderr.write(`prisma schema engine panicked: ${message}\n`);
      },
    };
    const packageEntry = createRequire(import.meta.url).resolve('@prisma/schema-engine-wasm');
    const wasmPath = path.join(path.dirname(packageEntry), 'schema_engine_bg.wasm');
    const { instance } = await webAssembly.instantiate(fs.readFileSync(wasmPath), {
      './schema_engine_bg.js': withUnrefTimers(engineBindings),
    });
    const exports = instance.exports as Record<string, unknown> & { __wbindgen_start?: () => void };
    engineBindings.__wbg_set_wasm(exports);
    exports.__wbindgen_start?.();
  })();
  return wasmReady;
}

/** Column positions of `"char"` columns, per SQL text (the same SQL always yields the same columns). */
const charColumnsBySql = new Map<string, number[]>();

type Queryable = { query: (...args: never[]) => unknown };

function rememberCharColumns(sql: string | undefined, result: unknown): unknown {
  const fields = (result as { fields?: { dataTypeID: number }[] } | undefined)?.fields;
  if (!fields) return result;
  const positions: number[] = [];
  fields.forEach((field, index) => {
    if (field.dataTypeID === charTypeOid) {
      field.dataTypeID = textTypeOid;
      positions.push(index);
    }
  });
  if (positions.length > 0 && sql !== undefined) charColumnsBySql.set(sql, positions);
  return result;
}

function patchQueryable<T extends Queryable>(target: T): T {
  const original = target.query.bind(target) as (...args: unknown[]) => unknown;
  (target as { query: unknown }).query = (...args: unknown[]) => {
    const first = args[0];
    const sql = typeof first === 'string' ? first : (first as { text?: string } | undefined)?.text;
    const result = original(...args);
    return result instanceof Promise ? result.then((value) => rememberCharColumns(sql, value)) : result;
  };
  return target;
}

function createPool(config: pg.PoolConfig): pg.Pool {
  const pool = patchQueryable(new pg.Pool({ ...config, max: 2 }));
  pool.on('connect', (client) => {
    patchQueryable(client);
  });
  return pool;
}

function markCharColumns<T extends { queryRaw(query: SqlQuery): Promise<SqlResultSet> }>(queryable: T): T {
  const queryRaw = queryable.queryRaw.bind(queryable);
  queryable.queryRaw = async (query: SqlQuery) => {
    const result = await queryRaw(query);
    for (const position of charColumnsBySql.get(query.sql) ?? []) result.columnTypes[position] = ColumnTypeEnum.Character;
    return result;
  };
  return queryable;
}

/** The adapter's own error mapping (pg errors to the engine's), which its executeScript uses too. */
interface MapsErrors {
  onError(error: unknown): never;
}

/** The whole script in one simple-protocol query: PostgreSQL splits it correctly. */
function runScriptsWhole(adapter: SqlDriverAdapter, pool: pg.Pool): void {
  adapter.executeScript = async (script: string) => {
    try {
      await pool.query(script);
    } catch (error) {
      (adapter as unknown as MapsErrors).onError(error);
    }
  };
}

function patchAdapter(adapter: SqlDriverAdapter, pool: pg.Pool): SqlDriverAdapter {
  markCharColumns(adapter);
  runScriptsWhole(adapter, pool);
  const startTransaction = adapter.startTransaction.bind(adapter);
  adapter.startTransaction = async (...args: Parameters<typeof startTransaction>): Promise<Transaction> => markCharColumns(await startTransaction(...args));
  return adapter;
}

function poolConfigOf(databaseUrl: string): pg.PoolConfig {
  const parsed = parseConnectionString(databaseUrl);
  const config: pg.PoolConfig = {
    host: parsed.host ?? undefined,
    port: parsed.port ? Number(parsed.port) : undefined,
    user: parsed.user,
    password: parsed.password,
    database: parsed.database ?? undefined,
  };
  if (parsed.ssl !== undefined && parsed.ssl !== false) config.ssl = parsed.ssl as pg.PoolConfig['ssl'];
  return config;
}

class MigrationAdapterFactory implements SqlMigrationAwareDriverAdapterFactory {
  readonly provider = 'postgres' as const;
  readonly adapterName = '@prisma/adapter-pg';
  private readonly shadowDatabases = new Set<string>();
  private readonly pools = new Set<pg.Pool>();

  constructor(private readonly config: pg.PoolConfig) {}

  async connect(): Promise<SqlDriverAdapter> {
    const pool = this.pool(this.config);
    return patchAdapter(await new PrismaPg(pool, { disposeExternalPool: true }).connect(), pool);
  }

  private pool(config: pg.PoolConfig): pg.Pool {
    const pool = createPool(config);
    this.pools.add(pool);
    return pool;
  }

  async connectToShadowDb(): Promise<SqlDriverAdapter> {
    const name = `tally_shadow_${randomUUID().replaceAll('-', '')}`;
    await runStatement(this.config, `CREATE DATABASE ${pg.escapeIdentifier(name)}`);
    this.shadowDatabases.add(name);
    const pool = this.pool({ ...this.config, database: name });
    const adapter = await new PrismaPg(pool, { disposeExternalPool: true }).connect();
    const dispose = adapter.dispose.bind(adapter);
    adapter.dispose = async () => {
      await dispose();
      await this.dropShadow(name);
    };
    return patchAdapter(adapter, pool);
  }

  /**
   * The engine does not always dispose its adapters: close every pool (an open
   * connection would block cloning or dropping the database) and drop any
   * shadow database left behind.
   */
  async close(): Promise<void> {
    await Promise.all([...this.pools].map((pool) => (pool.ended ? undefined : pool.end())));
    this.pools.clear();
    for (const name of [...this.shadowDatabases]) await this.dropShadow(name);
  }

  private async dropShadow(name: string): Promise<void> {
    if (!this.shadowDatabases.delete(name)) return;
    await runStatement(this.config, `DROP DATABASE IF EXISTS ${pg.escapeIdentifier(name)} WITH (FORCE)`);
  }
}

export interface SchemaFile {
  path: string;
  content: string;
}

/** Runs `work` with a schema engine connected to `databaseUrl`, then frees it and any shadow database. */
export async function withSchemaEngine<T>(databaseUrl: string, schema: SchemaFile, work: (engine: SchemaEngine) => Promise<T>): Promise<T> {
  await loadWasm();
  const factory = new MigrationAdapterFactory(poolConfigOf(databaseUrl));
  const engine = await engineBindings.SchemaEngine.new(
    { datamodels: [[schema.path, schema.content]] },
    () => undefined,
    bindMigrationAwareSqlAdapterFactory(factory),
  );
  try {
    return await work(engine);
  } finally {
    engine.free();
    await factory.close();
  }
}
