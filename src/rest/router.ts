/**
 * The REST layer: sofa-api's router (fets) serves every row. GraphQL-backed
 * rows are sofa's own routes (sofa-engine.ts); native rows (uploads,
 * downloads, sign-in, 202s) are routes on the same router; a last route
 * answers 404, or 405 with Allow. For every request, in this order:
 *
 * 1. the path is decoded (400 for bad percent-encoding, 404 with a NUL);
 * 2. the authentication gate, unless the path is under a public prefix
 *    (sign-in, whose rows spend their own budget): an unknown path needs
 *    credentials too;
 * 3. the router matches the method and path;
 * 4. the row's path and query parameters are validated, then the tenant guard
 *    and the row's permission (`permittedAccess`, the check GraphQL's scopes
 *    make), then the body within its limit (permission before body), then
 *    the field runs (through sofa) or the handler does.
 *
 * A POST or PATCH with `Idempotency-Key` (src/request/idempotency.ts) claims its
 * key once its body is read, before the field or the handler changes
 * anything (an upload: once the file has been read, by its SHA-256 and the
 * fields); a stored answer stops the row and is sent instead, and the answer
 * of a request that ran is stored when it is done.
 *
 * Every refusal is RFC 9457 problem+json.
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { pipeline, Transform } from 'node:stream';
import { Request } from '@whatwg-node/fetch';
import { Response } from 'fets';
import type { GraphQLSchema } from 'graphql';
import type { Actor } from '../auth/actor.js';
import { requireSuperadmin } from '../auth/actor.js';
import type { SessionLookup } from '../auth/sessions.js';
import type { TenantAccess } from '../auth/tenant-access.js';
import { permittedAccess, type GraphQLContext } from '../graphql/context.js';
import { exposedErrorOf } from '../graphql/errors.js';
import { PreparedInvocation } from '../graphql/operations.js';
import { parseInput } from '../lib/dto.js';
import { AppError } from '../lib/errors.js';
import type { Logger } from '../lib/logger.js';
import { problemResult, type HttpResult } from '../lib/problem.js';
import { clientWentAway, readBody, readMultipart } from './body.js';
import { allowedMethods, assertReachable, byPrecedence, matchesPath, routerPathOf, type CompiledNativeRoute, type CompiledRoute } from './compile.js';
import { createRecordRenderer } from './records.js';
import { jsonBodyOf, pathSegments, refuseBody, routeParameters } from './request-input.js';
import type { NativeRequest, Platform, TaggedRouteSpec } from './route.js';
import { canonicalJson, requestFingerprint, type Idempotency, type IdempotentRequest } from '../request/idempotency.js';
import type { Gate, RequestState } from '../request/request.js';
import { compileRestApi } from './rest-api.js';
import { createSofaEngine, sofaRegistrationOrder, type PreparedExecution } from './sofa-engine.js';

export interface RestApiOptions {
  /** The whole GraphQL schema; REST serves its flat resources. */
  schema: GraphQLSchema;
  table: readonly TaggedRouteSpec[];
  platform: Platform;
  /** The one gate (src/http/gate.ts): REST admits through it like every entry point. */
  gate: Pick<Gate, 'admit' | 'admitPublic'>;
  contextFor(actor: Actor | null, state: RequestState): GraphQLContext;
  /** Paths under these prefixes are public (sign-in) besides the public rows': an unknown one is a 404 without credentials. */
  publicPrefixes: readonly string[];
  log: Logger;
  /** Idempotency-Key on POST and PATCH; without it the header is ignored. */
  idempotency?: Idempotency;
}

export interface RestApi {
  routes: CompiledRoute[];
  /** The schema as REST sees it: resources with their own fields, no relations. */
  restSchema: GraphQLSchema;
  /** Every route the router serves, as it registered them: sofa's, the native rows', and the fallback. */
  servedRoutes(): { method: string | undefined; path: string }[];
  handle(request: IncomingMessage, url: URL, state: RequestState): Promise<HttpResult>;
}

