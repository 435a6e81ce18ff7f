/**
 * The one Node HTTP server. It gives every request an id and the CORS policy,
 * serves the infrastructure paths (health, docs, GraphQL), and hands every
 * other path to the REST router, which owns the gate, the tenant guard and
 * the resources. The gate itself lives here, shared by REST, GraphQL and the
 * WebSocket upgrade.
 */
import { randomUUID, timingSafeEqual } from 'node:crypto';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { sendNodeResponse } from '@whatwg-node/server';
import type { Actor } from '../auth/actor.js';
import type { OriginPolicy } from '../auth/origins.js';
import { type ReadRouting, rememberWrite } from '../db/replicas.js';
import type { GraphQLContext } from '../graphql/context.js';
import { exposedErrorOf } from '../graphql/errors.js';
import { AppError } from '../lib/errors.js';
import type { IdleCollector } from '../lib/idle-collector.js';
import type { Logger } from '../lib/logger.js';
import { problemResult, type HttpResult } from '../lib/problem.js';
import { clientWentAway, readBody } from '../rest/body.js';
import type { RestApi } from '../rest/router.js';
import type { DocsHandler } from './docs.js';
import type { Gate, RequestState } from '../request/request.js';
import { graphqlRefusal, type GraphQLServer } from './graphql.js';
import type { Metrics } from './metrics.js';

/** What the server needs from the process (the App satisfies it). */

/** A path as the request log writes it: a calendar feed's path is its credential, so its token is left out. */
export function loggedPath(pathname: string): string {
  return pathname.startsWith('/calendar/') ? '/calendar/{token}' : pathname;
}

export interface HttpServerDependencies {
  log: Logger;
  origins: OriginPolicy;
  rest: Pick<RestApi, 'handle'>;
  docs: DocsHandler;
  graphql: GraphQLServer;
  health(): Promise<HttpResult>;
  gate: Gate;
  metrics: Metrics;
  mayReadMetrics(actor: Actor): Promise<boolean>;
  config: { metricsToken: string | undefined };
  contextFor(actor: Actor | null, state: RequestState): GraphQLContext;
  /** Remembers a caller's write for their next reads (read replicas only). */
  reads: Pick<ReadRouting, 'replicated' | 'wrote'>;
}

export const securityHeaders = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'content-security-policy': "frame-ancestors 'none'; base-uri 'none'; object-src 'none'",
  'x-frame-options': 'DENY',
  'cache-control': 'no-store',
} as const;

/** How long a client may take to send its request (README, "Configure it"). */
export interface HttpTimeouts {
  /** The whole request, headers and body: generous, so that large uploads on slow links still arrive. */
  requestTimeoutMs: number;
  headersTimeoutMs: number;
  /** A body that stops arriving for this long is answered 408 and its connection closed. */
  bodyIdleTimeoutMs: number;
}

const requestIdPattern = /^[A-Za-z0-9._:-]{1,128}$/;

function requestIdOf(request: IncomingMessage): string {
  const given = request.headers['x-request-id'];
  return typeof given === 'string' && requestIdPattern.test(given) ? given : randomUUID();
}

/**
 * What the gate wrote onto the request's state goes on every answer to it,
 * errors included: the RateLimit headers and the cookies it refreshed.
 */
function writeAdmission(response: ServerResponse, state: RequestState): void {
  for (const cookie of state.cookies ?? []) response.appendHeader('set-cookie', cookie);
  for (const [name, value] of Object.entries(state.headers ?? {})) response.setHeader(name, value);
}

