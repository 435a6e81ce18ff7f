/**
 * What a REST request carries besides its route, read strictly: the path
 * (percent-decoding, NUL), the query string (every parameter known, each
 * given once, coerced to the JSON its argument expects), and JSON bodies
 * (the DTO itself, not wrapped). sofa never sees the query string or the
 * body: they are validated here, against the row's zod schemas, so that a bad
 * value is a 400 naming the field, never a GraphQL coercion message.
 */
import type { IncomingMessage } from 'node:http';
import { fieldErrorsOf, type StrictObject } from '../lib/dto.js';
import { AppError, validationFailed, type FieldError } from '../lib/errors.js';
import { nulByteMessage, nulBytePath } from '../lib/nul-bytes.js';
import { isJson } from './body.js';
import type { CompiledRoute, QueryValueKind } from './compile.js';

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
      errors.push({ path: name.replaceAll('\u0000', '\\u0000'), message: nulByteMessage });
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

/** A route's path and query arguments: as sent (GraphQL coerces these) and as validated (the resolver's input). */
export interface RouteParameters {
  raw: Record<string, unknown>;
  parsed: Record<string, unknown>;
}

/**
 * Validates a request's path and query against the route's parameters
 * schema. `pathValues` are already keyed by argument name (`id`, not
 * `noteId`), as the router matched them.
 */
export function routeParameters(route: CompiledRoute, url: URL, pathValues: Record<string, string>): RouteParameters {
  const query = queryArguments(url, route);
  const raw = { ...query.values, ...pathValues };
  const checked = route.parametersSchema.safeParse(raw, { reportInput: true });
  const errors = [...query.errors, ...(checked.success ? [] : fieldErrorsOf(checked.error))];
  if (!checked.success || errors.length > 0) throw validationFailed(errors);
  return { raw, parsed: checked.data as Record<string, unknown> };
}

/** A route without a body accepts none (or `{}`, which some clients send on every POST). */
export function refuseBody(route: CompiledRoute, body: Buffer | undefined): void {
  const text = body?.toString('utf8').trim() ?? '';
  if (text !== '' && text !== '{}') throw new AppError('BAD_REQUEST', `${route.method} ${route.path} takes no request body`);
}

/** A JSON body as sent, checked to be JSON of the right media type; its DTO is validated by the caller. */
export function jsonBodyOf(request: IncomingMessage, body: Buffer | undefined, dto: { name: string; schema: StrictObject }): unknown {
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

/** The path's segments, percent-decoded; a path no route could name is refused before any router sees it. */
export function pathSegments(pathname: string): string[] {
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
