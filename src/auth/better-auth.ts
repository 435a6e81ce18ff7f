/**
 * Session sign-in through external identity providers (better-auth). Sessions
 * live in the database (no JWT, no cookie cache): a signed-out or deleted
 * session fails on the next request. The spec's Auth.js-style paths are
 * served by src/http/auth-routes.ts on top of this.
 *
 * better-auth is loaded on the first request that needs it (a session cookie,
 * a sign-in): its resident memory is a large part of a process's, and one
 * serving only API keys never uses it (figures: docs/performance.md).
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Config } from '../config.js';
import type { Db } from '../db/client.js';
import type { Logger } from '../lib/logger.js';
import type { Secrets } from '../lib/secrets.js';
import { sessionCookiePrefix } from './session-cookie.js';

/** better-auth reads the client address from this header; the server overwrites it on every request. */
export const clientAddressHeader = 'x-tally-client-ip';

const sessionLifetimeSeconds = 7 * 24 * 60 * 60;
const sessionRefreshSeconds = 24 * 60 * 60;

export interface AuthOptions {
  config: Config;
  secrets: Secrets;
  db: Db;
  log: Logger;
  /** Runs after every successful sign-in (invitations, SUPERADMIN_EMAILS). */
  afterSignIn: (userId: string) => Promise<void>;
}

/**
 * What better-auth logs as an error although the request was at fault: an OAuth callback called without its
 * state, with a malformed query, or with a state that is not one this browser started (no state cookie, a state
 * of someone else's). Anyone can send those, so at error level they would let anyone write error lines into our
 * logs; they are bad requests, logged at the level of every other 4xx (the request line's, info). A state that
 * could not be made (`state_generation_error`: the database) stays an error.
 */
const requestFaults = new Set(['State not found', 'INVALID_CALLBACK_REQUEST', 'Failed to parse state']);

const codeOf = (detail: unknown): unknown => (typeof detail === 'object' && detail !== null ? (detail as { code?: unknown }).code : undefined);

/** The level a line better-auth logs at `level` is written at (see `requestFaults`). */
export function authLogLevel(level: string, message: string, details: readonly unknown[]): string {
  if (level !== 'error' || !requestFaults.has(message)) return level;
  if (message === 'Failed to parse state') {
    const code = codeOf(details[0]);
    if (typeof code !== 'string' || code === 'state_generation_error') return level;
  }
  return 'info';
}

/** The identity providers this configuration enables, by id. */
export function configuredProviders(config: Config): string[] {
  return [
    ...(config.oidc ? [config.oidc.providerId] : []),
    ...(config.google ? ['google'] : []),
    ...(config.github ? ['github'] : []),
    ...(config.microsoft ? ['microsoft'] : []),
  ];
}

async function loadAuth({ config, secrets, db, log, afterSignIn }: AuthOptions) {
  const [{ betterAuth }, { prismaAdapter }, { genericOAuth }] = await Promise.all([
    import('better-auth'),
    import('better-auth/adapters/prisma'),
    import('better-auth/plugins/generic-oauth'),
  ]);
  const authLog = log.child({ component: 'auth' });
  return betterAuth({
    appName: 'Tally',
    baseURL: config.baseUrl,
    basePath: '/api/auth',
    secret: secrets.authSecret,
    database: prismaAdapter(db, { provider: 'postgresql' }),
    emailAndPassword: { enabled: false },
    telemetry: { enabled: false },
    // In-memory limits would not be shared by several processes (docs/decisions.md, "Rate limits and client addresses").
    rateLimit: { enabled: false },
    trustedOrigins: config.trustedOrigins,
    session: {
      expiresIn: sessionLifetimeSeconds,
      updateAge: sessionRefreshSeconds,
      cookieCache: { enabled: false },
    },
    user: {
      additionalFields: {
        isSuperadmin: { type: 'boolean', required: false, defaultValue: false, input: false },
      },
    },
    advanced: {
      cookiePrefix: sessionCookiePrefix,
      // Vitest sets NODE_ENV=test, which would switch better-auth's origin check off.
      disableOriginCheck: false,
      ipAddress: { ipAddressHeaders: [clientAddressHeader] },
    },
    databaseHooks: {
      session: {
        create: {
          // Every sign-in, new user or returning; `user.create.after` would run only once.
          after: async (session) => {
            await afterSignIn(session.userId);
          },
        },
      },
    },
    socialProviders: {
      ...(config.google ? { google: { ...config.google, prompt: 'select_account' as const } } : {}),
      ...(config.github ? { github: config.github } : {}),
      ...(config.microsoft ? { microsoft: { ...config.microsoft, tenantId: 'common' } } : {}),
    },
    plugins: config.oidc
      ? [
          genericOAuth({
            config: [
              {
                providerId: config.oidc.providerId,
                discoveryUrl: `${config.oidc.issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`,
                clientId: config.oidc.clientId,
                clientSecret: config.oidc.clientSecret,
                scopes: ['openid', 'email', 'profile'],
                pkce: true,
                // Sign-out ends our session only; it does not sign the person out of their provider.
                disableProviderLogout: true,
              },
            ],
          }),
        ]
      : [],
    logger: {
      level: 'warn',
      log: (level, message, ...details) => {
        const entry = details.length > 0 ? { details } : {};
        const as = authLogLevel(level, message, details);
        if (as === 'error') authLog.error(entry, message);
        else if (as === 'warn') authLog.warn(entry, message);
        else if (as === 'info') authLog.info(entry, message);
        else authLog.debug(entry, message);
      },
    },
  });
}

export type Auth = Awaited<ReturnType<typeof loadAuth>>;

/** better-auth, built once, on first use. */
export interface LazyAuth {
  get(): Promise<Auth>;
}

export function createAuth(options: AuthOptions): LazyAuth {
  let loading: Promise<Auth> | undefined;
  return {
    get() {
      loading ??= loadAuth(options);
      loading.catch(() => {
        loading = undefined; // a failed load (a broken install) is retried, not cached
      });
      return loading;
    },
  };
}

/** Node's request headers as the Fetch API's, as better-auth takes them. */
export function fetchHeadersOf(incoming: IncomingHttpHeaders): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(incoming)) {
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) headers.append(name, item);
  }
  return headers;
}
