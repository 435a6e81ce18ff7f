/**
 * Whether a running embedded PostgreSQL belongs to a live Tally process (then
 * it is shared: `tally migrate` beside `tally serve`) or was left behind by a
 * killed one (then it is stopped). Told by the process table, which differs
 * between Linux (/proc) and macOS (no /proc).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../lib/logger.js';
import { inspectExistingServer } from './embedded-postgres.js';
import { systemProcessTable, type ProcessTable } from './process-table.js';

const log = createLogger('silent');
const postgresPid = 4242;
const tallyPid = 4100;
let clusterDir: string;

function clusterWithLockFile(): string {
  clusterDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tally-cluster-'));
  // postmaster.pid: pid, data directory, start time, port, ...
  fs.writeFileSync(path.join(clusterDir, 'postmaster.pid'), `${postgresPid}\n${clusterDir}\n1760000000\n54321\n`);
  return clusterDir;
}

afterEach(() => fs.rmSync(clusterDir, { recursive: true, force: true }));

/** A process table of the given live processes; `interrupt` ends one. */
function fakeTable(parents: Map<number, number | undefined>): ProcessTable & { interrupted: number[] } {
  const alive = new Set(parents.keys());
  const interrupted: number[] = [];
  return {
    interrupted,
    isAlive: (pid) => alive.has(pid),
    parentOf: (pid) => parents.get(pid),
    interrupt(pid) {
      interrupted.push(pid);
      alive.delete(pid);
    },
  };
}

describe('an embedded PostgreSQL found running', () => {
  it('is shared while the Tally process that started it lives', async () => {
    const table = fakeTable(
      new Map([
        [postgresPid, tallyPid],
        [tallyPid, 1],
      ]),
    );
    expect(await inspectExistingServer(clusterWithLockFile(), log, table)).toEqual({ kind: 'shared', pid: postgresPid, port: 54321 });
    expect(table.interrupted).toEqual([]);
  });

  it('is stopped when its Tally process is gone (re-parented to init)', async () => {
    const table = fakeTable(new Map([[postgresPid, 1]]));
    expect(await inspectExistingServer(clusterWithLockFile(), log, table)).toEqual({ kind: 'none' });
    expect(table.interrupted).toEqual([postgresPid]);
  });

  it('is left alone when the system cannot tell its parent: stopping a live server would break its owner', async () => {
    const table = fakeTable(new Map([[postgresPid, undefined]]));
    expect(await inspectExistingServer(clusterWithLockFile(), log, table)).toEqual({ kind: 'shared', pid: postgresPid, port: 54321 });
    expect(table.interrupted).toEqual([]);
  });
});

describe('the process table of this machine', () => {
  it('knows our parent through /proc', () => {
    expect(systemProcessTable().parentOf(process.pid)).toBe(process.ppid);
  });

  it('knows our parent without /proc, as on macOS', () => {
    expect(systemProcessTable({ procRoot: path.join(os.tmpdir(), 'no-such-proc') }).parentOf(process.pid)).toBe(process.ppid);
  });
});
