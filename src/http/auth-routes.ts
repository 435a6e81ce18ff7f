/**
 * /api/auth/*: the spec's sign-in paths on top of better-auth, as native
 * route rows (public: they are how a caller gets credentials).
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
import { z } from 'zod';
import { clientAddressHeader, configuredProviders, fetchHeadersOf } from '../auth/better-auth.js';
import { sessionCookieName } from '../auth/session-cookie.js';
import { AppError, validationFailed } from '../lib/errors.js';
import type { HttpResult } from '../lib/problem.js';
import { nativeRoute, type JsonSchemaObject, type NativeRequest, type NativeRouteSpec, type Platform, type RouteTag } from '../rest/route.js';

const defaultCallback = '/api/auth/session';
const defaultErrorCallback = '/api/auth/error';

const sessionUser: JsonSchemaObject = {
  type: 'object',
  required: ['id', 'name', 'email', 'emailVerified', 'isSuperadmin', 'createdAt', 'updatedAt'],
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    email: { type: 'string' },
    emailVerified: { type: 'boolean' },
    image: { type: ['string', 'null'] },
    isSuperadmin: { type: 'boolean' },
    createdAt: { type: 'string', format: 'date-time' },
    updatedAt: { type: 'string', format: 'date-time' },
  },
};

const sessionRecord: JsonSchemaObject = {
  type: 'object',
  required: ['id', 'userId', 'expiresAt', 'createdAt', 'updatedAt'],
  properties: {
    id: { type: 'string' },
    userId: { type: 'string' },
    expiresAt: { type: 'string', format: 'date-time' },
    createdAt: { type: 'string', format: 'date-time' },
    updatedAt: { type: 'string', format: 'date-time' },
    ipAddress: { type: ['string', 'null'] },
    userAgent: { type: ['string', 'null'] },
  },
};

const provider = z
  .string()
  .regex(/^[a-z0-9][a-z0-9_-]*$/)
  .describe('A configured identity provider: `oidc` (or AUTH_OIDC_PROVIDER_ID), `google`, `github`, `microsoft`');

/** Request headers as better-auth wants them, with the client address (TRUST_PROXY's) it may record on the session. */
function authHeaders({ http, clientAddress }: Pick<NativeRequest, 'http' | 'clientAddress'>): Headers {
  const headers = fetchHeadersOf(http.headers);
  headers.set(clientAddressHeader, clientAddress);
  return headers;
}

async function fromFetchResponse(response: Response): Promise<HttpResult> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    if (name !== 'set-cookie') headers[name] = value;
  });
  const body = await response.text();
  if (response.status >= 400) throw refusalOfAuthAnswer(response.status, body);
  return { status: response.status, headers, cookies: response.headers.getSetCookie(), ...(body === '' ? {} : { body }) };
}

/** A refusal better-auth answered itself (`{message, code}`), as our problem: every 4xx of ours is problem+json. */
function refusalOfAuthAnswer(status: number, body: string): AppError {
  let detail = body;
  try {
    detail = String((JSON.parse(body) as { message?: unknown }).message ?? body);
  } catch {
    // Not JSON: the text is the detail.
  }
  if (status === 415) return new AppError('UNSUPPORTED_MEDIA_TYPE', detail);
  return fromAuthError(Object.assign(new Error(detail), { statusCode: status, body: { message: detail } }));
}

function json(value: unknown, cookies: string[] = []): HttpResult {
  return {
    status: 200,
    headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' },
    cookies,
    body: JSON.stringify(value),
  };
}

/** better-auth's APIError, told by its shape: importing its class would load better-auth with this file. */
function isAuthApiError(error: unknown): error is Error & { statusCode: number; body?: { message?: string } } {
  return error instanceof Error && typeof (error as { statusCode?: unknown }).statusCode === 'number';
}

/** better-auth's errors in our vocabulary. */
function fromAuthError(error: unknown): AppError {
  if (isAuthApiError(error)) {
    const status = error.statusCode;
    const detail = error.body?.message ?? error.message;
    if (status === 404) return new AppError('NOT_FOUND', detail);
    if (status >= 400 && status < 500) return new AppError('BAD_REQUEST', detail);
    return new AppError('UNAVAILABLE', `The identity provider could not be used: ${detail}`, { cause: error });
  }
  return new AppError('UNAVAILABLE', 'Sign-in is not available right now', { cause: error });
}

