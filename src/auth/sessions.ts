import type { IncomingHttpHeaders } from 'node:http';
import type { SessionResolver } from './authenticate.js';
import { fetchHeadersOf, type LazyAuth } from './better-auth.js';
import { sessionCookieName } from './session-cookie.js';

/** The session cookie, or its `__Secure-` form over https. */
const sessionCookie = new RegExp(`(?:^|;\\s*)(?:__Secure-)?${sessionCookieName.replaceAll('.', '\\.')}=`);

function hasSessionCookie(headers: IncomingHttpHeaders): boolean {
  return typeof headers.cookie === 'string' && sessionCookie.test(headers.cookie);
}

/** Sessions through better-auth: one database lookup, only when a session cookie was sent. */
export function createSessionResolver(auth: LazyAuth): SessionResolver {
  return async (headers) => {
    if (!hasSessionCookie(headers)) return null;
    const { headers: responseHeaders, response } = await (await auth.get()).api.getSession({
      headers: fetchHeadersOf(headers),
      returnHeaders: true,
    });
    if (!response) return null;
    const { user } = response;
    return {
      actor: { type: 'user', userId: user.id, email: user.email, name: user.name, isSuperadmin: user.isSuperadmin === true },
      cookies: responseHeaders.getSetCookie(),
    };
  };
}
