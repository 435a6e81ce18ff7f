/**
 * Request budgets shared by every server process (CONTRACT.md section 7):
 * per API key or session a minute, and per client IP a minute on
 * `/api/auth/*`. The counts live in PostgreSQL (rate-limiter-flexible's
 * store, table `rate_limits`), one upsert per request; once a caller is over
 * its budget this process remembers it until the window ends and answers 429
 * without asking the database again.
 *
 * If the store cannot be reached the request is let through (and logged):
 * the database being down is answered by the request itself, not by a limit.
 */
import { RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import type { Actor } from '../auth/actor.js';
import type { Config } from '../config.js';
import type { Sql } from '../db/client.js';
import { AppError } from '../lib/errors.js';
import type { Logger } from '../lib/logger.js';

export interface RateDecision {
  /** RateLimit-* headers (draft-ietf-httpapi-ratelimit-headers), and Retry-After when refused. */
  headers: Record<string, string>;
  /** Set when the budget is spent: a 429 RATE_LIMITED carrying the headers. */
  refusal?: AppError;
}

export interface RateLimits {
  /** One request of an authenticated caller. */
  caller(actor: Actor): Promise<RateDecision>;
  /** One request to sign-in (`/api/auth/*`) from an address. */
  signIn(address: string): Promise<RateDecision>;
}

const windowSeconds = 60;
const allowed: RateDecision = { headers: {} };

/** The key a caller's budget is counted under: the key or the person, never the whole tenant. */
function callerKey(actor: Actor): string | undefined {
  switch (actor.type) {
    case 'api_key':
      return `key:${actor.apiKeyId}`;
    case 'user':
      return `user:${actor.userId}`;
    default:
      return undefined;
  }
}

export function createRateLimits({ sql, config, log }: { sql: Sql; config: Pick<Config, 'rateLimitPerMinute' | 'authRateLimitPerMinute'>; log: Logger }): RateLimits {
  // rate-limiter-flexible speaks to a pg Pool; ours goes through the app's pool, statement by statement.
  const storeClient = {
    async query({ text, values }: { text: string; values?: unknown[] }) {
      const rows = await sql.query<Record<string, unknown>>(text, values ?? []);
      return { rows, rowCount: rows.length };
    },
  };
  const limiter = (points: number, keyPrefix: string): RateLimiterPostgres | undefined =>
    points > 0
      ? new RateLimiterPostgres({
          storeClient,
          storeType: 'pool',
          tableName: 'rate_limits',
          // The table is the migrations' (20261122055841_rate_limits), not created at run time.
          tableCreated: true,
          keyPrefix,
          points,
          duration: windowSeconds,
          // Over budget: remembered in this process for the rest of the window, no more upserts.
          inMemoryBlockOnConsumed: points + 1,
          inMemoryBlockDuration: windowSeconds,
        })
      : undefined;
  const callers = limiter(config.rateLimitPerMinute, 'caller');
  const signIns = limiter(config.authRateLimitPerMinute, 'signin');

  async function consume(store: RateLimiterPostgres | undefined, key: string, what: string): Promise<RateDecision> {
    if (!store) return allowed;
    const headersOf = (state: RateLimiterRes): Record<string, string> => ({
      'ratelimit-limit': String(store.points),
      'ratelimit-remaining': String(Math.max(0, state.remainingPoints)),
      'ratelimit-reset': String(Math.ceil(state.msBeforeNext / 1000)),
      'ratelimit-policy': `${store.points};w=${windowSeconds}`,
    });
    try {
      return { headers: headersOf(await store.consume(key)) };
    } catch (outcome) {
      if (outcome instanceof RateLimiterRes) {
        const retryAfter = Math.max(1, Math.ceil(outcome.msBeforeNext / 1000));
        const headers = { ...headersOf(outcome), 'retry-after': String(retryAfter) };
        return {
          headers,
          refusal: new AppError('RATE_LIMITED', `Too many requests ${what}: at most ${store.points} a minute; try again in ${retryAfter} s`, { headers }),
        };
      }
      log.warn({ err: outcome }, 'the rate limit store could not be reached; the request goes through');
      return allowed;
    }
  }

  return {
    caller(actor) {
      const key = callerKey(actor);
      return key ? consume(callers, key, 'with this credential') : Promise.resolve(allowed);
    },
    signIn: (address) => consume(signIns, address, 'to sign-in from this address'),
  };
}