/** Writes `result`, with the request's own headers (RateLimit-*) and cookies under its own. */
async function send(response: ServerResponse, result: HttpResult, state?: RequestState): Promise<void> {
  if (state) writeAdmission(response, state);
  for (const cookie of result.cookies ?? []) response.appendHeader('set-cookie', cookie);
  // The rest of a body we stopped reading (413, 408) must not be read as the next request.
  if (result.status === 413 || result.status === 408) response.setHeader('connection', 'close');
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

/** Whether the request carries `Bearer <token>`, compared in constant time. */
function bearerIs(request: IncomingMessage, token: string | undefined): boolean {
  if (!token) return false;
  const given = Buffer.from(request.headers.authorization ?? '');
  const wanted = Buffer.from(`Bearer ${token}`);
  return given.length === wanted.length && timingSafeEqual(given, wanted);
}

/** The metrics label of a request: its route template, a fixed path, or `unmatched` (never a raw path with ids). */
function routeOf(pathname: string, state: RequestState): string {
  if (state.route) return state.route;
  if (pathname === '/health' || pathname === '/graphql' || pathname === '/metrics') return pathname;
  if (isDocsPath(pathname)) return '/docs';
  return 'unmatched';
}

function announcesBody(request: IncomingMessage): boolean {
  const length = request.headers['content-length'];
  return request.headers['transfer-encoding'] !== undefined || (length !== undefined && length.trim() !== '0');
}

/**
 * Calls `onStall` once a request body has stopped arriving for `idleMs`.
 * Node's requestTimeout counts the whole request, which a 20 MiB upload on a
 * slow link must be allowed; this counts pauses, so a client sending a few
 * bytes of a long body and then nothing is cut off, while any upload that
 * keeps moving is not. It watches the socket rather than reading the body,
 * so REST, multipart and yoga read it as before. Bytes received but not yet
 * read by us are progress: then we are the slow side, not the client.
 */
function watchBodyIdle(request: IncomingMessage, idleMs: number, onStall: () => void): void {
  if (!announcesBody(request)) return;
  const socket = request.socket;
  let bytesSeen = socket.bytesRead;
  let lastProgress = performance.now();
  const stop = (): void => clearInterval(timer);
  const timer = setInterval(
    () => {
      if (request.complete || socket.destroyed) return stop();
      if (socket.bytesRead !== bytesSeen || request.readableLength > 0) {
        bytesSeen = socket.bytesRead;
        lastProgress = performance.now();
        return;
      }
      if (performance.now() - lastProgress >= idleMs) {
        stop();
        onStall();
      }
    },
    // A stall is noticed between idleMs and 1.25 idleMs after the last byte, never before.
    Math.max(10, Math.ceil(idleMs / 4)),
  );
  timer.unref();
  request.once('end', stop);
  request.once('close', stop);
}

/**
 * A request whose body has been read, as @whatwg-node/server takes one from
 * frameworks that read bodies first (Express's body parsers): the URL, method
 * and headers from the Node request, the body as given.
 */
function withReadBody(
  request: IncomingMessage,
  body: string | undefined,
): IncomingMessage | { req: IncomingMessage; method: string | undefined; headers: IncomingMessage['headers']; body: string } {
  return body === undefined ? request : { req: request, method: request.method, headers: request.headers, body };
}

const isDocsPath = (pathname: string): boolean =>
  pathname === '/docs' || pathname.startsWith('/docs/') || pathname === '/docs-json' || pathname === '/docs-yaml';

export function createHttpServer(app: HttpServerDependencies, timeouts: HttpTimeouts, idle?: Pick<IdleCollector, 'busy'>): http.Server {
  async function serveGraphQL(request: IncomingMessage, response: ServerResponse, url: URL, state: RequestState): Promise<void> {
    const method = request.method ?? 'GET';
    // The GraphiQL page is public; every operation needs credentials.
    const graphiqlPage = method === 'GET' && acceptsHtml(request) && !url.searchParams.has('query');
    if (!graphiqlPage) {
      const admitted = await app.gate.admit(request, state);
      if ('error' in admitted) return send(response, graphqlRefusal(admitted.error, state.requestId));
      // yoga writes the answer itself, over what is already set on the response.
      writeAdmission(response, state);
    }
    // The body is read here, by the reader and within the 1 MiB limit REST uses, and handed to yoga as text:
    // yoga would read it through a web stream piped from the Node request (a pipeline, an AbortController
    // and a DOMException per request: a fifth of what a GraphQL request allocated).
    let body: string | undefined;
    if (method !== 'GET' && method !== 'HEAD') {
      try {
        body = (await readBody(request))?.toString('utf8');
      } catch (error) {
        if (error instanceof AppError) return send(response, graphqlRefusal(error, state.requestId));
        throw error;
      }
    }
    const context = app.contextFor(state.actor, state);
    const answer = await app.graphql.handleNodeRequestAndResponse(withReadBody(request, body), response, context);
    if (context.writes.mutation) await rememberCallerWrite(response, state);
    await sendNodeResponse(answer, response, request, true);
  }

  async function serveMetrics(request: IncomingMessage, response: ServerResponse, state: RequestState): Promise<void> {
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      throw new AppError('METHOD_NOT_ALLOWED', `${request.method} is not allowed here; use GET`, { headers: { allow: 'GET, HEAD' } });
    }
    if (!bearerIs(request, app.config.metricsToken)) {
      const admitted = await app.gate.admit(request, state);
      if ('error' in admitted) return send(response, problemResult(admitted.error, state.requestId));
      if (!(await app.mayReadMetrics(admitted.actor))) {
        throw new AppError('FORBIDDEN', 'Metrics are for owners and admins, superadmins, API keys, or METRICS_TOKEN');
      }
    }
    return send(response, { status: 200, headers: { 'content-type': app.metrics.contentType }, body: await app.metrics.render() }, state);
  }

  async function dispatch(request: IncomingMessage, response: ServerResponse, url: URL, state: RequestState): Promise<void> {
    const { pathname } = url;
    const method = request.method ?? 'GET';

    // One CORS policy for every path: credentials only for BASE_URL and TRUSTED_ORIGINS.
    const preflight = app.origins.preflight(method, request.headers);
    if (preflight) return send(response, preflight);
    for (const [name, value] of Object.entries(app.origins.corsHeaders(request.headers))) response.setHeader(name, value);

    if (pathname === '/health') return send(response, await app.health());
    if (pathname === '/metrics') return serveMetrics(request, response, state);
    if (isDocsPath(pathname)) {
      const result = await app.docs.handle(pathname, request.headers['if-none-match']);
      return send(response, result ?? problemResult(new AppError('NOT_FOUND', `No document at ${pathname}`), state.requestId));
    }
    if (pathname === '/graphql') return serveGraphQL(request, response, url, state);
    const result = await app.rest.handle(request, url, state);
    if (app.reads.replicated && method !== 'GET' && method !== 'HEAD' && result.status < 400) await rememberCallerWrite(response, state);
    return send(response, result, state);
  }

  /**
   * With read replicas, a request that wrote remembers the primary's WAL
   * position for its caller before it answers, so that the caller's next
   * read, here, waits for a replica that has it; `Tally-Read-After` carries
   * it to reads the caller makes through another process. A failure here
   * only costs that guarantee: the write has committed and is answered.
   */
  async function rememberCallerWrite(response: ServerResponse, state: RequestState): Promise<void> {
    if (state.actor === null) return;
    const lsn = await rememberWrite(app.reads, { actor: state.actor }, state.log);
    if (lsn !== undefined) response.setHeader('tally-read-after', lsn);
  }

  // Slow or stalled clients must not hold sockets forever. Node enforces the
  // headers and request limits only when it checks its connections (every 30 s
  // by default, so a 10 s limit held sockets for up to 40 s): check often
  // enough that each limit holds to within a quarter of itself, at most 1 s.
  const connectionsCheckingInterval = Math.max(10, Math.min(1_000, Math.floor(timeouts.headersTimeoutMs / 4)));
  const limits = { requestTimeout: timeouts.requestTimeoutMs, headersTimeout: timeouts.headersTimeoutMs, connectionsCheckingInterval };
  const server = http.createServer(limits, async (request, response) => {
    const started = performance.now();
    const requestId = requestIdOf(request);
    const state: RequestState = { requestId, log: app.log.child({ requestId }), actor: null, clientAddress: app.gate.clientAddress(request) };
    response.setHeader('x-request-id', requestId);
    // Every answer: no type sniffing, no referrer, never framed (GraphiQL and the docs are HTML pages), and not
    // cached, since most carry a caller's data; the docs set their own caching.
    for (const [name, value] of Object.entries(securityHeaders)) response.setHeader(name, value);
    const url = new URL(request.url ?? '/', 'http://localhost');
    // Probes and scrapes leave next to no garbage: they do not keep a resting process from collecting its own.
    const done = url.pathname !== '/health' && url.pathname !== '/metrics' ? idle?.busy() : undefined;
    watchBodyIdle(request, timeouts.bodyIdleTimeoutMs, () => {
      state.log.debug({ method: request.method, path: url.pathname }, 'the request body stopped arriving');
      // Answered already (the rest of the body is being skipped): all that is left is to drop the connection.
      if (response.headersSent) {
        request.socket.destroy();
        return;
      }
      // Connection: close (send() adds it for 408): the pending body read then ends, and so does the handler.
      void send(response, problemResult(new AppError('REQUEST_TIMEOUT', `The request body stopped arriving for ${timeouts.bodyIdleTimeoutMs} ms`), requestId));
    });
    try {
      await dispatch(request, response, url, state);
    } catch (error) {
      if (clientWentAway(request)) {
        state.log.debug({ method: request.method, path: url.pathname }, 'the client went away before the request was read');
        response.destroy();
        return;
      }
      // The same normalising (and logging) as every other layer's: AppErrors stand, an outage is 503, the rest 500.
      const appError = exposedErrorOf(error, state.log);
      if (response.headersSent) {
        response.destroy();
      } else {
        await send(response, problemResult(appError, requestId), state);
      }
    } finally {
      done?.();
      const seconds = (performance.now() - started) / 1000;
      app.metrics.request(request.method ?? 'GET', routeOf(url.pathname, state), response.statusCode, seconds);
      const actor = state.actor;
      const entry = {
        method: request.method,
        path: loggedPath(url.pathname),
        status: response.statusCode,
        durationMs: Math.round((performance.now() - started) * 10) / 10,
        clientAddress: state.clientAddress,
        ...(actor ? { actor: actor.type === 'user' ? `user:${actor.userId}` : actor.type === 'api_key' ? `api_key:${actor.apiKeyId}` : 'system' } : {}),
      };
      if (url.pathname === '/health') state.log.debug(entry, 'request');
      else state.log.info(entry, 'request');
    }
  });
  server.keepAliveTimeout = 5_000;
  return server;
}
