/**
 * The one Node HTTP server. It decides what is public (health, docs, the
 * GraphiQL page, sign-in), runs the authentication gate for everything else,
 * and hands the request to GraphQL (yoga) or REST (route table + sofa).
 */
import { randomUUID } from 'node:crypto';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { App } from '../app.js';
import type { Actor } from '../auth/actor.js';
import { AppError } from '../lib/errors.js';
import type { Logger } from '../lib/logger.js';
import { readBody } from './body.js';
import { problemResult, type HttpResult } from './problem.js';

const requestIdPattern = /^[A-Za-z0-9._:-]{1,128}$/;

function requestIdOf(request: IncomingMessage): string {
  const given = request.headers['x-request-id'];
  return typeof given === 'string' && requestIdPattern.test(given) ? given : randomUUID();
}

function send(response: ServerResponse, result: HttpResult): void {
  for (const cookie of result.cookies ?? []) response.appendHeader('set-cookie', cookie);
  response.writeHead(result.status, result.headers);
  response.end(result.body);
}

async function sendFetchResponse(response: ServerResponse, fetchResponse: Response): Promise<void> {
  const headers: Record<string, string | string[]> = {};
  fetchResponse.headers.forEach((value, name) => {
    headers[name] = value;
  });
  const cookies = fetchResponse.headers.getSetCookie();
  if (cookies.length > 0) headers['set-cookie'] = cookies;
  response.writeHead(fetchResponse.status, headers);
  if (!fetchResponse.body) {
    response.end();
    return;
  }
  // Streamed, so that GraphQL responses over server-sent events flow as they are produced.
  // yoga answers with its own Response ponyfill, so only the reader interface is assumed.
  const reader = fetchResponse.body.getReader();
  const cancel = (): void => {
    void reader.cancel().catch(() => undefined);
  };
  response.once('close', cancel);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (!response.write(value)) await new Promise((resolve) => response.once('drain', resolve));
    }
  } finally {
    response.off('close', cancel);
  }
  response.end();
}

function headersOf(request: IncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) headers.append(name, item);
  }
  return headers;
}

function acceptsHtml(request: IncomingMessage): boolean {
  return (request.headers.accept ?? '').includes('text/html');
}

/** A refusal before GraphQL runs (401, 403), in the shape GraphQL clients read. */
function graphqlRefusal(error: AppError, requestId: string): HttpResult {
  return {
    status: error.status,
    headers: { 'content-type': 'application/json; charset=utf-8', ...(error.headers ?? {}) },
    body: JSON.stringify({ errors: [{ message: error.message, extensions: { code: error.code, requestId } }] }),
  };
}

interface RequestState {
  requestId: string;
  log: Logger;
  actor: Actor | null;
}

export function createHttpServer(app: App): http.Server {
  /** The gate: an actor, or why not. Cookie-authenticated writes must come from a trusted origin. */
  async function authenticate(request: IncomingMessage, response: ServerResponse, state: RequestState): Promise<AppError | undefined> {
    const result = await app.authenticator.authenticate(request.headers);
    if (result.actor === null) return result.error;
    if (result.credential === 'session') {
      const refusal = app.origins.refusal(request.method ?? 'GET', request.headers);
      if (refusal) return refusal;
    }
    for (const cookie of result.cookies) response.appendHeader('set-cookie', cookie);
    state.actor = result.actor;
    return undefined;
  }

  async function dispatch(request: IncomingMessage, response: ServerResponse, url: URL, state: RequestState) {
    const { pathname } = url;
    const method = request.method ?? 'GET';

    const preflight = app.origins.preflight(method, request.headers);
    if (preflight) return send(response, preflight);
    for (const [name, value] of Object.entries(app.origins.corsHeaders(request.headers))) response.setHeader(name, value);

    if (pathname === '/health') return send(response, await app.health());

    if (pathname.startsWith('/api/auth/')) {
      const body = method === 'POST' ? await readBody(request) : undefined;
      return send(response, await app.authRoutes.handle(request, url, body));
    }

    if (pathname === '/docs' || pathname.startsWith('/docs/') || pathname === '/docs-json' || pathname === '/docs-yaml') {
      const result = app.docs.handle(pathname, request.headers['if-none-match']);
      return send(response, result ?? problemResult(new AppError('NOT_FOUND', `No document at ${pathname}`), state.requestId));
    }

    if (pathname === '/graphql') {
      // The GraphiQL page is public; every operation needs credentials.
      const graphiqlPage = method === 'GET' && acceptsHtml(request) && !url.searchParams.has('query');
      if (!graphiqlPage) {
        const refusal = await authenticate(request, response, state);
        if (refusal) return send(response, graphqlRefusal(refusal, state.requestId));
      }
      const body = method === 'GET' || method === 'HEAD' ? undefined : await readBody(request);
      const fetchRequest = new Request(`http://localhost${request.url ?? '/graphql'}`, {
        method,
        headers: headersOf(request),
        ...(body === undefined ? {} : { body: new Uint8Array(body) }),
      });
      const context = app.contextFor(state.actor, state.requestId, state.log);
      return sendFetchResponse(response, await app.graphql.fetch(fetchRequest, context));
    }

    const refusal = await authenticate(request, response, state);
    if (refusal) return send(response, problemResult(refusal, state.requestId));
    const body = method === 'GET' || method === 'HEAD' ? undefined : await readBody(request);
    const result = await app.rest.handle(
      { method, url, contentType: request.headers['content-type'], body },
      app.contextFor(state.actor, state.requestId, state.log),
    );
    return send(response, result);
  }

  const server = http.createServer(async (request, response) => {
    const started = performance.now();
    const requestId = requestIdOf(request);
    const state: RequestState = { requestId, log: app.log.child({ requestId }), actor: null };
    response.setHeader('x-request-id', requestId);
    const url = new URL(request.url ?? '/', 'http://localhost');
    try {
      await dispatch(request, response, url, state);
    } catch (error) {
      const appError =
        error instanceof AppError ? error : new AppError('INTERNAL', 'Something went wrong on our side; it has been logged');
      if (!(error instanceof AppError)) state.log.error({ err: error }, 'unhandled error');
      if (response.headersSent) {
        response.destroy();
      } else {
        // The rest of a body we stopped reading (413) must not be read as the next request.
        if (appError.code === 'PAYLOAD_TOO_LARGE') response.setHeader('connection', 'close');
        send(response, problemResult(appError, requestId));
      }
    } finally {
      const actor = state.actor;
      const entry = {
        method: request.method,
        path: url.pathname,
        status: response.statusCode,
        durationMs: Math.round((performance.now() - started) * 10) / 10,
        ...(actor ? { actor: actor.type === 'user' ? `user:${actor.userId}` : actor.type === 'api_key' ? `api_key:${actor.apiKeyId}` : 'system' } : {}),
      };
      if (url.pathname === '/health') state.log.debug(entry, 'request');
      else state.log.info(entry, 'request');
    }
  });
  // Slow or stalled clients must not hold sockets forever.
  server.requestTimeout = 60_000;
  server.headersTimeout = 20_000;
  server.keepAliveTimeout = 5_000;
  return server;
}

