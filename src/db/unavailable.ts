/**
 * Whether an error means the database cannot be reached (down, restarting,
 * refusing connections, or the pool timed out waiting for one), rather than
 * a fault in a query. Such a request is answered 503 UNAVAILABLE with
 * Retry-After, never a 500; its transaction, if any, did not commit (the
 * connection died before COMMIT was acknowledged, or never existed).
 */
import { AppError } from '../lib/errors.js';

/**
 * Network failures, PostgreSQL's "going away" SQLSTATEs (class 08: connection;
 * 57P01-03: shutdown, starting; 53300: too many connections), and Prisma's
 * codes for the same (P1001 cannot reach, P1002 timed out, P1017 the server
 * closed the connection).
 */
const unavailableCodes = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EHOSTUNREACH',
  '57P01',
  '57P02',
  '57P03',
  '08000',
  '08001',
  '08003',
  '08004',
  '08006',
  '53300',
  'P1001',
  'P1002',
  'P1017',
]);
/** What Prisma's driver adapter calls the same failures (`meta.driverAdapterError.cause.kind`). */
const unavailableKinds = new Set(['ConnectionClosed', 'DatabaseNotReachable', 'SocketTimeout', 'TooManyConnections']);
const unavailableMessages = [
  /timeout exceeded when trying to connect/i,
  /Connection terminated/i,
  /Client has encountered a connection error/i,
  /the database system is (starting up|shutting down|in recovery mode)/i,
  /terminating connection due to administrator command/i,
  /Can't reach database server/i,
  /connect ECONNREFUSED/i,
  /server closed the connection unexpectedly/i,
];

/**
 * `also`: more SQLSTATEs (or Prisma kinds) that count as unavailability for
 * this caller (a replica's conflicts with recovery: src/db/replicas.ts).
 */
export function isDatabaseUnavailable(error: unknown, also?: ReadonlySet<string>): boolean {
  const seen = new Set<unknown>();
  let current: unknown = error;
  // Prisma's driver adapter and GraphQL wrap the pg error: follow `cause`, `originalError` and Prisma's `meta` down.
  while (current !== null && typeof current === 'object' && !seen.has(current)) {
    seen.add(current);
    const { code, originalCode, kind, message, cause, originalError, meta } = current as {
      code?: unknown;
      originalCode?: unknown;
      kind?: unknown;
      message?: unknown;
      cause?: unknown;
      originalError?: unknown;
      meta?: { driverAdapterError?: unknown };
    };
    if (typeof code === 'string' && unavailableCodes.has(code)) return true;
    if (also && [code, originalCode, kind].some((value) => typeof value === 'string' && also.has(value))) return true;
    if (typeof kind === 'string' && unavailableKinds.has(kind)) return true;
    if (typeof message === 'string' && unavailableMessages.some((pattern) => pattern.test(message))) return true;
    current = cause ?? originalError ?? meta?.driverAdapterError;
  }
  return false;
}

/** Seconds a client should wait before trying again. */
export const unavailableRetryAfterSeconds = 5;

/** A transaction the database did not finish in its time (Prisma's P2028): nothing of it was committed. */
/** A 503 that asks the caller to come back after `Retry-After`. */
const tryAgainShortly = (detail: string): AppError =>
  new AppError('UNAVAILABLE', `${detail}; try again shortly`, { headers: { 'retry-after': String(unavailableRetryAfterSeconds) } });

export const databaseBusy = (): AppError => tryAgainShortly('The database was too busy to finish this in time, and nothing was changed');

export const databaseUnavailable = (): AppError => tryAgainShortly('The database cannot be reached right now');
