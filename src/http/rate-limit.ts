/**
 * Request budgets shared by every server process (CONTRACT.md sections 7
 * and 8): per API key or session a minute (or per client address for a
 * request without either, on the public routes that count their callers),
 * and per client address a minute on sign-in (`/api/auth/signin/*`,
 * `/api/auth/callback/*`). The counts live in PostgreSQL (rate-limiter-flexible's
 * store, table `rate_limits`). Far from its limit a caller's requests are
 * counted in memory and added to the store in batches (one upsert per batch,
 * or per 250 ms; a batch is ten requests, or a two-hundredth of the budget
 * when that is more); near the limit every request asks the store, so the
 * limit holds exactly across processes. Once a caller is over budget this
 * process refuses it from memory for a few seconds at a time.
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
  /** One request without a credential from a client address, at the callers' budget (the session check signed out). */
  anonymous(address: string): Promise<RateDecision>;
  /** One request to sign-in (`/api/auth/signin/*`, `/api/auth/callback/*`) from a client address. */
  signIn(address: string): Promise<RateDecision>;
  /** Adds what is still counted only here to the store; called once the server has stopped taking requests. */
  close(): Promise<void>;
}

const windowSeconds = 60;
const memoryBlockSeconds = 10;
/**
 * Requests counted in memory before they are sent to the store: ten, or a
 * two-hundredth of the budget when that is more. A caller with a large
 * budget (an import script, a sync) spending it fast would otherwise cost
 * an upsert every ten requests (0.1 statements a request in the bench, at
 * a budget of ten million); batches in proportion keep the bound below.
 */
const minimumBatch = 10;
const batchShareOfBudget = 200;
/** How long a counted request may wait before it is sent. */
const flushAfterMs = 250;
const batchOf = (store: RateLimiterPostgres): number => Math.max(minimumBatch, Math.floor(store.points / batchShareOfBudget));
/** Keys remembered per budget; past it the memory starts over (each key then asks the store once). */
const maxTrackedKeys = 100_000;
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

