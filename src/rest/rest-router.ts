/**
 * The public REST router: matches the route table, validates path, query and
 * body against the operation's own schemas (so bad input is a 400 naming the
 * field before anything runs), then runs the GraphQL field through sofa.
 */
import type { GraphQLContext } from '../graphql/context.js';
import { problemResult, type HttpResult } from '../http/problem.js';
import { fieldErrorsOf, parseInput } from '../lib/dto.js';
import { AppError, validationFailed, type FieldError } from '../lib/errors.js';
import type { QueryValueKind, RestRoute, RouteMatcher } from './routes.js';
import type { SofaBridge } from './sofa.js';

export interface RestRequest {
  method: string;
  url: URL;
  contentType: string | undefined;
  /** The raw body, already limited in size by the server. */
  body: Buffer | undefined;
}

const numberPattern = /^-?\d+(\.\d+)?$/;

/** A query-string value as the JSON its argument expects; anything else is left for validation to name. */
function coerceScalar(value: string, kind: 'string' | 'number' | 'boolean'): unknown {
  if (kind === 'number') return numberPattern.test(value) ? Number(value) : value;
  if (kind === 'boolean') return value === 'true' ? true : value === 'false' ? false : value;
  return value;
}

function queryArguments(url: URL, route: RestRoute): { values: Record<string, unknown>; errors: FieldError[] } {
  const values: Record<string, unknown> = {};
  const errors: FieldError[] = [];
  for (const name of new Set(url.searchParams.keys())) {
    const kind: QueryValueKind | undefined = route.queryArguments[name];
    const raw = url.searchParams.getAll(name);
    if (kind === undefined) {
      errors.push({ path: name, message: 'is not a known query parameter' });
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

function pathArguments(route: RestRoute, params: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(params).map(([param, value]) => [route.pathArguments[param] ?? param, value]),
  );
}

function isJson(contentType: string | undefined): boolean {
  const mediaType = contentType?.split(';')[0]?.trim().toLowerCase() ?? '';
  return mediaType === 'application/json' || /^application\/[a-z0-9.+-]+\+json$/.test(mediaType);
}

/** The body as its DTO, or the reason it is not one. */
function readBody(route: RestRoute, request: RestRequest): unknown {
  const text = request.body?.toString('utf8') ?? '';
  if (!route.body) {
    if (text.trim() === '' || text.trim() === '{}') return undefined;
    throw new AppError('BAD_REQUEST', `${route.method} ${route.path} takes no request body`);
  }
  if (text.trim() === '') {
    throw new AppError('BAD_REQUEST', `This operation needs a JSON body (${route.body.name})`);
  }
  if (!isJson(request.contentType)) {
    throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'Send the body as application/json');
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (error) {
    throw new AppError('BAD_REQUEST', `The body is not valid JSON: ${(error as Error).message}`);
  }
  parseInput(route.body.schema, body);
  return body;
}

function splitPath(pathname: string): string[] {
  try {
    return pathname
      .split('/')
      .filter((part) => part !== '')
      .map((part) => decodeURIComponent(part));
  } catch {
    throw new AppError('BAD_REQUEST', 'The path is not valid percent-encoding');
  }
}

export interface RestRouter {
  handle(request: RestRequest, context: GraphQLContext): Promise<HttpResult>;
}

export function createRestRouter({ matcher, sofa }: { matcher: RouteMatcher; sofa: SofaBridge }): RestRouter {
  async function run(request: RestRequest, context: GraphQLContext): Promise<HttpResult> {
    const match = matcher.match(request.method, splitPath(request.url.pathname));
    if (match.kind === 'not-found') {
      throw new AppError('NOT_FOUND', `No route ${request.method} ${request.url.pathname}; see /docs`);
    }
    if (match.kind === 'method-not-allowed') {
      throw new AppError('METHOD_NOT_ALLOWED', `${request.method} is not allowed here; use ${match.allowed.join(', ')}`, {
        headers: { allow: match.allowed.join(', ') },
      });
    }
    const { route, params } = match;
    const query = queryArguments(request.url, route);
    const parameters = { ...query.values, ...pathArguments(route, params) };
    const checked = route.parametersSchema.safeParse(parameters, { reportInput: true });
    const parameterErrors = [...query.errors, ...(checked.success ? [] : fieldErrorsOf(checked.error))];
    if (parameterErrors.length > 0) throw validationFailed(parameterErrors);
    const body = readBody(route, request);

    const outcome = await sofa.run(route, body === undefined ? parameters : { ...parameters, input: body }, context);
    if ('error' in outcome) return problemResult(outcome.error, context.requestId);
    if (route.status === 204) return { status: 204, headers: {} };
    return { status: route.status, headers: { 'content-type': 'application/json; charset=utf-8' }, body: outcome.json };
  }

  return {
    async handle(request, context) {
      try {
        return await run(request, context);
      } catch (error) {
        if (error instanceof AppError) return problemResult(error, context.requestId);
        throw error;
      }
    },
  };
}