/** One request on its way through the router: fets's server context, and sofa's. */
interface RestCall {
  http: IncomingMessage;
  url: URL;
  state: RequestState;
  /**
   * What a native row or the fallback answered (the server writes it: streams, cookies). A holder: fets
   * hands handlers a copy of the call, so a field set on the call itself would not come back.
   */
  answer: {
    result?: HttpResult;
    /** The stored answer of the request's Idempotency-Key: sent instead of whatever the row answered. */
    replay?: HttpResult;
  };
  /** Set for a POST or PATCH with Idempotency-Key from a caller. */
  idempotent: IdempotentRequest | undefined;
}

/**
 * Stops a row whose Idempotency-Key has a stored answer: an AppError, so that
 * every layer passes it on without logging it, while handle() sends the
 * stored answer (`call.answer.replay`) in place of the problem it becomes.
 */
class AnsweredBefore extends AppError {
  constructor() {
    super('BAD_REQUEST', 'Answered before: the stored answer of this Idempotency-Key is sent instead');
  }
}

const hasBody = (method: string): boolean => method !== 'GET' && method !== 'HEAD';
const jsonType = 'application/json; charset=utf-8';

/** Compiles the rows and builds the router once per process. */
export function createRestApi({ schema, table, platform, gate, contextFor, publicPrefixes, log, idempotency }: RestApiOptions): RestApi {
  const { routes, restSchema } = compileRestApi(schema, table);
  const records = createRecordRenderer(restSchema);
  const publicRoutes = routes.filter((route) => route.access.kind === 'public');
  /** A path of a public row, or under a public prefix: the gate does not ask for credentials there. */
  const isPublicPath = (pathname: string, parts: readonly string[]): boolean =>
    publicPrefixes.some((prefix) => pathname.startsWith(prefix)) || publicRoutes.some((route) => matchesPath(route.segments, parts));

  /** What the caller may see of an error; a client that went away is nobody's error. */
  function expose(error: unknown, call: RestCall | undefined): AppError {
    if (call && clientWentAway(call.http)) {
      call.state.log.debug({ method: call.http.method, path: call.url.pathname }, 'the client went away before the request was read');
      return new AppError('BAD_REQUEST', 'The client went away');
    }
    return exposedErrorOf(error, call?.state.log ?? log);
  }

  const problemOf = (error: AppError, call: RestCall | undefined): HttpResult => problemResult(error, call?.state.requestId ?? '');

  /** The tenant guard and the row's permission: 404 for another tenant, 403 without the grant. */
  async function admit(route: CompiledRoute, parameters: Record<string, unknown>, context: GraphQLContext): Promise<TenantAccess | undefined> {
    switch (route.access.kind) {
      case 'public':
      case 'authenticated':
        return undefined;
      case 'superadmin':
        requireSuperadmin(context.actor as Actor);
        return undefined;
      case 'tenant':
        return permittedAccess(context, String(parameters.tenantId), route.access.permission);
    }
  }

  /** Claims the call's Idempotency-Key once what stands for its body is known; a stored answer stops the row. */
  async function claimIdempotencyKey(call: RestCall, bodyParts: readonly (string | Buffer | undefined)[]): Promise<void> {
    if (!call.idempotent) return;
    const replay = await call.idempotent.claim(requestFingerprint(call.http.method ?? 'POST', call.url, bodyParts));
    if (!replay) return;
    call.answer.replay = replay;
    throw new AnsweredBefore();
  }

  const { router } = createSofaEngine<RestCall>({
    restSchema,
    routes,
    async prepare(route, call, pathValues): Promise<PreparedExecution> {
      call.state.route = route.path;
      const parameters = routeParameters(route, call.url, pathValues);
      const context = contextFor(call.state.actor, call.state);
      // Before the body is read; the field's scope asks again, answered from the request's memo.
      await admit(route, parameters.parsed, context);
      const raw = hasBody(call.http.method ?? 'GET') ? await readBody(call.http) : undefined;
      await claimIdempotencyKey(call, [raw]);
      // GraphQL coerces the JSON the client sent; the resolver gets what zod made of it.
      if (!route.body) {
        refuseBody(route, raw);
        return { context, variables: parameters.raw, invocation: new PreparedInvocation(route.field, parameters.parsed) };
      }
      const json = jsonBodyOf(call.http, raw, route.body);
      const input = { ...parameters.parsed, input: parseInput(route.body.schema, json) };
      return { context, variables: { ...parameters.raw, input: json }, invocation: new PreparedInvocation(route.field, input) };
    },
    expose,
    problem(error, call) {
      const { status, headers, body } = problemOf(error, call);
      return { status, headers, body: String(body) };
    },
  });

  async function runNative(route: CompiledNativeRoute, call: RestCall, pathValues: Record<string, string>): Promise<HttpResult> {
    const { http, url, state } = call;
    state.route = route.path;
    let session: SessionLookup | undefined;
    if (route.access.kind === 'public') {
      const admitted = await gate.admitPublic(http, route.publicBudget ?? 'caller');
      if ('error' in admitted) return problemOf(admitted.error, call);
      state.actor = admitted.actor;
      state.headers = admitted.headers;
      session = admitted.session;
    }
    const parameters = routeParameters(route, url, pathValues).parsed;
    const context = contextFor(state.actor, state);
    const access = await admit(route, parameters, context);
    const bodySpec = route.body;
    let body: unknown;
    let rawBody: Buffer | undefined;
    if (bodySpec?.kind === 'json') {
      const raw = await readBody(http);
      await claimIdempotencyKey(call, [raw]);
      body = parseInput(bodySpec.dto, jsonBodyOf(http, raw, { name: 'the request body', schema: bodySpec.dto }));
    } else if (bodySpec?.kind === 'raw') {
      rawBody = hasBody(http.method ?? 'GET') ? await readBody(http) : undefined;
      await claimIdempotencyKey(call, [rawBody]);
    } else if (bodySpec === undefined && hasBody(http.method ?? 'GET')) {
      const raw = await readBody(http);
      await claimIdempotencyKey(call, [raw]);
      refuseBody(route, raw);
    }
    const nativeRequest: NativeRequest = {
      http,
      url,
      clientAddress: state.clientAddress,
      session,
      parameters,
      body,
      rawBody,
      async readUpload(onFile, release) {
        if (bodySpec?.kind !== 'multipart') throw new Error(`${route.operationId} does not take an upload`);
        // An idempotent upload is the same upload by its file's SHA-256, hashed as it streams to the handler.
        let fileDigest: string | undefined;
        const readFile: typeof onFile = call.idempotent
          ? (file) => {
              const hash = createHash('sha256');
              const hashing = new Transform({
                transform(chunk: Buffer, _encoding, done) {
                  hash.update(chunk);
                  done(null, chunk);
                },
                flush(done) {
                  fileDigest = hash.digest('hex');
                  done();
                },
              });
              // A failing upload (over the limit, cut off) destroys the file stream, and so the handler's.
              pipeline(file.stream, hashing, () => undefined);
              return onFile({ ...file, stream: hashing });
            }
          : onFile;
        const upload = await readMultipart(http, { fileField: bodySpec.fileField, onFile: readFile, release });
        try {
          await claimIdempotencyKey(call, [
            'multipart/form-data',
            canonicalJson(upload.fields),
            upload.file === undefined ? undefined : (fileDigest ?? 'unread'),
          ]);
          return { ...upload, fields: parseInput(bodySpec.fields, upload.fields) as Record<string, string> };
        } catch (error) {
          if (release && upload.file !== undefined) await release(upload.file);
          throw error;
        }
      },
      async respond(typeName, record, status) {
        return { status, headers: { 'content-type': jsonType }, body: await records.render(typeName, record, context) };
      },
      visible(typeName) {
        if (!access) throw new Error(`${route.operationId} has no tenant permission: nothing decides what its caller sees`);
        return records.visible(typeName, access);
      },
      context,
      access,
      platform,
    };
    return route.handler(nativeRequest);
  }

  /** fets needs a Response to stop looking; the answer itself is the call's, written by the server. */
  const answered = (call: RestCall, result: HttpResult) => {
    call.answer.result = result;
    return new Response(null, { status: 204 });
  };
  const safely = async (call: RestCall, work: () => Promise<HttpResult>): Promise<HttpResult> => {
    try {
      return await work();
    } catch (error) {
      return problemOf(expose(error, call), call);
    }
  };

  const natives = byPrecedence(routes.filter((route): route is CompiledNativeRoute => route.kind === 'native'));
  for (const route of natives) {
    router.route({
      method: route.method,
      path: routerPathOf(route),
      handler: async (request, call: RestCall) => {
        const params = request.params as Record<string, string | undefined>;
        const pathValues = Object.fromEntries(Object.keys(route.pathArguments).map((name) => [name, String(params[name])]));
        return answered(call, await safely(call, () => runNative(route, call, pathValues)));
      },
    });
  }
  // Whatever no row took: 404, or 405 naming the methods the path takes.
  router.route({
    path: '/*',
    handler: async (_request, call: RestCall) =>
      answered(
        call,
        await safely(call, async () => {
          const { http, url, state } = call;
          const method = http.method ?? 'GET';
          const parts = pathSegments(url.pathname);
          if (isPublicPath(url.pathname, parts)) {
            const admitted = await gate.admitPublic(http, 'caller');
            if ('error' in admitted) return problemOf(admitted.error, call);
            state.headers = admitted.headers;
          }
          const allowed = allowedMethods(routes, parts);
          if (allowed.length === 0) throw new AppError('NOT_FOUND', `No route ${method} ${url.pathname}; see /docs`);
          throw new AppError('METHOD_NOT_ALLOWED', `${method} is not allowed here; use ${allowed.join(', ')}`, { headers: { allow: allowed.join(', ') } });
        }),
      ),
  });
  // The order the router tries routes in must reach every row (`/users/me` before `/users/{id}`).
  assertReachable([...sofaRegistrationOrder(routes), ...natives]);
  // Read once: the router is a Proxy that binds a fresh function on every read of a method.
  const handleRouted = router.handleRequest;

  async function resultOf(response: Response): Promise<HttpResult> {
    const headers: Record<string, string> = {};
    response.headers.forEach((value, name) => {
      headers[name] = value;
    });
    if (response.status === 204) return { status: 204, headers: {} };
    return { status: response.status, headers, body: await response.text() };
  }

  return {
    routes,
    restSchema,
    servedRoutes: () =>
      (router as unknown as { __routes: { method?: string; path: string }[] }).__routes.map((route) => ({ method: route.method, path: route.path })),
    async handle(request, url, state) {
      let call: RestCall | undefined;
      let result: HttpResult | undefined;
      try {
        const parts = pathSegments(url.pathname);
        call = { http: request, url, state, answer: {}, idempotent: undefined };
        if (!isPublicPath(url.pathname, parts)) {
          const admitted = await gate.admit(request, state);
          if ('error' in admitted) return problemResult(admitted.error, state.requestId);
          // A public path's caller (sign-in) is not idempotent: it may have none.
          call.idempotent = idempotency?.requestOf(request.method ?? 'GET', request.headers, state.actor, state.log);
        }
        // The router sees the method and the normalised path only: the query string and the body are read by the row.
        const routed = new Request(`http://localhost/${parts.map(encodeURIComponent).join('/')}`, { method: request.method ?? 'GET' });
        // @whatwg-node/server copies every own property of the server context, with its descriptor, into a
        // fresh object per request; a context whose properties are inherited leaves that copy empty (the
        // handlers read them through the prototype, and `call.answer` stays the one object both sides see).
        const response = (await handleRouted(routed, Object.create(call) as RestCall)) as Response;
        result = call.answer.replay ?? call.answer.result ?? (await resultOf(response));
        return result;
      } catch (error) {
        if (error instanceof AppError) return problemResult(error, state.requestId);
        throw error;
      } finally {
        // An error nobody saw (the client left) is not kept as the key's answer: a retry runs again.
        if (call?.idempotent) await call.idempotent.settle(result && result.status >= 400 && clientWentAway(request) ? undefined : result);
      }
    },
  };
}
