import path from 'node:path';
import { z } from 'zod';
import { parseTrustProxy, type TrustProxy } from './lib/client-address.js';
import { clockSetting, type ClockSetting } from './lib/clock.js';

/** Process roles: `api` serves HTTP, `worker` runs jobs, `all` does both (README, "Process roles"). */
export const processRoles = ['all', 'api', 'worker'] as const;
export type ProcessRole = (typeof processRoles)[number];

export interface OAuthClientConfig {
  clientId: string;
  clientSecret: string;
}

export interface OidcProviderConfig extends OAuthClientConfig {
  providerId: string;
  issuer: string;
}

/** Everything the process reads from its environment, typed and defaulted once. */
export interface Config {
  nodeEnv: 'development' | 'production' | 'test';
  /** External PostgreSQL; undefined starts the embedded one under `dataDir/postgres`. */
  databaseUrl: string | undefined;
  /** Streaming replicas of the database (DATABASE_REPLICA_URL, comma separated) that serve reads tolerating lag; empty: all reads on the primary. */
  databaseReplicaUrls: string[];
  /** Longest a caller's read waits for a replica to replay the caller's last write before it reads the primary instead. */
  replicaMaxWaitMs: number;
  /** A replica further behind than this is skipped. */
  replicaMaxLagMs: number;
  /** Absolute path. */
  dataDir: string;
  port: number;
  host: string;
  /** Public URL without trailing slash. */
  baseUrl: string;
  /** From the environment; undefined means "generate once into DATA_DIR" (never in production). */
  authSecret: string | undefined;
  encryptionKey: string | undefined;
  oidc: OidcProviderConfig | undefined;
  google: OAuthClientConfig | undefined;
  github: OAuthClientConfig | undefined;
  microsoft: OAuthClientConfig | undefined;
  /** Lower-cased. */
  superadminEmails: string[];
  /** Browser origins allowed to send cookie-authenticated state-changing requests. */
  trustedOrigins: string[];
  webhookAllowPrivateUrls: boolean;
  /** Requests a minute per API key or session, shared by every process; 0 turns the limit off. */
  rateLimitPerMinute: number;
  /** Requests a minute per client address to sign-in (`/api/auth/signin/*`, `/api/auth/callback/*`); 0 turns the limit off. */
  authRateLimitPerMinute: number;
  /** Which proxies' `X-Forwarded-For` to believe (TRUST_PROXY); by default none. */
  trustProxy: TrustProxy;
  /** A bearer token that may read /metrics (besides admins and superadmins). */
  metricsToken: string | undefined;
  role: ProcessRole;
  logLevel: string;
  /** Longest time to receive a whole request, headers and body (uploads included). */
  requestTimeoutMs: number;
  /** Longest time to receive a request's headers. */
  headersTimeoutMs: number;
  /** Longest pause in a request body that is still arriving. */
  bodyIdleTimeoutMs: number;
  /** Days the change feed keeps events (older ones, once processed, are pruned daily). */
  eventRetentionDays: number;
  /** Where invoices are mailed through (SMTP_URL, smtp:// or smtps://); undefined: `send` only marks them sent. */
  smtpUrl: string | undefined;
  /** The From of mailed invoices (MAIL_FROM); required with SMTP_URL. */
  mailFrom: string | undefined;
  /**
   * Where the clock rules read starts (TEST_CLOCK; NODE_ENV=test only): the
   * processes a test starts beside its own run on the test's clock. Undefined: the system clock.
   */
  testClock: ClockSetting | undefined;
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

const booleanFlag = z
  .enum(['true', 'false', '1', '0', 'yes', 'no', ''])
  .optional()
  .transform((value) => value === 'true' || value === '1' || value === 'yes');

const commaList = z
  .string()
  .optional()
  .transform((value) =>
    (value ?? '')
      .split(',')
      .map((item) => item.trim())
      .filter((item) => item.length > 0),
  );

const optionalNonEmpty = z
  .string()
  .optional()
  .transform((value) => (value === undefined || value.trim() === '' ? undefined : value.trim()));

const milliseconds = optionalNonEmpty.pipe(
  z
    .string()
    .regex(/^\d{1,9}$/, 'must be a whole number of milliseconds')
    .transform(Number)
    .pipe(z.number().min(1, 'must be at least 1'))
    .optional(),
);

const environmentSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).optional(),
  DATABASE_URL: optionalNonEmpty.pipe(
    z
      .string()
      .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// or postgresql:// URL')
      .optional(),
  ),
  DATABASE_REPLICA_URL: commaList.pipe(z.array(z.string().regex(/^postgres(ql)?:\/\//, 'must be postgres:// or postgresql:// URLs, comma separated'))),
  REPLICA_MAX_WAIT_MS: milliseconds,
  REPLICA_MAX_LAG_MS: milliseconds,
  DATA_DIR: optionalNonEmpty,
  PORT: optionalNonEmpty.pipe(
    z
      .string()
      .regex(/^\d{1,5}$/, 'must be a port number')
      .transform(Number)
      .pipe(z.number().max(65535, 'must be at most 65535'))
      .optional(),
  ),
  HOST: optionalNonEmpty,
  BASE_URL: optionalNonEmpty.pipe(z.url().optional()),
  AUTH_SECRET: optionalNonEmpty.pipe(z.string().min(32, 'must be at least 32 characters').optional()),
  ENCRYPTION_KEY: optionalNonEmpty.pipe(z.string().min(32, 'must be at least 32 characters').optional()),
  AUTH_OIDC_ISSUER: optionalNonEmpty.pipe(z.url().optional()),
  AUTH_OIDC_CLIENT_ID: optionalNonEmpty,
  AUTH_OIDC_CLIENT_SECRET: optionalNonEmpty,
  AUTH_OIDC_PROVIDER_ID: optionalNonEmpty.pipe(
    z
      .string()
      .regex(/^[a-z0-9][a-z0-9_-]*$/, 'must be lower-case letters, digits, - or _')
      .optional(),
  ),
  AUTH_GOOGLE_CLIENT_ID: optionalNonEmpty,
  AUTH_GOOGLE_CLIENT_SECRET: optionalNonEmpty,
  AUTH_GITHUB_CLIENT_ID: optionalNonEmpty,
  AUTH_GITHUB_CLIENT_SECRET: optionalNonEmpty,
  AUTH_MICROSOFT_CLIENT_ID: optionalNonEmpty,
  AUTH_MICROSOFT_CLIENT_SECRET: optionalNonEmpty,
  SUPERADMIN_EMAILS: commaList,
  TRUSTED_ORIGINS: commaList,
  WEBHOOK_ALLOW_PRIVATE_URLS: booleanFlag,
  RATE_LIMIT_PER_MINUTE: optionalNonEmpty.pipe(
    z
      .string()
      .regex(/^\d{1,7}$/, 'must be a whole number (0 turns it off)')
      .transform(Number)
      .optional(),
  ),
  AUTH_RATE_LIMIT_PER_MINUTE: optionalNonEmpty.pipe(
    z
      .string()
      .regex(/^\d{1,7}$/, 'must be a whole number (0 turns it off)')
      .transform(Number)
      .optional(),
  ),
  TRUST_PROXY: z
    .string()
    .optional()
    .transform((value, context) => {
      try {
        return parseTrustProxy(value);
      } catch (error) {
        context.addIssue({
          code: 'custom',
          message: `must be a hop count, or addresses and CIDRs separated by commas (${(error as Error).message})`,
        });
        return z.NEVER;
      }
    }),
  METRICS_TOKEN: optionalNonEmpty.pipe(z.string().min(24, 'must be at least 24 characters').optional()),
  ROLE: optionalNonEmpty.pipe(z.enum(processRoles).optional()),
  LOG_LEVEL: optionalNonEmpty.pipe(z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).optional()),
  REQUEST_TIMEOUT_MS: milliseconds,
  HEADERS_TIMEOUT_MS: milliseconds,
  BODY_IDLE_TIMEOUT_MS: milliseconds,
  EVENT_RETENTION_DAYS: optionalNonEmpty.pipe(
    z
      .string()
      .regex(/^\d{1,5}$/, 'must be a whole number of days')
      .transform(Number)
      .pipe(z.number().min(1, 'must be at least 1 day'))
      .optional(),
  ),
  SMTP_URL: optionalNonEmpty.pipe(
    z
      .string()
      .regex(/^smtps?:\/\/[^\s]+$/, 'must be an smtp:// or smtps:// URL, e.g. smtp://user:pass@host:587')
      .optional(),
  ),
  MAIL_FROM: optionalNonEmpty.pipe(z.string().min(3).optional()),
  TEST_CLOCK: optionalNonEmpty.transform((value, context) => {
    if (value === undefined) return undefined;
    const start = clockSetting(value);
    if (start === undefined) {
      context.addIssue({
        code: 'custom',
        message: 'must be a date (2027-01-02) or an instant with its offset (2027-01-02T08:00:00Z), optionally @ the system instant it was read at',
      });
      return z.NEVER;
    }
    return start;
  }),
});

