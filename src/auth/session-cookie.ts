/**
 * The session cookie's name, in one place: better-auth builds it from the
 * prefix, the gate recognises it, the OpenAPI document names it. Over https
 * better-auth adds `__Secure-` in front.
 */
export const sessionCookiePrefix = 'service';
export const sessionCookieName = `${sessionCookiePrefix}.session_token`;