export function createRateLimits({
  sql,
  config,
  log,
}: {
  sql: Sql;
  config: Pick<Config, 'rateLimitPerMinute' | 'authRateLimitPerMinute'>;
  log: Logger;
}): RateLimits {
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
          // Over budget: refused from this process's memory for the next 10 s, without an upsert each time;
          // short, so that a window the store has already reset is not refused here for long.
          inMemoryBlockOnConsumed: points + 1,
          inMemoryBlockDuration: memoryBlockSeconds,
        })
      : undefined;
  const callers = limiter(config.rateLimitPerMinute, 'caller');
  const signIns = limiter(config.authRateLimitPerMinute, 'signin');

  /**
   * What this process knows of a key's window: the total the store last
   * reported, the requests counted here since (not yet added to the store),
   * and when the window ends.
   */
  interface Tally {
    total: number;
    pending: number;
    resetAt: number;
    /** Requests of a batch on their way to the store (0: none): counted, not yet in `total`. */
    sending: number;
    timer?: NodeJS.Timeout;
  }
  const tallies = new Map<RateLimiterPostgres, Map<string, Tally>>();
  let closed = false;
  /** Batches on their way to the store (awaited by close(), before the pool ends). */
  const inFlight = new Set<Promise<void>>();
  const talliesOf = (store: RateLimiterPostgres): Map<string, Tally> => {
    let map = tallies.get(store);
    if (!map) tallies.set(store, (map = new Map()));
    return map;
  };

  const headersOf = (store: RateLimiterPostgres, used: number, msLeft: number): Record<string, string> => ({
    'ratelimit-limit': String(store.points),
    'ratelimit-remaining': String(Math.max(0, store.points - used)),
    'ratelimit-reset': String(Math.max(0, Math.ceil(msLeft / 1000))),
    'ratelimit-policy': `${store.points};w=${windowSeconds}`,
  });

  /** Adds `points` to the store; the window's total and time left, or undefined when the store failed. */
  async function add(store: RateLimiterPostgres, key: string, points: number): Promise<{ total: number; msLeft: number; over: boolean } | undefined> {
    try {
      const state = await store.consume(key, points);
      return { total: state.consumedPoints, msLeft: state.msBeforeNext, over: false };
    } catch (outcome) {
      // Refused from the in-memory block, the answer carries no count: over the budget is all it says.
      if (outcome instanceof RateLimiterRes) return { total: Math.max(outcome.consumedPoints, store.points + 1), msLeft: outcome.msBeforeNext, over: true };
      log.warn({ err: outcome }, 'the rate limit store could not be reached; the request goes through');
      return undefined;
    }
  }

  /** Sends what this process counted to the store, in the background: at once from a batch of requests, else after `flushAfterMs`. */
  function flushSoon(store: RateLimiterPostgres, key: string, tally: Tally, now = false): void {
    if (closed || tally.sending > 0 || tally.pending === 0) return;
    if (!now && tally.pending < batchOf(store)) {
      tally.timer ??= setTimeout(() => {
        tally.timer = undefined;
        flushSoon(store, key, tally, true);
      }, flushAfterMs).unref();
      return;
    }
    clearTimeout(tally.timer);
    tally.timer = undefined;
    const points = tally.pending;
    tally.sending = points;
    tally.pending = 0;
    const sent = add(store, key, points).then((result) => {
      tally.sending = 0;
      inFlight.delete(sent);
      if (result) {
        tally.total = Math.max(tally.total + points, result.total);
        tally.resetAt = Date.now() + result.msLeft;
      }
      flushSoon(store, key, tally);
    });
    inFlight.add(sent);
  }

  /**
   * One request against a budget. Far from the limit, it is counted here and
   * sent to the store in batches (`batchOf` requests, or after
   * `flushAfterMs`); in the last half of the budget every request goes to
   * the store with what is pending, so the limit is exact where it matters,
   * for all processes together (each holds at most two batches unsent, so
   * this holds for up to budget / 40 processes below a budget of 2,000 a
   * minute, 15 at 600, and for up to 50 processes above it).
   */
  async function consume(store: RateLimiterPostgres | undefined, key: string, what: string): Promise<RateDecision> {
    if (!store) return allowed;
    const map = talliesOf(store);
    const now = Date.now();
    let tally = map.get(key);
    if (tally && tally.resetAt <= now) {
      map.delete(key);
      tally = undefined;
    }
    // Other processes may hold up to two batches each unsent: the last half of the budget is counted exactly.
    const slack = Math.max(2 * batchOf(store), Math.ceil(store.points / 2));
    if (tally && tally.total + tally.sending + tally.pending + 1 <= store.points - slack) {
      tally.pending += 1;
      const used = tally.total + tally.sending + tally.pending;
      flushSoon(store, key, tally);
      return { headers: headersOf(store, used, tally.resetAt - now) };
    }
    const points = 1 + (tally?.pending ?? 0);
    if (tally) tally.pending = 0;
    const result = await add(store, key, points);
    if (!result) return allowed;
    if (map.size > maxTrackedKeys) map.clear();
    map.set(key, { total: result.total, pending: 0, resetAt: now + result.msLeft, sending: 0 });
    const headers = headersOf(store, result.total, result.msLeft);
    if (!result.over) return { headers };
    const retryAfter = Math.max(1, Math.ceil(result.msLeft / 1000));
    const refusedHeaders = { ...headers, 'retry-after': String(retryAfter) };
    return {
      headers: refusedHeaders,
      refusal: new AppError('RATE_LIMITED', `Too many requests ${what}: at most ${store.points} a minute; try again in ${retryAfter} s`, {
        headers: refusedHeaders,
      }),
    };
  }

  return {
    caller(actor) {
      const key = callerKey(actor);
      return key ? consume(callers, key, 'with this credential') : Promise.resolve(allowed);
    },
    anonymous: (address) => consume(callers, `address:${address}`, 'from this address'),
    signIn: (address) => consume(signIns, address, 'to sign-in from this address'),
    async close() {
      closed = true;
      const left: Promise<unknown>[] = [];
      for (const [store, map] of tallies) {
        for (const [key, tally] of map) {
          clearTimeout(tally.timer);
          tally.timer = undefined;
          if (tally.pending > 0) left.push(add(store, key, tally.pending));
          tally.pending = 0;
        }
      }
      await Promise.all([...left, ...inFlight]);
    },
  };
}
