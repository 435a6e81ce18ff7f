/**
 * The public REST router. For every row, GraphQL-backed or native, in this
 * order: match the path; the authentication gate (a public row only spends
 * its budget there); validate path and query parameters against the row's
 * schema; the tenant guard and the row's permission; read and validate the
 * body within its limit; then run the GraphQL field or the row's handler.
 * Every refusal is RFC 9457 problem+json.
 */
import type { IncomingMessage } from 'node:http';
import type { Actor } from '../auth/actor.js';
import { requireSuperadmin } from '../auth/actor.js';
import type { SessionLookup } from '../auth/sessions.js';
import { permissionRefusal, type TenantAccess, type TenantRecord } from '../auth/tenant-access.js';
import type { GraphQLContext } from '../graphql/context.js';
import { fieldErrorsOf, parseInput, type StrictObject } from '../lib/dto.js';
import { AppError, validationFailed, type FieldError } from '../lib/errors.js';
import type { Logger } from '../lib/logger.js';
import { nulByteMessage, nulBytePath } from '../lib/nul-bytes.js';
import { problemResult, type HttpResult } from '../lib/problem.js';
import { isJson, readBody, readMultipart } from './body.js';
import type { CompiledGraphQLRoute, CompiledNativeRoute, CompiledRoute, QueryValueKind, RouteMatcher } from './compile.js';
import type { NativeRequest, Platform, PublicBudget } from './route.js';
import type { FieldExecutor } from './executor.js';

/** The authentication gate's answer: who calls (and cookies to refresh), or why not. */
export type GateResult =
  | { actor: Actor; cookies: string[]; tenant?: TenantRecord; /** Headers every answer to this request carries (RateLimit-*). */ headers: Record<string, string> }
  | { error: AppError };

/** The gate's answer for a public route: who calls, if a credential says so (and the session cookie's lookup), or why not (over budget). */
export type PublicGateResult = { actor: Actor | null; headers: Record<string, string>; session?: SessionLookup } | { error: AppError };

/** What the router needs of the gate (src/http/gate.ts). */
export interface RouterGate {
  admit(request: IncomingMessage): Promise<GateResult>;
  admitPublic(request: IncomingMessage, budget: PublicBudget): Promise<PublicGateResult>;
}

export interface RequestState {
  requestId: string;
  log: Logger;
  /** Set once the gate has admitted the caller (for the request log). */
  actor: Actor | null;
  /** Headers for whatever the answer turns out to be, errors included (RateLimit-*). */
  headers?: Record<string, string>;
  /** The route template that matched (`/tenants/{tenantId}/notes`), for metrics. */
  route?: string;
  /** A tenant the gate read with the credential (an API key's own), as it is now. */
  knownTenant?: TenantRecord;
  /** The client's address, as TRUST_PROXY decides (for sign-in limits and the request log). */
  clientAddress: string;
}

export interface RestRouterOptions {
  matcher: RouteMatcher;
  executor: FieldExecutor;
  platform: Platform;
  gate: RouterGate;
  contextFor(actor: Actor | null, state: RequestState): GraphQLContext;
  /** Unknown paths under these prefixes are public too (404 without credentials). */
  publicPrefixes: readonly string[];
}

export interface RestRouter {
  handle(request: IncomingMessage, url: URL, state: RequestState): Promise<HttpResult>;
}

const numberPattern = /^-?\d+(\.\d+)?$/;

/** A query-string value as the JSON its argument expects; anything else is left for validation to name. */
function coerceScalar(value: string, kind: 'string' | 'number' | 'boolean'): unknown {
  if (kind === 'number') return numberPattern.test(value) ? Number(value) : value;
  if (kind === 'boolean') return value === 'true' ? true : value === 'false' ? false : value;
  return value;
}

