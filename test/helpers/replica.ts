/**
 * A primary and a streaming replica of the embedded PostgreSQL 18, for the
 * read-replica tests. The embedded package ships no `pg_basebackup`, so the
 * replica is a copy of the primary's data directory taken while it is
 * stopped, told where its primary is (`primary_conninfo`) and that it is a
 * standby (`standby.signal`); both then start, and the replica streams
 * everything the primary writes from then on (shared/ENVIRONMENT.md).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { startEmbeddedPostgres, type RunningPostgres } from '../../src/db/embedded-postgres.js';
import { createLogger } from '../../src/lib/logger.js';
import { freePort } from './server.js';

export interface StreamingPair {
  primary: RunningPostgres;
  replica: RunningPostgres;
  /** Runs `text` on the replica's server as its superuser (pausing and resuming replay). */
  onReplica(text: string): Promise<void>;
  stop(): Promise<void>;
}

/** The settings both servers share: what a test can afford to lose (it throws the cluster away), and a replica that keeps up. */
const settings = ['fsync=off', 'full_page_writes=off', 'wal_keep_size=512MB', 'hot_standby=on', 'max_connections=200'];

export async function startStreamingPair(): Promise<StreamingPair> {
  const log = createLogger(process.env.TEST_LOG_LEVEL ?? 'silent');
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'tally-replica-'));
  // The servers run as the `postgres` user when the tests run as root: it must be able to enter this directory.
  fs.chmodSync(root, 0o755);
  const primaryDir = path.join(root, 'primary');
  const replicaDir = path.join(root, 'replica');
  const port = await freePort();
  const initial = await startEmbeddedPostgres({ clusterDir: primaryDir, database: 'tally', log, port, settings });
  // A clean stop: the copy starts from a shutdown checkpoint, as a base backup would.
  await initial.stop();
  execFileSync('cp', ['-a', primaryDir, replicaDir]);
  fs.copyFileSync(`${primaryDir}.password`, `${replicaDir}.password`);
  fs.rmSync(path.join(replicaDir, 'postmaster.pid'), { force: true });
  fs.writeFileSync(path.join(replicaDir, 'standby.signal'), '');
  const password = fs.readFileSync(`${primaryDir}.password`, 'utf8').trim();
  fs.appendFileSync(path.join(replicaDir, 'postgresql.auto.conf'), `primary_conninfo = 'host=127.0.0.1 port=${port} user=tally password=${password}'\n`);
  const primary = await startEmbeddedPostgres({ clusterDir: primaryDir, database: 'tally', log, port, settings });
  let replica: RunningPostgres;
  try {
    replica = await startEmbeddedPostgres({ clusterDir: replicaDir, database: 'tally', log, settings });
  } catch (error) {
    await primary.stop();
    throw error;
  }
  return {
    primary,
    replica,
    async onReplica(text) {
      const client = new pg.Client({ connectionString: replica.url });
      await client.connect();
      try {
        await client.query(text);
      } finally {
        await client.end();
      }
    },
    async stop() {
      await replica.stop();
      await primary.stop();
      fs.rmSync(root, { recursive: true, force: true });
    },
  };
}
