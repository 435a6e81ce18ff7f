/**
 * The REST layer: one request, from the server's hand-over to its answer, is
 * `handle()` below, in this order:
 *
 * 1. the path is decoded (400 for bad percent-encoding, 404 with a NUL) and
 *    the route table chooses the row for the method and path: the most
 *    specific template (`/users/me` over `/users/{id}`);
 * 2. the gate admits the caller: on a public path (sign-in, a public row) it
 *    counts the request against its budget; on any other it needs
 *    credentials, so an unknown path is a 401 before it is a 404;
 * 3. no row: 404, or 405 naming the methods the path takes;
 * 4. the row's path and query parameters are validated, then the tenant
 *    guard and the row's permission (`permittedAccess`, the check GraphQL's
 *    scopes make), then the body is read within its limit (permission before
 *    body; an upload is staged as it streams in);
 * 5. a POST or PATCH with `Idempotency-Key` (src/request/idempotency.ts)
 *    claims its key with what stands for its body: a stored answer is sent
 *    instead, and nothing runs;
 * 6. the body is validated against the row's DTO, and the row runs: a
 *    GraphQL-backed row through sofa's router (sofa-engine.ts), a native row
 *    (uploads, downloads, sign-in, 202s) by its own handler;
 * 7. the answer becomes the key's stored answer, when there is a key.
 *
 * Every refusal is RFC 9457 problem+json.
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { pipeline, Transform } from 'node:stream';
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
import { canonicalJson, requestFingerprint, type Idempotency, type IdempotentRequest } from '../request/idempotency.js';
import type { Gate, RequestState } from '../request/request.js';
import { clientWentAway, readBody, readMultipart, type IncomingFile, type MultipartResult } from './body.js';
import {
  allowedMethods,
  createRouteMatcher,
  matchesPath,
  routerPathOf,
  type CompiledGraphQLRoute,
  type CompiledNativeRoute,
  type CompiledRoute,
} from './compile.js';
import { createRecordRenderer } from './records.js';
import { jsonBodyOf, pathSegments, refuseBody, routeParameters, type RouteParameters } from './request-input.js';
import type { NativeRequest, Platform, TaggedRouteSpec } from './route.js';
import { compileRestApi } from './rest-api.js';
import { createSofaEngine } from './sofa-engine.js';

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
  /** Every route served: those sofa's router registered (the GraphQL-backed rows), then the native rows. */
  servedRoutes(): { method: string; path: string }[];
  handle(request: IncomingMessage, url: URL, state: RequestState): Promise<HttpResult>;
}

/** One request on its way through the adapter. */
interface RestCall {
  http: IncomingMessage;
  url: URL;
  state: RequestState;
}

/** What stands for a request's body once read: its bytes, or a multipart form whose file has been staged. */
interface ReadBody {
  raw: Buffer | undefined;
  form?: MultipartResult<unknown> & { fileDigest: string | undefined };
}

const hasBody = (method: string): boolean => method !== 'GET' && method !== 'HEAD';
const jsonType = 'application/json; charset=utf-8';

