/**
 * The newcomer's path, as separate processes: `tally serve` with no
 * configuration (embedded PostgreSQL under DATA_DIR), the bootstrap key, the
 * CLI beside a running server, clean shutdown on signals, data kept across
 * restarts.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, startCli, type RunningCommand } from './helpers/cli.js';
import { apiClient } from './helpers/http.js';
import { freePort } from './helpers/server.js';

let dataDir: string;
let port: number;
let baseUrl: string;

/** A newcomer's server and CLI: only where to put data and where to listen. */
const newcomer = (): Record<string, string> => ({ DATA_DIR: dataDir, PORT: String(port), LOG_LEVEL: 'info' });
const start = (args: string[]): RunningCommand => startCli(args, newcomer());
const run = (args: string[]) => runCli(args, newcomer());

async function waitForHealth(running: RunningCommand, withinMs: number): Promise<number> {
  const started = Date.now();
  while (Date.now() - started < withinMs) {
    if (running.child.exitCode !== null) throw new Error(`the server exited:\n${running.output()}`);
    try {
      const response = await fetch(`${baseUrl}/health`);
      if (response.status === 200) return Date.now() - started;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`no healthy /health within ${withinMs} ms:\n${running.output()}`);
}

function postgresPid(): number | undefined {
  const pidFile = path.join(dataDir, 'postgres', 'postmaster.pid');
  if (!fs.existsSync(pidFile)) return undefined;
  return Number(fs.readFileSync(pidFile, 'utf8').split('\n')[0]);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tally-cli-'));
  fs.chmodSync(dataDir, 0o755);
  port = await freePort();
  baseUrl = `http://localhost:${port}`;
});
afterAll(() => {
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe('tally serve with no configuration', () => {
  let key: string;
  let tenantId: string;
  let noteId: string;

  it('starts on embedded PostgreSQL, prints a bootstrap key that works over REST and GraphQL, and stops cleanly on SIGTERM', async () => {
    const server = start(['serve']);
    try {
      const readyAfterMs = await waitForHealth(server, 30_000);
      expect(readyAfterMs).toBeLessThan(30_000);
      key = /svc_[0-9A-Za-z]{40}/.exec(server.output())?.[0] as string;
      tenantId = /\/tenants\/([0-9a-f-]{36})\/notes/.exec(server.output())?.[1] as string;
      expect(key).toBeDefined();
      expect(tenantId).toBeDefined();

      const api = apiClient(baseUrl, { apiKey: key });
      const created = await api.post<{ id: string }>(`/tenants/${tenantId}/notes`, { content: 'hi' });
      expect(created.status).toBe(201);
      noteId = created.body.id;
      const viaGraphql = await api.graphql<{ notes: { id: string; content: string }[] }>(
        'query ($tenantId: ID!) { notes(tenantId: $tenantId) { id content } }',
        { tenantId },
      );
      expect(viaGraphql.body.data?.notes).toEqual([{ id: noteId, content: 'hi' }]);

      // The CLI shares the running server's embedded database.
      const keyCommand = await run(['api-key', 'create', '--tenant', 'demo', '--name', 'second', '--expires-in-days', '7']);
      expect(keyCommand.code, keyCommand.output).toBe(0);
      const secondKey = /svc_[0-9A-Za-z]{40}/.exec(keyCommand.output)?.[0] as string;
      expect((await apiClient(baseUrl, { apiKey: secondKey }).get(`/tenants/${tenantId}/notes`)).status).toBe(200);

      const databasePid = postgresPid() as number;
      expect(alive(databasePid)).toBe(true);
      server.child.kill('SIGTERM');
      expect(await server.exited).toBe(0);
      expect(alive(databasePid)).toBe(false);
      expect(server.output()).toMatch(/embedded PostgreSQL stopped/);
    } finally {
      server.child.kill('SIGKILL');
    }
  });

  it('keeps the data across a restart, prints no second key, and stops cleanly on SIGINT', async () => {
    const server = start(['serve']);
    try {
      await waitForHealth(server, 30_000);
      expect(server.output()).not.toMatch(/svc_[0-9A-Za-z]{40}/);
      const notes = await apiClient(baseUrl, { apiKey: key }).get<{ id: string }[]>(`/tenants/${tenantId}/notes`);
      expect(notes.body.map((note) => note.id)).toEqual([noteId]);
      server.child.kill('SIGINT');
      expect(await server.exited).toBe(0);
    } finally {
      server.child.kill('SIGKILL');
    }
  });

  it('recovers when the previous server was killed and left PostgreSQL running', async () => {
    const killed = start(['serve']);
    await waitForHealth(killed, 30_000);
    const orphan = postgresPid() as number;
    killed.child.kill('SIGKILL');
    await killed.exited;
    const server = start(['serve']);
    try {
      await waitForHealth(server, 30_000);
      expect(alive(orphan)).toBe(false);
      expect(server.output()).toMatch(/left running by an earlier Tally process/);
      server.child.kill('SIGTERM');
      expect(await server.exited).toBe(0);
    } finally {
      server.child.kill('SIGKILL');
    }
  });
});

describe('the tally CLI', () => {
  // Five CLI processes one after another, each loading the application: with other test files beside it, over 30 s.
  it('creates a tenant, and explains bad input with an exit code', { timeout: 90_000 }, async () => {
    const created = await run(['tenant', 'create', '--name', 'Acme', '--slug', 'acme', '--owner-email', 'boss@acme.test']);
    expect(created.code, created.output).toBe(0);
    expect(created.output).toMatch(/created tenant acme \(/);

    const taken = await run(['tenant', 'create', '--name', 'Acme again', '--slug', 'acme']);
    expect(taken.code).toBe(1);
    expect(taken.output).toMatch(/slug: is already taken/);

    const invalid = await run(['tenant', 'create', '--name', 'Bad', '--slug', 'Not A Slug!']);
    expect(invalid.code).toBe(1);
    expect(invalid.output).toMatch(/slug: must be 1 to 63 lower-case letters/);

    const usage = await run(['tenant', 'create', '--name', 'No slug']);
    expect(usage.code).toBe(2);
    expect(usage.output).toMatch(/--slug is required/);

    const unknown = await run(['frobnicate']);
    expect(unknown.code).toBe(2);
    expect(unknown.output).toMatch(/Usage: tally/);
  });

  it('migrates an up-to-date database without changes', async () => {
    const migrated = await run(['migrate']);
    expect(migrated.code, migrated.output).toBe(0);
    expect(migrated.output).toMatch(/up to date/);
  });

  it('refuses an unknown tenant for an API key', async () => {
    const result = await run(['api-key', 'create', '--tenant', 'nope', '--name', 'x']);
    expect(result.code).toBe(1);
    expect(result.output).toMatch(/Tenant nope not found/);
  });
});
