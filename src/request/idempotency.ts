/**
 * Idempotency-Key (CONTRACT.md section 8, after the IETF httpapi draft): a
 * POST or PATCH, REST or GraphQL, that carries `Idempotency-Key` runs once per
 * caller (API key or user) and key for 24 hours; the same request again gets
 * the first answer back. The keys live in PostgreSQL (`idempotency_keys`), so
 * every process shares them.
 *
 * A request claims its key once its body is known (the fingerprint is the
 * method, path, query and body) and before its work runs, in one statement: an
 * insert that conflicts with the key's row unless that row has expired, or is
 * a claim of the same request whose process died (no answer a minute after it
 * started). Then:
 * - claimed: the request runs, and its answer is stored; a 4xx is an answer
 *   like any other and is stored too, while a 5xx (or a crash) releases the
 *   claim so that a retry runs again;
 * - the same request answered: its stored status, type, location and body,
 *   with `Idempotent-Replayed: true`;
 * - another request's key (another fingerprint): 422 IDEMPOTENCY_KEY_REUSED;
 * - the same key still running: 409 CONFLICT, reason IDEMPOTENCY_KEY_IN_USE,
 *   with `Retry-After: 1`.
 *
 * Without the header nothing here runs: no statement is added to a request.
 * Answers that stream (downloads) are not stored, and stored bodies are never
 * logged. Expired rows count as absent; this process deletes them in the
 * background at most every ten minutes, after a claim.
 *
 * REST (src/rest/router.ts) and GraphQL (src/http/graphql.ts) each claim where
 * their body has been read, so it sits below both, in request/ (test/architecture/layers.ts).
 */