/** A path on this server, or a URL of a trusted origin: never an open redirect. */
function destination(platform: Platform, value: string | undefined, fallback: string, name: string): string {
  if (value === undefined || value === '') return fallback;
  if (/^\/(?![/\\])/.test(value)) return value;
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  if (!url || !platform.origins.isTrusted(url.origin)) {
    throw validationFailed([{ path: name, message: 'must be a path on this server or a URL of a trusted origin' }]);
  }
  return url.toString();
}

const signIn = nativeRoute({
  controller: 'auth',
  action: 'signIn',
  method: 'GET',
  path: '/api/auth/signin/{provider}',
  summary: 'Start signing in with an identity provider',
  description:
    "Redirects (302) to the provider's consent screen. After it, the provider returns to /api/auth/callback/{provider}, " +
    'which sets the session cookie and redirects to `callbackUrl`.',
  access: 'public',
  publicBudget: 'sign-in',
  parameters: z.strictObject({
    provider,
    callbackUrl: z.string().optional().describe('Where to go once signed in: a path on this server, or a URL of a trusted origin. Default /api/auth/session'),
    errorCallbackUrl: z.string().optional().describe('Where to go when sign-in fails (`?error=<code>` is added). Default /api/auth/error'),
  }),
  responses: {
    '302': { description: "To the provider's consent screen", headers: { location: 'The provider URL', 'set-cookie': 'The sign-in state cookie' } },
    '400': { description: 'The provider id breaks its pattern, or callbackUrl or errorCallbackUrl is not on this server or a trusted origin' },
    '404': { description: 'No such provider is configured' },
  },
  async handler(request) {
    const { parameters, platform } = request;
    const providers = configuredProviders(platform.config);
    if (!providers.includes(parameters.provider)) {
      throw new AppError(
        'NOT_FOUND',
        providers.length === 0
          ? 'No identity provider is configured (see AUTH_OIDC_* in README.md)'
          : `No identity provider "${parameters.provider}"; configured: ${providers.join(', ')}`,
      );
    }
    const callbackURL = destination(platform, parameters.callbackUrl, defaultCallback, 'callbackUrl');
    const errorCallbackURL = destination(platform, parameters.errorCallbackUrl, defaultErrorCallback, 'errorCallbackUrl');
    try {
      const { headers, response } = await (await platform.auth.get()).api.signInSocial({
        body: { provider: parameters.provider, callbackURL, errorCallbackURL, disableRedirect: true },
        headers: authHeaders(request),
        returnHeaders: true,
      });
      if (!response.url) throw new AppError('UNAVAILABLE', `The provider "${parameters.provider}" gave no sign-in address`);
      // The state cookie ties the callback to this browser.
      return { status: 302, headers: { location: response.url, 'cache-control': 'no-store' }, cookies: headers.getSetCookie() };
    } catch (error) {
      if (error instanceof AppError) throw error;
      throw fromAuthError(error);
    }
  },
});

/** The provider's redirect (GET) or form post (POST), handed to better-auth as it came. */
async function callback(request: NativeRequest): Promise<HttpResult> {
  const { http, url, rawBody, platform } = request;
  const target = new URL(`${url.pathname}${url.search}`, platform.config.baseUrl);
  const response = await (await platform.auth.get()).handler(
    new Request(target, {
      method: http.method ?? 'GET',
      headers: authHeaders(request),
      ...(rawBody === undefined ? {} : { body: new Uint8Array(rawBody) }),
    }),
  );
  return fromFetchResponse(response);
}

/** Whatever the provider sends back (code, state, iss, scope...) goes to better-auth unchanged. */
const callbackParameters = z.looseObject({
  provider,
  code: z.string().optional().describe('Supplied by the provider'),
  state: z.string().optional().describe('Supplied by the provider'),
});

const callbackResponses = {
  '302': { description: 'Signed in: to callbackUrl. Failed: to errorCallbackUrl with `?error=<code>`', headers: { 'set-cookie': 'The session cookie' } },
};