function queryArguments(url: URL, route: CompiledRoute): { values: Record<string, unknown>; errors: FieldError[] } {
  const values: Record<string, unknown> = {};
  const errors: FieldError[] = [];
  // A loose schema (a provider's callback) takes what it is sent; every other route refuses unknown parameters.
  const { catchall } = route.parametersSchema._zod.def;
  const loose = catchall !== undefined && catchall._zod.def.type !== 'never';
  for (const name of new Set(url.searchParams.keys())) {
    const kind: QueryValueKind | undefined = route.queryArguments[name];
    const raw = url.searchParams.getAll(name);
    if (raw.some((value) => value.includes('\u0000')) || name.includes('\u0000')) {
      errors.push({ path: name.replace(/\u0000/g, '\\u0000'), message: nulByteMessage });
      continue;
    }
    if (kind === undefined) {
      if (loose) values[name] = raw.at(-1);
      else errors.push({ path: name, message: 'is not a known query parameter' });
    } else if (typeof kind === 'object') {
      values[name] = raw
        .flatMap((value) => value.split(','))
        .map((value) => value.trim())
        .filter((value) => value !== '')
        .map((value) => coerceScalar(value, kind.list));
    } else if (raw.length > 1) {
      errors.push({ path: name, message: 'must be given once' });
    } else {
      values[name] = coerceScalar(raw[0] ?? '', kind);
    }
  }
  return { values, errors };
}

function pathArguments(route: CompiledRoute, params: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(params).map(([param, value]) => [route.pathArguments[param] ?? param, value]),
  );
}

/** A route without a body accepts none (or `{}`, which some clients send on every POST). */
function refuseBody(route: CompiledRoute, body: Buffer | undefined): void {
  const text = body?.toString('utf8').trim() ?? '';
  if (text !== '' && text !== '{}') throw new AppError('BAD_REQUEST', `${route.method} ${route.path} takes no request body`);
}

/** A JSON body as its DTO, or the reason it is not one. */
function parseJsonBody(request: IncomingMessage, body: Buffer | undefined, dto: { name: string; schema: StrictObject }): unknown {
  const text = body?.toString('utf8') ?? '';
  if (text.trim() === '') throw new AppError('BAD_REQUEST', `This operation needs a JSON body (${dto.name})`);
  if (!isJson(request.headers['content-type'])) throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'Send the body as application/json');
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new AppError('BAD_REQUEST', `The body is not valid JSON: ${(error as Error).message}`);
  }
  const nul = nulBytePath(json);
  if (nul !== undefined) throw validationFailed([{ path: nul, message: nulByteMessage }]);
  return json;
}

function splitPath(pathname: string): string[] {
  let parts: string[];
  try {
    parts = pathname
      .split('/')
      .filter((part) => part !== '')
      .map((part) => decodeURIComponent(part));
  } catch {
    throw new AppError('BAD_REQUEST', 'The path is not valid percent-encoding');
  }
  // No id holds a NUL: whatever it names does not exist.
  if (parts.some((part) => part.includes('\u0000'))) throw new AppError('NOT_FOUND', 'Nothing is found at a path with a NUL character');
  return parts;
}

const hasBody = (method: string): boolean => method !== 'GET' && method !== 'HEAD';