/** Compiles the rows and builds the router once per process. */
export function createRestApi({ schema, table, platform, gate, contextFor, publicPrefixes, log, idempotency }: RestApiOptions): RestApi {
  const { routes, restSchema } = compileRestApi(schema, table);
  const records = createRecordRenderer(restSchema);
  const matchRoute = createRouteMatcher(routes);
  const natives = routes.filter((route): route is CompiledNativeRoute => route.kind === 'native');
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
  const problemOf = (error: AppError, call: RestCall | undefined): HttpResult & { body: string } => {
    const { status, headers, body } = problemResult(error, call?.state.requestId ?? '');
    return { status, headers, body: String(body) };
  };

  const sofa = createSofaEngine<RestCall>({
    restSchema,
    routes,
    // The error with the highest status decides the answer.
    problem: (errors, call) =>
      problemOf(
        errors.map((error) => expose(error, call)).reduce((worst, error) => (error.status > worst.status ? error : worst)),
        call,
      ),
  });

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

  /** The body within its limit: its bytes, or an upload staged by the row as it streams in (hashed when a key needs it). */
  async function readBodyOf(route: CompiledRoute, http: IncomingMessage, context: GraphQLContext, fingerprinted: boolean): Promise<ReadBody> {
    const spec = route.kind === 'native' ? route.body : undefined;
    if (spec?.kind !== 'multipart') return { raw: hasBody(route.method) ? await readBody(http) : undefined };
    let fileDigest: string | undefined;
    const hashed = (file: IncomingFile): IncomingFile => {
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
      // A failing upload (over the limit, cut off) destroys the file stream, and so the row's.
      pipeline(file.stream, hashing, () => undefined);
      return { ...file, stream: hashing };
    };
    // An idempotent upload is the same upload by its file's SHA-256.
    const form = await readMultipart(http, {
      fileField: spec.fileField,
      onFile: (file) => spec.stage(fingerprinted ? hashed(file) : file, context),
      release: spec.discard,
    });
    return { raw: undefined, form: { ...form, fileDigest } };
  }

  /** Claims the key with what stands for the body; the stored answer of the same request, if it was answered before. */
  function claimKey(idempotent: IdempotentRequest, { http, url }: RestCall, { raw, form }: ReadBody): Promise<HttpResult | undefined> {
    const bodyParts = form ? ['multipart/form-data', canonicalJson(form.fields), form.file === undefined ? undefined : (form.fileDigest ?? 'unread')] : [raw];
    return idempotent.claim(requestFingerprint(http.method ?? 'POST', url, bodyParts));
  }

  /** Gives back what the row staged of an upload that will not reach its handler. */
  async function discardUpload(route: CompiledRoute, body: ReadBody | undefined): Promise<void> {
    const spec = route.kind === 'native' ? route.body : undefined;
    if (spec?.kind === 'multipart' && spec.discard && body?.form?.file !== undefined) await spec.discard(body.form.file);
  }

  /** A GraphQL-backed row: its body as the field's `input` DTO, run by sofa's router with the validated input. */
  function runField(
    route: CompiledGraphQLRoute,
    call: RestCall,
    parts: readonly string[],
    parameters: RouteParameters,
    context: GraphQLContext,
    raw: Buffer | undefined,
  ) {
    let input = parameters.parsed;
    let variables = parameters.raw;
    const leftOut = route.body?.optional === true && (raw?.toString('utf8').trim() ?? '') === '';
    if (route.body && !leftOut) {
      const json = jsonBodyOf(call.http, raw, route.body);
      // GraphQL coerces the JSON the client sent; the resolver gets what zod made of it.
      input = { ...parameters.parsed, input: parseInput(route.body.schema, json) };
      variables = { ...parameters.raw, input: json };
    } else if (!route.body) {
      refuseBody(route, raw);
    }
    // sofa's router matches the path as the table did: its decoded segments, encoded again.
    const path = `/${parts.map(encodeURIComponent).join('/')}`;
    return sofa.run({ route, path, context, variables, invocation: new PreparedInvocation(route.field, input), call });
  }

  /** What a native row's handler is given: its body as its kind says, validated. */
  function nativeRequestOf(
    route: CompiledNativeRoute,
    { http, url, state }: RestCall,
    parameters: RouteParameters,
    context: GraphQLContext,
    access: TenantAccess | undefined,
    session: SessionLookup | undefined,
    { raw, form }: ReadBody,
  ): NativeRequest {
    const spec = route.body;
    if (spec === undefined) refuseBody(route, raw);
    return {
      http,
      url,
      clientAddress: state.clientAddress,
      session,
      parameters: parameters.parsed,
      body: spec?.kind === 'json' ? parseInput(spec.dto, jsonBodyOf(http, raw, { name: 'the request body', schema: spec.dto })) : undefined,
      rawBody: spec?.kind === 'raw' ? raw : undefined,
      upload: spec?.kind === 'multipart' && form ? { file: form.file, fields: parseInput(spec.fields, form.fields) as Record<string, string> } : undefined,
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
  }

  /** No row takes this method at this path: 404, or 405 naming the methods the path takes. */
  function unrouted(method: string, pathname: string, parts: readonly string[]): AppError {
    const allowed = allowedMethods(routes, parts);
    if (allowed.length === 0) return new AppError('NOT_FOUND', `No route ${method} ${pathname}; see /docs`);
    return new AppError('METHOD_NOT_ALLOWED', `${method} is not allowed here; use ${allowed.join(', ')}`, { headers: { allow: allowed.join(', ') } });
  }

  return {
    routes,
    restSchema,
    servedRoutes: () => [...sofa.registered, ...natives.map((route) => ({ method: route.method, path: routerPathOf(route) }))],

    async handle(http, url, state) {
      const call: RestCall = { http, url, state };
      const method = http.method ?? 'GET';
      let idempotent: IdempotentRequest | undefined;
      let route: CompiledRoute | undefined;
      let body: ReadBody | undefined;
      /** Set once a native row's handler has the request: what it staged of an upload is the handler's from then on. */
      let handedOver = false;
      let answer: HttpResult | undefined;
      try {
        // 1. The path, and the row the table chooses for it.
        const parts = pathSegments(url.pathname);
        const matched = matchRoute(method, parts);
        // 2. The gate.
        let session: SessionLookup | undefined;
        if (isPublicPath(url.pathname, parts)) {
          const row = matched?.route;
          const admitted = await gate.admitPublic(http, row?.kind === 'native' && row.access.kind === 'public' ? (row.publicBudget ?? 'caller') : 'caller');
          if ('error' in admitted) return (answer = problemOf(admitted.error, call));
          state.actor = admitted.actor;
          state.headers = admitted.headers;
          session = admitted.session;
        } else {
          const admitted = await gate.admit(http, state);
          if ('error' in admitted) return (answer = problemOf(admitted.error, call));
          // A public path's caller (sign-in) is not idempotent: it may have none.
          idempotent = idempotency?.requestOf(method, http.headers, state.actor, state.log);
        }
        // 3. No row.
        if (!matched) throw unrouted(method, url.pathname, parts);
        route = matched.route;
        state.route = route.path;
        // 4. Parameters, tenant guard and permission, then the body.
        const parameters = routeParameters(route, url, matched.pathValues);
        const context = contextFor(state.actor, state);
        const access = await admit(route, parameters.parsed, context);
        body = await readBodyOf(route, http, context, idempotent !== undefined);
        // 5. The key: a request answered before gets that answer again.
        const stored = idempotent ? await claimKey(idempotent, call, body) : undefined;
        if (stored) return (answer = stored);
        // 6. The body against the row's DTO, and the row runs.
        if (route.kind === 'graphql' && route.plain && access) {
          refuseBody(route, body.raw);
          answer = { status: route.status, headers: { 'content-type': jsonType }, body: await route.plain({ access, input: parameters.parsed, context }) };
        } else if (route.kind === 'graphql') {
          answer = await runField(route, call, parts, parameters, context, body.raw);
        } else {
          const request = nativeRequestOf(route, call, parameters, context, access, session, body);
          handedOver = true;
          answer = await route.handler(request);
        }
        return answer;
      } catch (error) {
        return (answer = problemOf(expose(error, call), call));
      } finally {
        // An upload that did not reach its handler (answered before, a bad field) leaves nothing staged behind.
        if (route && !handedOver)
          await discardUpload(route, body).catch((error: unknown) => state.log.warn({ err: error }, 'a staged upload was not discarded'));
        // 7. An error nobody saw (the client left) is not kept as the key's answer: a retry runs again.
        if (idempotent) await idempotent.settle(answer && answer.status >= 400 && clientWentAway(http) ? undefined : answer);
      }
    },
  };
}
