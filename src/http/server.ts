/**
 * The one Node HTTP server. It gives every request an id and the CORS policy,
 * serves the infrastructure paths (health, docs, GraphQL), and hands every
 * other path to the REST router, which owns the gate, the tenant guard and
 * the resources. The gate itself lives here, shared by REST, GraphQL and the
 * WebSocket upgrade.
 */
import { randomUUID } from 'node:crypto';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { sendNodeResponse } from '@whatwg-node/server';
import type { Actor } from '../auth/actor.js';
import type { OriginPolicy } from '../auth/origins.js';
import type { GraphQLContext } from '../graphql/context.js';
import { AppError } from '../lib/errors.js';
import type { Logger } from '../lib/logger.js';
import { problemResult, type HttpResult } from '../lib/problem.js';
import type { GateResult, RequestState, RestRouter } from '../rest/router.js';
import type { DocsHandler } from './docs.js';
import type { GraphQLServer } from './graphql.js';

/** What the server needs from the process (the App satisfies it). */
export interface HttpServerDependencies {
  log: Logger;
  origins: OriginPolicy;
  rest: RestRouter;
  docs: DocsHandler;
  graphql: GraphQLServer;
  health(): Promise<HttpResult>;
  gate(request: IncomingMessage): Promise<GateResult>;
  contextFor(actor: Actor | null, state: RequestState): GraphQLContext;
}

const requestIdPattern = /^[A-Za-z0-9._:-]{1,128}$/;

function requestIdOf(request: IncomingMessage): string {
  const given = request.headers['x-request-id'];
  return typeof given === 'string' && requestIdPattern.test(given) ? given : randomUUID();
}

async function send(response: ServerResponse, result: HttpResult): Promise<void> {
  for (const cookie of result.cookies ?? []) response.appendHeader('set-cookie', cookie);
  // The rest of a body we stopped reading (413) must not be read as the next request.
  if (result.status === 413) response.setHeader('connection', 'close');
  response.writeHead(result.status, result.headers);
  if (result.body instanceof Readable) {
    // A client that goes away destroys the stream, which closes what it reads from.
    await pipeline(result.body, response).catch(() => result.body instanceof Readable && result.body.destroy());
    return;
  }
  response.end(result.body);
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

/** The client closed the connection before we finished reading its request: nothing to answer, nothing wrong here. */
function clientWentAway(request: IncomingMessage, error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: string; message?: string };
  return code === 'ECONNRESET' || message === 'aborted' || (request.destroyed && !request.complete);
}

const isDocsPath = (pathname: string): boolean =>
  pathname === '/docs' || pathname.startsWith('/docs/') || pathname === '/docs-json' || pathname === '/docs-yaml';

export function createHttpServer(app: HttpServerDependencies): http.Server {
  async function serveGraphQL(request: IncomingMessage, response: ServerResponse, url: URL, state: RequestState): Promise<void> {
    const method = request.method ?? 'GET';
    // The GraphiQL page is public; every operation needs credentials.
    const graphiqlPage = method === 'GET' && acceptsHtml(request) && !url.searchParams.has('query');
    if (!graphiqlPage) {
      const admitted = await app.gate(request);
      if ('error' in admitted) return send(response, graphqlRefusal(admitted.error, state.requestId));
      for (const cookie of admitted.cookies) response.appendHeader('set-cookie', cookie);
      state.actor = admitted.actor;
      state.knownTenant = admitted.tenant;
    }
    // yoga reads the body itself, within the same 1 MiB limit, and writes the answer (streams included).
    const answer = await app.graphql.handleNodeRequestAndResponse(request, response, app.contextFor(state.actor, state));
    await sendNodeResponse(answer, response, request, true);
  }

  async function dispatch(request: IncomingMessage, response: ServerResponse, url: URL, state: RequestState): Promise<void> {
    const { pathname } = url;
    const method = request.method ?? 'GET';

    // One CORS policy for every path: credentials only for BASE_URL and TRUSTED_ORIGINS.
    const preflight = app.origins.preflight(method, request.headers);
    if (preflight) return send(response, preflight);
    for (const [name, value] of Object.entries(app.origins.corsHeaders(request.headers))) response.setHeader(name, value);

    if (pathname === '/health') return send(response, await app.health());
    if (isDocsPath(pathname)) {
      const result = await app.docs.handle(pathname, request.headers['if-none-match']);
      return send(response, result ?? problemResult(new AppError('NOT_FOUND', `No document at ${pathname}`), state.requestId));
    }
    if (pathname === '/graphql') return serveGraphQL(request, response, url, state);
    return send(response, await app.rest.handle(request, url, state));
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
      if (clientWentAway(request, error)) {
        state.log.debug({ method: request.method, path: url.pathname }, 'the client went away before the request was read');
        response.destroy();
        return;
      }
      const appError =
        error instanceof AppError ? error : new AppError('INTERNAL', 'Something went wrong on our side; it has been logged');
      if (!(error instanceof AppError)) state.log.error({ err: error }, 'unhandled error');
      if (response.headersSent) {
        response.destroy();
      } else {
        await send(response, problemResult(appError, requestId));
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
