import type { Db } from '../db/client.js';
import type { ReplicaStatus } from '../db/replicas.js';
import type { HttpResult } from '../lib/problem.js';

const probeTimeoutMs = 2000;

/**
 * GET /health: public; 200 when the database answers, 503 when it does not.
 * Read replicas are listed with their state as of their last check: one down
 * or lagging is skipped by reads, so it does not make the process unhealthy.
 */
export function createHealthCheck({
  db,
  version,
  embeddedDatabase,
  replicas = () => [],
}: {
  db: Db;
  version: string;
  embeddedDatabase: boolean;
  replicas?: () => ReplicaStatus[];
}) {
  const startedAt = Date.now();
  return async (): Promise<HttpResult> => {
    const probeStarted = performance.now();
    let databaseUp = false;
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        db.$queryRaw`SELECT 1`,
        new Promise((_resolve, reject) => {
          timer = setTimeout(() => reject(new Error('timeout')), probeTimeoutMs);
        }),
      ]);
      databaseUp = true;
    } catch {
      databaseUp = false;
    } finally {
      clearTimeout(timer);
    }
    const listed = replicas();
    const body = {
      status: databaseUp ? 'ok' : 'unavailable',
      version,
      uptimeSeconds: Math.round((Date.now() - startedAt) / 1000),
      database: {
        status: databaseUp ? 'up' : 'down',
        embedded: embeddedDatabase,
        latencyMs: Math.round((performance.now() - probeStarted) * 10) / 10,
      },
      ...(listed.length > 0 ? { replicas: listed.map(({ name, state, lagMs }) => ({ name, state, lagMs })) } : {}),
    };
    return {
      status: databaseUp ? 200 : 503,
      headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' },
      body: JSON.stringify(body),
    };
  };
}