import { createHash, randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { Actor } from '../auth/actor.js';
import type { Sql } from '../db/client.js';
import { AppError, commonConflict, validationFailed } from '../lib/errors.js';
import type { Logger } from '../lib/logger.js';
import type { HttpResult } from '../lib/problem.js';

export const idempotencyKeyHeader = 'Idempotency-Key';
/** How long a key holds its answer (the contract's 24 hours). */
export const idempotencyRetentionHours = 24;
/** A claim this old without an answer belongs to a process that died: the same request may take it over. */
export const idempotencyTakeoverSeconds = 60;
/** 1..255 visible ASCII characters (0x21-0x7E). */
const keyPattern = /^[\x21-\x7e]{1,255}$/;
/** The headers a stored answer keeps; the others (request id, rate limits) are the replaying request's own. */
const storedHeaders = ['content-type', 'location'] as const;
const pruneEveryMs = 10 * 60 * 1000;
const pruneBatch = 1_000;

/** One POST or PATCH that carries a valid `Idempotency-Key`, from a caller. */
export interface IdempotentRequest {
  /**
   * Claims the key for this request, whose fingerprint is now known
   * (`requestFingerprint`). Resolves with undefined when the request is to run
   * (then `settle` it), or with the stored answer to send instead; throws the
   * 409 (still running) or the 422 (the key of another request).
   */
  claim(fingerprint: string): Promise<HttpResult | undefined>;
  /**
   * The request's answer, or undefined when it failed without one: stored if
   * it is below 500 with a whole body, else the claim is released. Nothing
   * happens unless this request claimed the key. Never throws.
   */
  settle(result: HttpResult | undefined): Promise<void>;
}

export interface Idempotency {
  /**
   * The idempotent request of a POST or PATCH with `Idempotency-Key` by a
   * caller (API key or user); undefined for any other request. A malformed
   * key is a 400 VALIDATION_FAILED.
   */
  requestOf(method: string, headers: IncomingHttpHeaders, actor: Actor | null, log: Logger): IdempotentRequest | undefined;
  /** Waits for a prune under way (teardown). */
  close(): Promise<void>;
}

/** Whose keys a caller's are: its API key's or its person's, never the tenant's; undefined for the system. */
function callerKeyOf(actor: Actor): string | undefined {
  switch (actor.type) {
    case 'api_key':
      return `api_key:${actor.apiKeyId}`;
    case 'user':
      return `user:${actor.userId}`;
    case 'system':
      return undefined;
  }
}

/** The key a request carries, checked; undefined when it carries none. */
export function idempotencyKeyOf(headers: IncomingHttpHeaders): string | undefined {
  const given = headers['idempotency-key'];
  if (given === undefined) return undefined;
  // Node joins repeated headers with ", ", which makes a key with a space: refused like one.
  if (typeof given !== 'string' || !keyPattern.test(given)) {
    throw validationFailed([{ path: idempotencyKeyHeader, message: 'must be 1 to 255 visible ASCII characters (no spaces)' }]);
  }
  return given;
}

/**
 * SHA-256 (hex) of what makes two requests the same request: the method, the
 * path, the query and the parts that stand for the body (its bytes; or an
 * upload's fields and its file's SHA-256; or a GraphQL operation). Each part
 * is prefixed with its length, so no two lists of parts hash alike.
 */
export function requestFingerprint(method: string, url: URL, bodyParts: readonly (string | Buffer | undefined)[]): string {
  const hash = createHash('sha256');
  for (const part of [method.toUpperCase(), url.pathname, url.search, ...bodyParts]) {
    if (part === undefined) {
      hash.update('-;');
      continue;
    }
    hash.update(`${Buffer.byteLength(part)}:`).update(part);
  }
  return hash.digest('hex');
}

/** JSON with object keys sorted, so that `{a, b}` and `{b, a}` fingerprint alike. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, field]) => field !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([name, field]) => `${JSON.stringify(name)}:${canonicalJson(field)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** The 409 of a key whose first request has not answered yet. */
const stillRunning = (): AppError =>
  commonConflict('IDEMPOTENCY_KEY_IN_USE', `A request with this ${idempotencyKeyHeader} is still running; retry shortly`, { headers: { 'retry-after': '1' } });

interface KeyRow extends Record<string, unknown> {
  outcome: 'claimed' | 'existing';
  fingerprint: string | null;
  status: 'running' | 'done' | null;
  responseStatus: number | null;
  responseHeaders: Record<string, string> | null;
  responseBody: Buffer | null;
}

/**
 * Claims in one statement. The insert takes the key when it is free; when the
 * key's row has expired, or is a dead claim of the same request, it takes the
 * row over. Otherwise the row is read as it is. A row committed by another
 * process after this statement began conflicts with the insert but is not
 * seen by the read: then nothing comes back, and the statement is run again.
 */
const claimStatement = `
WITH claimed AS (
  INSERT INTO idempotency_keys ("callerKey", key, fingerprint, status, "claimToken", "createdAt", "expiresAt")
  VALUES ($1, $2, $3, 'running', $4::uuid, now(), now() + make_interval(hours => $5))
  ON CONFLICT ("callerKey", key) DO UPDATE
     SET fingerprint = EXCLUDED.fingerprint, status = 'running', "claimToken" = EXCLUDED."claimToken",
         "responseStatus" = NULL, "responseHeaders" = NULL, "responseBody" = NULL,
         "createdAt" = EXCLUDED."createdAt", "expiresAt" = EXCLUDED."expiresAt"
   WHERE idempotency_keys."expiresAt" <= now()
      OR (idempotency_keys.status = 'running' AND idempotency_keys.fingerprint = EXCLUDED.fingerprint
          AND idempotency_keys."createdAt" <= now() - make_interval(secs => $6))
  RETURNING 1
)
SELECT 'claimed' AS outcome, NULL::text AS fingerprint, NULL::text AS status,
       NULL::int AS "responseStatus", NULL::jsonb AS "responseHeaders", NULL::bytea AS "responseBody"
  FROM claimed
UNION ALL
SELECT 'existing', fingerprint::text, status::text, "responseStatus", "responseHeaders", "responseBody"
  FROM idempotency_keys
 WHERE "callerKey" = $1 AND key = $2 AND NOT EXISTS (SELECT 1 FROM claimed)`;

export function createIdempotency({ sql, log: processLog }: { sql: Pick<Sql, 'query'>; log: Logger }): Idempotency {
  let lastPrune = 0;
  let pruning: Promise<void> | undefined;

  /** Deletes expired keys in batches, in the background; a failure waits for the next turn. */
  function pruneNow(): void {
    if (pruning || Date.now() - lastPrune < pruneEveryMs) return;
    lastPrune = Date.now();
    pruning = (async () => {
      let deleted = 0;
      for (;;) {
        const rows = await sql.query(
          `DELETE FROM idempotency_keys WHERE ("callerKey", key) IN (
             SELECT "callerKey", key FROM idempotency_keys WHERE "expiresAt" <= now() LIMIT $1
           ) RETURNING 1 AS deleted`,
          [pruneBatch],
        );
        deleted += rows.length;
        if (rows.length < pruneBatch) break;
      }
      if (deleted > 0) processLog.info({ deleted }, 'pruned expired idempotency keys');
    })()
      .catch((error: unknown) => processLog.warn({ err: error }, 'expired idempotency keys could not be pruned'))
      .finally(() => {
        pruning = undefined;
      });
  }

  return {
    requestOf(method, headers, actor, log) {
      if (method !== 'POST' && method !== 'PATCH') return undefined;
      if (headers['idempotency-key'] === undefined || actor === null) return undefined;
      const callerKey = callerKeyOf(actor);
      if (callerKey === undefined) return undefined;
      const key = idempotencyKeyOf(headers) as string;
      let claimToken: string | undefined;

      async function release(): Promise<void> {
        await sql.query(`DELETE FROM idempotency_keys WHERE "callerKey" = $1 AND key = $2 AND "claimToken" = $3::uuid`, [callerKey, key, claimToken]);
      }

      return {
        async claim(fingerprint) {
          const token = randomUUID();
          for (let attempt = 0; attempt < 3; attempt++) {
            const [row] = await sql.query<KeyRow>(claimStatement, [callerKey, key, fingerprint, token, idempotencyRetentionHours, idempotencyTakeoverSeconds]);
            if (!row) continue;
            if (row.outcome === 'claimed') {
              claimToken = token;
              pruneNow();
              return undefined;
            }
            if (row.fingerprint !== fingerprint) {
              throw new AppError('IDEMPOTENCY_KEY_REUSED', `The ${idempotencyKeyHeader} was used for another request (another method, path, query or body)`);
            }
            if (row.status === 'running' || row.responseStatus === null) {
              throw stillRunning();
            }
            log.debug({ status: row.responseStatus }, 'replayed the stored answer of an idempotent request');
            return {
              status: row.responseStatus,
              headers: { ...(row.responseHeaders ?? {}), 'idempotent-replayed': 'true' },
              body: row.responseBody ?? undefined,
            } satisfies HttpResult;
          }
          // Three statements in a row each saw the key change under them: as good as still running.
          throw stillRunning();
        },
        async settle(result) {
          if (claimToken === undefined) return;
          const storable =
            result !== undefined && result.status < 500 && (result.body === undefined || typeof result.body === 'string' || Buffer.isBuffer(result.body));
          try {
            if (!storable) {
              await release();
              return;
            }
            const headers = Object.fromEntries(storedHeaders.flatMap((name) => (result.headers[name] === undefined ? [] : [[name, result.headers[name]]])));
            const body = result.body === undefined ? null : Buffer.isBuffer(result.body) ? result.body : Buffer.from(result.body as string);
            await sql.query(
              `UPDATE idempotency_keys SET status = 'done', "responseStatus" = $4, "responseHeaders" = $5::jsonb, "responseBody" = $6
                WHERE "callerKey" = $1 AND key = $2 AND "claimToken" = $3::uuid`,
              [callerKey, key, claimToken, result.status, JSON.stringify(headers), body],
            );
          } catch (error) {
            // The answer still goes out; the key stays claimed until its takeover time, when a retry runs again.
            log.warn({ err: error, status: result?.status }, 'the answer of an idempotent request could not be stored');
          } finally {
            claimToken = undefined;
          }
        },
      };
    },
    async close() {
      await pruning;
    },
  };
}
