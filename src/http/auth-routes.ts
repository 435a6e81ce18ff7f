/**
 * /api/auth/*: the spec's sign-in paths on top of better-auth.
 *
 *   GET  /api/auth/signin/{provider}    302 to the provider (our handler; better-auth's is a POST)
 *   GET  /api/auth/callback/{provider}  better-auth's own callback
 *   POST /api/auth/signout              ends the session (origin-checked)
 *   GET  /api/auth/session              {session, user} or null
 *   GET  /api/auth/error                where a failed sign-in lands
 *
 * Nothing else of better-auth's router is exposed: what we do not serve, we do
 * not have to secure.
 */
import type { IncomingMessage } from 'node:http';
import { APIError } from 'better-auth/api';
import { fromNodeHeaders } from 'better-auth/node';
import { clientAddressHeader, configuredProviders, type Auth } from '../auth/better-auth.js';
import type { Config } from '../config.js';
import { AppError, validationFailed } from '../lib/errors.js';
import type { OriginPolicy } from './origins.js';
import type { HttpResult } from './problem.js';

const defaultCallback = '/api/auth/session';
const defaultErrorCallback = '/api/auth/error';

/** Request headers as better-auth wants them, with the client address it may record on the session. */
function authHeaders(request: IncomingMessage): Headers {
  const headers = fromNodeHeaders(request.headers);
  headers.set(clientAddressHeader, request.socket.remoteAddress ?? '');
  return headers;
}

async function fromFetchResponse(response: Response): Promise<HttpResult> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    if (name !== 'set-cookie') headers[name] = value;
  });
  const body = await response.text();
  return { status: response.status, headers, cookies: response.headers.getSetCookie(), ...(body === '' ? {} : { body }) };
}

function json(value: unknown, cookies: string[] = []): HttpResult {
  return {
    status: 200,
    headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' },
    cookies,
    body: JSON.stringify(value),
  };
}

/** better-auth's errors in our vocabulary. */
function fromAuthError(error: unknown): AppError {
  if (error instanceof APIError) {
    const status = error.statusCode;
    const detail = (error.body as { message?: string } | undefined)?.message ?? error.message;
    if (status === 404) return new AppError('NOT_FOUND', detail);
    if (status >= 400 && status < 500) return new AppError('BAD_REQUEST', detail);
    return new AppError('UNAVAILABLE', `The identity provider could not be used: ${detail}`, { cause: error });
  }
  return new AppError('UNAVAILABLE', 'Sign-in is not available right now', { cause: error });
}

export interface AuthRoutes {
  /** The answer for an /api/auth/* request. */
  handle(request: IncomingMessage, url: URL, body: Buffer | undefined): Promise<HttpResult>;
}

export function createAuthRoutes({ auth, config, origins }: { auth: Auth; config: Config; origins: OriginPolicy }): AuthRoutes {
  const providers = configuredProviders(config);

  /** A path on this server, or a URL of a trusted origin: never an open redirect. */
  function destination(value: string | null, fallback: string, name: string): string {
    if (value === null || value === '') return fallback;
    if (/^\/(?![/\\])/.test(value)) return value;
    let url: URL | undefined;
    try {
      url = new URL(value);
    } catch {
      url = undefined;
    }
    if (!url || !origins.isTrusted(url.origin)) {
      throw validationFailed([{ path: name, message: 'must be a path on this server or a URL of a trusted origin' }]);
    }
    return url.toString();
  }

  async function signIn(request: IncomingMessage, url: URL, provider: string): Promise<HttpResult> {
    if (!providers.includes(provider)) {
      throw new AppError(
        'NOT_FOUND',
        providers.length === 0
          ? 'No identity provider is configured (see AUTH_OIDC_* in README.md)'
          : `No identity provider "${provider}"; configured: ${providers.join(', ')}`,
      );
    }
    const callbackURL = destination(url.searchParams.get('callbackUrl'), defaultCallback, 'callbackUrl');
    const errorCallbackURL = destination(url.searchParams.get('errorCallbackUrl'), defaultErrorCallback, 'errorCallbackUrl');
    try {
      const { headers, response } = await auth.api.signInSocial({
        body: { provider, callbackURL, errorCallbackURL, disableRedirect: true },
        headers: authHeaders(request),
        returnHeaders: true,
      });
      if (!response.url) throw new AppError('UNAVAILABLE', `The provider "${provider}" gave no sign-in address`);
      // The state cookie ties the callback to this browser.
      return { status: 302, headers: { location: response.url, 'cache-control': 'no-store' }, cookies: headers.getSetCookie() };
    } catch (error) {
      if (error instanceof AppError) throw error;
      throw fromAuthError(error);
    }
  }

  async function signOut(request: IncomingMessage): Promise<HttpResult> {
    const refusal = origins.refusal('POST', request.headers);
    if (refusal) throw refusal;
    const { headers } = await auth.api.signOut({
      body: { disableRedirect: true },
      headers: authHeaders(request),
      returnHeaders: true,
    });
    return json({ success: true }, headers.getSetCookie());
  }

  async function session(request: IncomingMessage): Promise<HttpResult> {
    const { headers, response } = await auth.api.getSession({ headers: authHeaders(request), returnHeaders: true });
    if (!response) return json(null, headers.getSetCookie());
    // The token is the cookie's value: it stays in the HttpOnly cookie, out of reach of scripts.
    const { token: _token, ...visibleSession } = response.session;
    return json({ session: visibleSession, user: response.user }, headers.getSetCookie());
  }

  async function callback(request: IncomingMessage, url: URL, body: Buffer | undefined): Promise<HttpResult> {
    const target = new URL(`${url.pathname}${url.search}`, config.baseUrl);
    const response = await auth.handler(
      new Request(target, {
        method: request.method ?? 'GET',
        headers: authHeaders(request),
        ...(body === undefined ? {} : { body: new Uint8Array(body) }),
      }),
    );
    return fromFetchResponse(response);
  }

  return {
    async handle(request, url, body) {
      const method = request.method ?? 'GET';
      const { pathname } = url;
      const signInProvider = /^\/api\/auth\/signin\/([^/]+)$/.exec(pathname)?.[1];
      if (signInProvider !== undefined && method === 'GET') return signIn(request, url, decodeURIComponent(signInProvider));
      if (/^\/api\/auth\/callback\/[^/]+$/.test(pathname) && (method === 'GET' || method === 'POST')) {
        return callback(request, url, body);
      }
      if (pathname === '/api/auth/signout' && method === 'POST') return signOut(request);
      if (pathname === '/api/auth/session' && method === 'GET') return session(request);
      if (pathname === '/api/auth/error' && method === 'GET') {
        const code = url.searchParams.get('error') ?? '';
        throw new AppError(
          'UNAUTHENTICATED',
          `Sign-in failed (${/^[a-z0-9_]{1,64}$/i.test(code) ? code : 'unknown'}). Start again at /api/auth/signin/{provider}.`,
        );
      }
      throw new AppError('NOT_FOUND', `No route ${method} ${pathname}; sign-in routes are listed under Auth in /docs`);
    },
  };
}
