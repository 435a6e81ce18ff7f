/**
 * The `tally` command (package bin; also `npm run cli --`). Commands that
 * touch data use the same services as the API, acting as the system.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { systemActor } from '../auth/actor.js';
import { systemAccess } from '../auth/tenant-access.js';
import { ConfigError, loadConfig, processRoles, type Config, type ProcessRole } from '../config.js';
import type { Clock } from '../lib/clock.js';
import { AppError } from '../lib/errors.js';
import { createLogger, logsWritten, type Logger } from '../lib/logger.js';
import { startTally } from '../main.js';
import { createRuntime } from '../runtime.js';
import { openDatabaseServer } from '../db/database.js';
import { migrateDatabase } from '../db/migrations.js';
import type { Db, Sql } from '../db/client.js';
import type { Services } from '../modules/services.js';
import { parseInput } from '../lib/dto.js';
import { CreateApiKeyDto } from '../modules/platform/api-key/api-key.service.js';
import { CreateTenantDto } from '../modules/platform/tenant/tenant.service.js';

const usage = `Usage: tally <command> [options]

Commands:
  serve [--role all|api|worker]        run the server (default role: $ROLE or all)
  migrate                              apply pending database migrations
  tenant create --name <name> --slug <slug> [--owner-email <email>]
  api-key create --tenant <id|slug> --name <name> [--expires-in-days <1-365>]
                                       prints the key once
  superadmin grant <email>             make a user who has signed in a superadmin
  superadmin revoke <email>            take it back (the last superadmin stays)
  seed [--tenants 2] [--users 20] [--entries 10000]
                                       fill the database with plausible work; prints an API key per tenant

Configuration comes from the environment; see README.md.
`;

class UsageError extends Error {}

function parse(args: string[], options: NonNullable<ParseArgsConfig['options']>) {
  try {
    return parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

function required(values: Record<string, string | boolean | (string | boolean)[] | undefined>, name: string): string {
  const value = values[name];
  if (typeof value !== 'string' || value.trim() === '') throw new UsageError(`--${name} is required`);
  return value;
}

interface DataContext {
  config: Config;
  log: Logger;
  db: Db;
  sql: Sql;
  services: Services;
  clock: Clock;
}

/** Opens the database (embedded or DATABASE_URL), migrates, runs `work` with the services, tears everything down. */
async function withData<T>(config: Config, work: (context: DataContext) => Promise<T>): Promise<T> {
  const runtime = await createRuntime({ config, roles: [], log: createLogger(process.env.LOG_LEVEL ?? 'warn') });
  try {
    return await work(runtime);
  } finally {
    await runtime.stop();
  }
}

async function serve(config: Config, args: string[]): Promise<void> {
  const { values } = parse(args, { role: { type: 'string' } });
  const role = (values.role ?? config.role) as ProcessRole;
  if (!processRoles.includes(role)) throw new UsageError(`--role must be one of ${processRoles.join(', ')}`);
  const log = createLogger(config.logLevel);
  // Whoever read our stderr may be gone (EPIPE): that is no reason to crash a serving process.
  process.stderr.on('error', () => undefined);
  // Signals are handled from the start: one that arrives while Tally starts stops it as soon as it has started.
  let stop: (() => Promise<void>) | undefined;
  let stopRequested = false;
  let signals = 0;
  const exitAfterLogs = (code: number): void => {
    // The last lines get a moment to reach a slow log reader, never more: a stalled or closed pipe must not hold the exit.
    void logsWritten(1_000).finally(() => process.exit(code));
  };
  const stopNow = (): void => {
    if (!stop) {
      stopRequested = true;
      return;
    }
    stop().then(
      () => {
        log.info('stopped');
        exitAfterLogs(0);
      },
      (error: unknown) => {
        log.error({ err: error }, 'shutdown failed');
        exitAfterLogs(1);
      },
    );
  };
  const shutdown = (signal: NodeJS.Signals): void => {
    signals += 1;
    if (signals > 1) {
      log.warn({ signal }, 'second signal: exiting without waiting');
      process.exit(1);
    }
    log.info({ signal }, 'shutting down: draining requests, then stopping the database');
    stopNow();
  };
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);
  const tally = await startTally({ config: { ...config, role }, log });
  stop = () => tally.stop();
  if (stopRequested) stopNow();
}

async function migrate(config: Config): Promise<void> {
  const log = createLogger(process.env.LOG_LEVEL ?? 'info');
  const database = await openDatabaseServer(config, log);
  try {
    const applied = await migrateDatabase(database.url, log);
    process.stdout.write(applied.length > 0 ? `applied ${applied.join(', ')}\n` : 'the database is up to date\n');
  } finally {
    await database.stop();
  }
}

async function createTenant(config: Config, args: string[]): Promise<void> {
  const { values } = parse(args, { name: { type: 'string' }, slug: { type: 'string' }, 'owner-email': { type: 'string' } });
  const input = parseInput(CreateTenantDto, {
    name: required(values, 'name'),
    slug: required(values, 'slug'),
    ...(typeof values['owner-email'] === 'string' ? { ownerEmail: values['owner-email'] } : {}),
  });
  const tenant = await withData(config, ({ services }) => services.tenants.create(systemActor('cli'), input));
  process.stdout.write(`created tenant ${tenant.slug} (${tenant.id})\n`);
}

