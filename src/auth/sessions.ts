import type { IncomingHttpHeaders } from 'node:http';
import type { Actor } from './actor.js';
import type { SessionResolver } from './authenticate.js';
import { fetchHeadersOf, type Auth, type LazyAuth } from './better-auth.js';
import { sessionCookieName } from './session-cookie.js';

/** The session cookie, or its `__Secure-` form over https. */
const sessionCookie = new RegExp(`(?:^|;\\s*)(?:__Secure-)?${sessionCookieName.replaceAll('.', '\\.')}=`);

function hasSessionCookie(headers: IncomingHttpHeaders): boolean {
  return typeof headers.cookie === 'string' && sessionCookie.test(headers.cookie);
}

type SessionAndUser = NonNullable<Awaited<ReturnType<Auth['api']['getSession']>>>;

/**
 * A request's session cookie as better-auth reads it: the session and its
 * user when it is valid, and the cookies to set either way (a session
 * refreshed on use, or a stale cookie cleared).
 */
export interface SessionLookup {
  found: { session: SessionAndUser['session']; user: SessionAndUser['user']; actor: Actor } | null;
  cookies: string[];
}

export interface Sessions {
  /** The gate's view: the actor of the session cookie. */
  resolve: SessionResolver;
  /** The session and user of the session cookie (what `GET /api/auth/session` answers); one lookup each call. */
  current(headers: IncomingHttpHeaders): Promise<SessionLookup>;
}

const noSession: SessionLookup = { found: null, cookies: [] };

/**
 * Sessions through better-auth: one database lookup, only when a session
 * cookie was sent. Nothing is remembered between calls: a WebSocket asks
 * again with the same headers to learn whether its session has ended.
 */
export function createSessions(auth: LazyAuth): Sessions {
  async function current(headers: IncomingHttpHeaders): Promise<SessionLookup> {
    if (!hasSessionCookie(headers)) return noSession;
    const { headers: responseHeaders, response } = await (await auth.get()).api.getSession({
      headers: fetchHeadersOf(headers),
      returnHeaders: true,
    });
    const cookies = responseHeaders.getSetCookie();
    if (!response) return { found: null, cookies };
    const { user } = response;
    const actor: Actor = { type: 'user', userId: user.id, email: user.email, name: user.name, isSuperadmin: user.isSuperadmin === true };
    return { found: { session: response.session, user, actor }, cookies };
  }

  return {
    current,
    async resolve(headers) {
      const { found, cookies } = await current(headers);
      return found ? { actor: found.actor, cookies } : null;
    },
  };
}