type Environment = Record<string, string | undefined>;

function oauthClient(prefix: string, clientId: string | undefined, clientSecret: string | undefined): OAuthClientConfig | undefined {
  if (clientId === undefined && clientSecret === undefined) return undefined;
  if (clientId === undefined || clientSecret === undefined) {
    throw new ConfigError(`${prefix}_CLIENT_ID and ${prefix}_CLIENT_SECRET must be set together`);
  }
  return { clientId, clientSecret };
}

function originOf(url: string): string {
  return new URL(url).origin;
}

/** Reads and validates the environment (the table in README, "Configure it"); throws ConfigError naming the variable. */
export function loadConfig(environment: Environment = process.env): Config {
  const parsed = environmentSchema.safeParse(environment);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    throw new ConfigError(`Invalid configuration:\n  ${problems.join('\n  ')}`);
  }
  const env = parsed.data;
  const nodeEnv = env.NODE_ENV ?? 'development';
  const port = env.PORT ?? 3000;
  const baseUrl = (env.BASE_URL ?? `http://localhost:${port}`).replace(/\/+$/, '');

  if (nodeEnv === 'production') {
    const missing = ['AUTH_SECRET', 'ENCRYPTION_KEY', 'DATABASE_URL'].filter(
      (name) => env[name as 'AUTH_SECRET' | 'ENCRYPTION_KEY' | 'DATABASE_URL'] === undefined,
    );
    if (missing.length > 0) {
      throw new ConfigError(`NODE_ENV=production requires ${missing.join(', ')}`);
    }
  }

  const oidcClient = oauthClient('AUTH_OIDC', env.AUTH_OIDC_CLIENT_ID, env.AUTH_OIDC_CLIENT_SECRET);
  if ((oidcClient === undefined) !== (env.AUTH_OIDC_ISSUER === undefined)) {
    throw new ConfigError('AUTH_OIDC_ISSUER, AUTH_OIDC_CLIENT_ID and AUTH_OIDC_CLIENT_SECRET must be set together');
  }

  // A pinned clock is for tests alone: a production process that found one in its environment must not run on it.
  if (env.TEST_CLOCK !== undefined && nodeEnv !== 'test') {
    throw new ConfigError('TEST_CLOCK is honoured only with NODE_ENV=test');
  }

  if (env.SMTP_URL !== undefined && env.MAIL_FROM === undefined) {
    throw new ConfigError('MAIL_FROM must be set with SMTP_URL (the From of mailed invoices)');
  }

  const trustedOrigins = [originOf(baseUrl), ...env.TRUSTED_ORIGINS.map((origin) => originOf(origin))];

  // A 20 MiB upload on a slow uplink takes minutes: the whole request gets a
  // generous limit, and slow-loris clients are cut by the headers limit and
  // the body's idle limit instead.
  const requestTimeoutMs = env.REQUEST_TIMEOUT_MS ?? 300_000;
  const headersTimeoutMs = env.HEADERS_TIMEOUT_MS ?? Math.min(10_000, requestTimeoutMs);
  if (headersTimeoutMs > requestTimeoutMs) {
    throw new ConfigError('HEADERS_TIMEOUT_MS must not be larger than REQUEST_TIMEOUT_MS');
  }

  return {
    nodeEnv,
    databaseUrl: env.DATABASE_URL,
    databaseReplicaUrls: [...new Set(env.DATABASE_REPLICA_URL)],
    replicaMaxWaitMs: env.REPLICA_MAX_WAIT_MS ?? 200,
    replicaMaxLagMs: env.REPLICA_MAX_LAG_MS ?? 5000,
    dataDir: path.resolve(env.DATA_DIR ?? '.data'),
    port,
    host: env.HOST ?? '127.0.0.1',
    baseUrl,
    authSecret: env.AUTH_SECRET,
    encryptionKey: env.ENCRYPTION_KEY,
    oidc: oidcClient && env.AUTH_OIDC_ISSUER ? { ...oidcClient, issuer: env.AUTH_OIDC_ISSUER, providerId: env.AUTH_OIDC_PROVIDER_ID ?? 'oidc' } : undefined,
    google: oauthClient('AUTH_GOOGLE', env.AUTH_GOOGLE_CLIENT_ID, env.AUTH_GOOGLE_CLIENT_SECRET),
    github: oauthClient('AUTH_GITHUB', env.AUTH_GITHUB_CLIENT_ID, env.AUTH_GITHUB_CLIENT_SECRET),
    microsoft: oauthClient('AUTH_MICROSOFT', env.AUTH_MICROSOFT_CLIENT_ID, env.AUTH_MICROSOFT_CLIENT_SECRET),
    superadminEmails: env.SUPERADMIN_EMAILS.map((email) => email.toLowerCase()),
    trustedOrigins: [...new Set(trustedOrigins)],
    webhookAllowPrivateUrls: env.WEBHOOK_ALLOW_PRIVATE_URLS,
    rateLimitPerMinute: env.RATE_LIMIT_PER_MINUTE ?? 600,
    authRateLimitPerMinute: env.AUTH_RATE_LIMIT_PER_MINUTE ?? 30,
    trustProxy: env.TRUST_PROXY,
    metricsToken: env.METRICS_TOKEN,
    role: env.ROLE ?? 'all',
    logLevel: env.LOG_LEVEL ?? (nodeEnv === 'test' ? 'warn' : 'info'),
    requestTimeoutMs,
    headersTimeoutMs,
    bodyIdleTimeoutMs: env.BODY_IDLE_TIMEOUT_MS ?? 10_000,
    eventRetentionDays: env.EVENT_RETENTION_DAYS ?? 400,
    testClock: env.TEST_CLOCK,
    smtpUrl: env.SMTP_URL,
    mailFrom: env.MAIL_FROM,
  };
}