async function createApiKey(config: Config, args: string[]): Promise<void> {
  const { values } = parse(args, {
    tenant: { type: 'string' },
    name: { type: 'string' },
    'expires-in-days': { type: 'string' },
  });
  const tenantRef = required(values, 'tenant');
  const name = required(values, 'name');
  const days = typeof values['expires-in-days'] === 'string' ? values['expires-in-days'] : undefined;
  if (days !== undefined && !/^\d+$/.test(days)) throw new UsageError('--expires-in-days must be a whole number');
  const input = parseInput(CreateApiKeyDto, { name, ...(days === undefined ? {} : { expiresInDays: Number(days) }) });
  const { apiKey, key } = await withData(config, async ({ services }) => {
    const tenant = await services.tenants.findByIdOrSlug(tenantRef);
    return services.apiKeys.create(systemAccess(tenant, systemActor('cli')), input);
  });
  process.stdout.write(
    `created API key "${apiKey.name}" for tenant ${apiKey.tenantId}, expires ${apiKey.expiresAt.toISOString()}\n` +
      'The key is shown only now:\n\n' +
      `${key}\n`,
  );
}

async function setSuperadmin(config: Config, args: string[], isSuperadmin: boolean): Promise<void> {
  const { positionals } = parse(args, {});
  const [email] = positionals;
  if (email === undefined || positionals.length > 1) throw new UsageError('give one e-mail address');
  try {
    await withData(config, ({ services }) => services.admin.setSuperadminByEmail(systemActor('cli'), email, isSuperadmin));
  } catch (error) {
    if (error instanceof AppError && error.code === 'NOT_FOUND') {
      throw new AppError('NOT_FOUND', `No user ${email.toLowerCase()} yet: they must sign in first (or put the address in SUPERADMIN_EMAILS)`);
    }
    throw error;
  }
  process.stdout.write(`${email.toLowerCase()} is ${isSuperadmin ? 'now' : 'no longer'} a superadmin\n`);
}

/** A whole number from `--name`, within bounds, or the default. */
function count(values: Record<string, string | boolean | (string | boolean)[] | undefined>, name: string, fallback: number, max: number): number {
  const value = values[name];
  if (value === undefined) return fallback;
  if (typeof value !== 'string' || !/^\d+$/.test(value) || Number(value) < 1 || Number(value) > max) {
    throw new UsageError(`--${name} must be a whole number from 1 to ${max}`);
  }
  return Number(value);
}

async function seedDatabase(config: Config, args: string[]): Promise<void> {
  const { values } = parse(args, { tenants: { type: 'string' }, users: { type: 'string' }, entries: { type: 'string' } });
  const options = {
    tenants: count(values, 'tenants', 2, 100),
    users: count(values, 'users', 20, 1000),
    entries: count(values, 'entries', 10_000, 10_000_000),
    progress: process.stderr.isTTY === true,
  };
  const started = performance.now();
  // Loaded by this command alone (its progress bar among it), not by every `tally` process.
  const { seed } = await import('./seed.js');
  const tenants = await withData(config, ({ services, sql, clock }) => seed(services, sql, clock, options));
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  process.stdout.write(
    `seeded ${options.entries} entries in ${tenants.length} tenants with ${options.users} members each, in ${seconds} s\n` +
      'Each tenant and an admin API key for it (shown only now):\n' +
      tenants.map((tenant) => `  ${tenant.slug}  ${tenant.id}  ${tenant.key}\n`).join(''),
  );
}

async function run(argv: string[]): Promise<void> {
  const [command, subcommand, ...rest] = argv;
  if (command === undefined || command === 'help' || command === '--help' || command === '-h') {
    process.stdout.write(usage);
    return;
  }
  const config = loadConfig();
  switch (command) {
    case 'serve':
      return serve(config, argv.slice(1));
    case 'migrate':
      return migrate(config);
    case 'tenant':
      if (subcommand === 'create') return createTenant(config, rest);
      break;
    case 'api-key':
      if (subcommand === 'create') return createApiKey(config, rest);
      break;
    case 'superadmin':
      if (subcommand === 'grant' || subcommand === 'revoke') return setSuperadmin(config, rest, subcommand === 'grant');
      break;
    case 'seed':
      return seedDatabase(config, argv.slice(1));
  }
  throw new UsageError(`unknown command: ${argv.join(' ')}`);
}

try {
  await run(process.argv.slice(2));
} catch (error) {
  if (error instanceof UsageError) {
    process.stderr.write(`tally: ${error.message}\n\n${usage}`);
    process.exit(2);
  }
  if (error instanceof AppError && error.errors && error.errors.length > 0) {
    process.stderr.write(`tally: invalid input\n${error.errors.map((item) => `  ${item.path}: ${item.message}\n`).join('')}`);
    process.exit(1);
  }
  if (error instanceof AppError || error instanceof ConfigError) {
    process.stderr.write(`tally: ${error.message}\n`);
    process.exit(1);
  }
  throw error;
}
