/**
 * Session sign-in through external identity providers (better-auth). Sessions
 * live in the database (no JWT, no cookie cache): a signed-out or deleted
 * session fails on the next request. The spec's Auth.js-style paths are
 * served by src/http/auth-routes.ts on top of this.
 */
import { betterAuth } from 'better-auth';
import { prismaAdapter } from 'better-auth/adapters/prisma';
import { genericOAuth } from 'better-auth/plugins/generic-oauth';
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

/** The identity providers this configuration enables, by id. */
export function configuredProviders(config: Config): string[] {
  return [
    ...(config.oidc ? [config.oidc.providerId] : []),
    ...(config.google ? ['google'] : []),
    ...(config.github ? ['github'] : []),
    ...(config.microsoft ? ['microsoft'] : []),
  ];
}

export function createAuth({ config, secrets, db, log, afterSignIn }: AuthOptions) {
  const authLog = log.child({ component: 'auth' });
  return betterAuth({
    appName: 'Tally',
    baseURL: config.baseUrl,
    basePath: '/api/auth',
    secret: secrets.authSecret,
    database: prismaAdapter(db, { provider: 'postgresql' }),
    emailAndPassword: { enabled: false },
    telemetry: { enabled: false },
    // In-memory limits would not be shared by several processes; see README.
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
        if (level === 'error') authLog.error(entry, message);
        else if (level === 'warn') authLog.warn(entry, message);
        else authLog.debug(entry, message);
      },
    },
  });
}

export type Auth = ReturnType<typeof createAuth>;
