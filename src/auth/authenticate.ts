/**
 * The one authentication gate: every non-public route and
 * every GraphQL operation, over HTTP or WebSocket, passes here first. An API
 * key wins when both a key and a session cookie are sent; a presented but
 * invalid key is refused even if a valid cookie came along, since the caller
 * asked to be the key.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { unauthenticated, type AppError } from '../lib/errors.js';
import type { Actor } from './actor.js';
import type { TenantRecord } from './tenant-access.js';

/** What the gate learns from a presented API key: the key's actor, and its tenant as it is now. */
export type ApiKeyCheck =
  | { valid: true; actor: Extract<Actor, { type: 'api_key' }>; tenant: TenantRecord }
  | { valid: false; reason: 'unknown' | 'revoked' | 'expired' };

/** Looks a presented `svc_...` key up (the API-key module implements it). */
export interface ApiKeyChecker {
  check(presented: string): Promise<ApiKeyCheck>;
}

export type Credential = 'api_key' | 'session';

export type AuthenticationResult =
  | {
      actor: Actor;
      credential: Credential;
      /** Set-Cookie values to pass on (a session refreshed on use). */
      cookies: string[];
      /** The key's tenant, read with the key: its guard needs no query of its own in this request. */
      tenant?: TenantRecord;
    }
  | { actor: null; error: AppError };

/** Resolves a session cookie to an actor (better-auth). */
export type SessionResolver = (headers: IncomingHttpHeaders) => Promise<{ actor: Actor; cookies: string[] } | null>;

export interface Authenticator {
  /** `authorization` overrides the header (graphql-ws sends it in connectionParams). */
  authenticate(headers: IncomingHttpHeaders, authorization?: string): Promise<AuthenticationResult>;
}

const keyFailures = {
  unknown: 'The API key is not valid',
  revoked: 'The API key has been revoked',
  expired: 'The API key has expired',
} as const;

export function createAuthenticator({ apiKeys, resolveSession }: { apiKeys: ApiKeyChecker; resolveSession?: SessionResolver }): Authenticator {
  return {
    async authenticate(headers, authorization = headers.authorization) {
      if (authorization !== undefined) {
        const [scheme, token, ...rest] = authorization.trim().split(/\s+/);
        if (scheme?.toLowerCase() !== 'bearer' || token === undefined || rest.length > 0) {
          return { actor: null, error: unauthenticated('Send the API key as "Authorization: Bearer svc_..."') };
        }
        const check = await apiKeys.check(token);
        return check.valid
          ? { actor: check.actor, credential: 'api_key', cookies: [], tenant: check.tenant }
          : { actor: null, error: unauthenticated(keyFailures[check.reason]) };
      }
      const session = resolveSession ? await resolveSession(headers) : null;
      if (session) return { actor: session.actor, credential: 'session', cookies: session.cookies };
      return {
        actor: null,
        error: unauthenticated('Authentication required: send "Authorization: Bearer svc_..." or sign in at /api/auth/signin/{provider}'),
      };
    },
  };
}