const callbackRoutes = [
  nativeRoute({
    controller: 'auth',
    action: 'callback',
    method: 'GET',
    path: '/api/auth/callback/{provider}',
    summary: 'Return from the identity provider',
    description:
      'Reached by redirect from the provider. Creates or updates the user, account and session, sets the session cookie ' +
      `\`${sessionCookieName}\` (\`__Secure-${sessionCookieName}\` over https) and redirects to the callbackUrl of the sign-in.`,
    access: 'public',
    publicBudget: 'sign-in',
    parameters: callbackParameters,
    responses: callbackResponses,
    handler: callback,
  }),
  nativeRoute({
    controller: 'auth',
    action: 'callbackPost',
    method: 'POST',
    path: '/api/auth/callback/{provider}',
    summary: 'Return from the identity provider (form post)',
    description: 'The same as the GET callback, for providers that post the answer (response_mode=form_post).',
    access: 'public',
    publicBudget: 'sign-in',
    parameters: callbackParameters,
    body: { kind: 'raw' },
    responses: callbackResponses,
    hidden: true,
    handler: callback,
  }),
];

const signOut = nativeRoute({
  controller: 'auth',
  action: 'signOut',
  method: 'POST',
  path: '/api/auth/signout',
  summary: 'Sign out',
  description:
    'Ends the session of the cookie sent (the cookie then gets 401 everywhere) and clears it. Browsers must send an Origin ' +
    'that is this server or a trusted origin. Signing out without a session also succeeds.',
  access: 'public',
  parameters: z.strictObject({}),
  responses: {
    '200': { description: 'Signed out', schema: { type: 'object', required: ['success'], properties: { success: { type: 'boolean' } } } },
    '403': { description: 'The request came from an untrusted browser origin' },
  },
  async handler(request) {
    const { http, platform } = request;
    const refusal = platform.origins.refusal('POST', http.headers);
    if (refusal) throw refusal;
    const { headers } = await (await platform.auth.get()).api.signOut({
      body: { disableRedirect: true },
      headers: authHeaders(request),
      returnHeaders: true,
    });
    return json({ success: true }, headers.getSetCookie());
  },
});

const session = nativeRoute({
  controller: 'auth',
  action: 'session',
  method: 'GET',
  path: '/api/auth/session',
  summary: 'The current session and user',
  description: 'Answers 200 with `{session, user}` for a valid session cookie, and 200 with `null` without one (API keys have no session).',
  access: 'public',
  parameters: z.strictObject({}),
  responses: {
    '200': {
      description: 'The session and its user, or null',
      schema: {
        anyOf: [{ type: 'object', required: ['session', 'user'], properties: { session: sessionRecord, user: sessionUser } }, { type: 'null' }],
      },
    },
  },
  async handler({ http, platform, session }) {
    // The gate has looked the session up already (to count the request as the session's): the same answer, no second query.
    const { found, cookies } = session ?? (await platform.sessions.current(http.headers));
    if (!found) return json(null, cookies);
    // The token is the cookie's value: it stays in the HttpOnly cookie, out of reach of scripts.
    const { token: _token, ...visibleSession } = found.session;
    return json({ session: visibleSession, user: found.user }, cookies);
  },
});

const signInError = nativeRoute({
  controller: 'auth',
  action: 'error',
  method: 'GET',
  path: '/api/auth/error',
  summary: 'Where a failed sign-in lands',
  description: 'Answers 401 with the reason the identity provider gave.',
  access: 'public',
  parameters: z.looseObject({ error: z.string().optional() }),
  responses: { '401': { description: 'Sign-in failed' } },
  hidden: true,
  async handler({ parameters }) {
    const code = parameters.error ?? '';
    throw new AppError(
      'UNAUTHENTICATED',
      `Sign-in failed (${/^[a-z0-9_]{1,64}$/i.test(code) ? code : 'unknown'}). Start again at /api/auth/signin/{provider}.`,
    );
  },
});

/** The sign-in rows, ahead of every module's rows in the route table. */
export const authRoutes: readonly NativeRouteSpec[] = [signIn, ...callbackRoutes, signOut, session, signInError];

export const authTag: RouteTag = { name: 'Auth', description: 'Sign-in with an external identity provider, sign-out, the current session' };