export function createRestRouter({ matcher, executor, platform, gate, contextFor, publicPrefixes }: RestRouterOptions): RestRouter {
  async function admit(route: CompiledRoute, parameters: Record<string, unknown>, context: GraphQLContext): Promise<TenantAccess | undefined> {
    switch (route.access.kind) {
      case 'public':
      case 'authenticated':
        return undefined;
      case 'superadmin':
        requireSuperadmin(context.actor as Actor);
        return undefined;
      case 'tenant': {
        const access = await context.tenantAccess(String(parameters.tenantId));
        const [action, subject] = route.access.permission;
        if (!access.holds(route.access.permission)) throw permissionRefusal(action, subject);
        return access;
      }
    }
  }

  async function runGraphQL(
    route: CompiledGraphQLRoute,
    request: IncomingMessage,
    parameters: { raw: Record<string, unknown>; parsed: Record<string, unknown> },
    context: GraphQLContext,
  ): Promise<HttpResult> {
    const raw = hasBody(request.method ?? 'GET') ? await readBody(request) : undefined;
    // GraphQL coerces the JSON the client sent; the resolver gets what zod made of it.
    let variables = parameters.raw;
    let input = parameters.parsed;
    if (route.body) {
      const json = parseJsonBody(request, raw, route.body);
      input = { ...input, input: parseInput(route.body.schema, json) };
      variables = { ...parameters.raw, input: json };
    } else {
      refuseBody(route, raw);
    }
    context.preparsed = { field: route.field, input };
    const outcome = await executor.run(route, variables, context);
    if ('error' in outcome) return problemResult(outcome.error, context.requestId);
    if (route.status === 204) return { status: 204, headers: {} };
    return { status: route.status, headers: { 'content-type': 'application/json; charset=utf-8' }, body: outcome.json };
  }

  async function runNative(
    route: CompiledNativeRoute,
    request: IncomingMessage,
    url: URL,
    parameters: Record<string, unknown>,
    access: TenantAccess | undefined,
    context: GraphQLContext,
    caller: { clientAddress: string; session: SessionLookup | undefined },
  ): Promise<HttpResult> {
    const bodySpec = route.body;
    let body: unknown;
    let rawBody: Buffer | undefined;
    if (bodySpec?.kind === 'json') {
      body = parseInput(bodySpec.dto, parseJsonBody(request, await readBody(request), { name: 'the request body', schema: bodySpec.dto }));
    } else if (bodySpec?.kind === 'raw') {
      rawBody = hasBody(request.method ?? 'GET') ? await readBody(request) : undefined;
    } else if (bodySpec === undefined && hasBody(request.method ?? 'GET')) {
      refuseBody(route, await readBody(request));
    }
    const nativeRequest: NativeRequest = {
      http: request,
      url,
      ...caller,
      parameters,
      body,
      rawBody,
      async readUpload(onFile, release) {
        if (bodySpec?.kind !== 'multipart') throw new Error(`${route.operationId} does not take an upload`);
        const upload = await readMultipart(request, { fileField: bodySpec.fileField, onFile, release });
        try {
          return { ...upload, fields: parseInput(bodySpec.fields, upload.fields) as Record<string, string> };
        } catch (error) {
          if (release && upload.file !== undefined) await release(upload.file);
          throw error;
        }
      },
      async respond(typeName, record, status) {
        const outcome = await executor.renderRecord(typeName, record, context);
        if ('error' in outcome) throw outcome.error;
        return { status, headers: { 'content-type': 'application/json; charset=utf-8' }, body: outcome.json };
      },
      context,
      access,
      platform,
    };
    return route.handler(nativeRequest);
  }

  async function run(request: IncomingMessage, url: URL, state: RequestState): Promise<HttpResult> {
    const method = request.method ?? 'GET';
    const match = matcher.match(method, splitPath(url.pathname));
    const route = match.kind === 'found' ? match.route : undefined;
    if (route) state.route = route.path;
    const isPublic = route ? route.access.kind === 'public' : publicPrefixes.some((prefix) => url.pathname.startsWith(prefix));
    let cookies: string[] = [];
    let session: SessionLookup | undefined;
    if (!isPublic) {
      const admitted = await gate.admit(request);
      if ('error' in admitted) return problemResult(admitted.error, state.requestId);
      state.actor = admitted.actor;
      state.knownTenant = admitted.tenant;
      state.headers = admitted.headers;
      cookies = admitted.cookies;
    } else {
      const admitted = await gate.admitPublic(request, route?.kind === 'native' ? (route.publicBudget ?? 'caller') : 'caller');
      if ('error' in admitted) return problemResult(admitted.error, state.requestId);
      state.actor = admitted.actor;
      state.headers = admitted.headers;
      session = admitted.session;
    }
    if (match.kind === 'not-found') {
      throw new AppError('NOT_FOUND', `No route ${method} ${url.pathname}; see /docs`);
    }
    if (match.kind === 'method-not-allowed') {
      throw new AppError('METHOD_NOT_ALLOWED', `${method} is not allowed here; use ${match.allowed.join(', ')}`, {
        headers: { allow: match.allowed.join(', ') },
      });
    }
    const found = match.route;
    const query = queryArguments(url, found);
    const parameters = { ...query.values, ...pathArguments(found, match.params) };
    const checked = found.parametersSchema.safeParse(parameters, { reportInput: true });
    const parameterErrors = [...query.errors, ...(checked.success ? [] : fieldErrorsOf(checked.error))];
    if (!checked.success || parameterErrors.length > 0) throw validationFailed(parameterErrors);
    const parsed = checked.data as Record<string, unknown>;

    const context = contextFor(state.actor, state);
    const access = await admit(found, parsed, context);
    const result =
      found.kind === 'graphql'
        ? await runGraphQL(found, request, { raw: parameters, parsed }, context)
        : await runNative(found, request, url, parsed, access, context, { clientAddress: state.clientAddress, session });
    return cookies.length > 0 ? { ...result, cookies: [...cookies, ...(result.cookies ?? [])] } : result;
  }

  return {
    async handle(request, url, state) {
      try {
        return await run(request, url, state);
      } catch (error) {
        if (error instanceof AppError) return problemResult(error, state.requestId);
        throw error;
      }
    },
  };
}
