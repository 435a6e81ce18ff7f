/**
 * The route rows compiled at start: each GraphQL row learns its arguments,
 * body DTO and permission from its field, each native row from its own
 * schemas; any mismatch (unknown field, a path parameter with no argument, a
 * duplicate operationId) stops the process before it serves a request.
 */
import type { GraphQLField, GraphQLSchema } from 'graphql';
import type { z } from 'zod';
import type { Permission } from '../auth/permissions.js';
import { operationExtensionsOf } from '../graphql/operations.js';
import { namedInputs, type StrictObject } from '../lib/dto.js';
import type { ConflictVocabulary } from '../lib/errors.js';
import type { GraphQLRouteSpec, NativeRouteSpec, RouteSpec, RouteTag, TaggedRouteSpec } from './route.js';

export type PathSegment = { literal: string } | { param: string };

/** How a query-string value is turned into the JSON value its argument expects. */
export type QueryValueKind = 'string' | 'number' | 'boolean' | { list: 'string' | 'number' | 'boolean' };

/** Who may call a compiled route. */
export type RouteAccess = { kind: 'public' } | { kind: 'authenticated' } | { kind: 'superadmin' } | { kind: 'tenant'; permission: Permission };

interface CompiledBase {
  operationId: string;
  /** The OpenAPI tag's name (`tags` of the operation). */
  tag: string;
  /** The tag with its description, for the document's `tags`. */
  tagInfo: RouteTag;
  /** The reasons its 409s may name (its module's). */
  conflicts: ConflictVocabulary;
  segments: PathSegment[];
  access: RouteAccess;
  /** Path and query arguments (everything but the body). */
  parametersSchema: z.ZodObject;
  /** Path parameter name -> argument name. */
  pathArguments: Record<string, string>;
  queryArguments: Record<string, QueryValueKind>;
}

export interface CompiledGraphQLRoute extends CompiledBase, Omit<GraphQLRouteSpec, 'kind'> {
  kind: 'graphql';
  rootType: 'Query' | 'Mutation';
  fieldName: string;
  graphqlField: GraphQLField<unknown, unknown>;
  /** Every argument of the field, body included: what the resolver receives. */
  argsSchema: StrictObject;
  /** The JSON body: its DTO, and whether a request may leave it out (an optional `input`: its defaults). */
  body: { name: string; schema: StrictObject; optional: boolean } | undefined;
}

export interface CompiledNativeRoute extends CompiledBase, Omit<NativeRouteSpec, 'kind' | 'access'> {
  kind: 'native';
}

export type CompiledRoute = CompiledGraphQLRoute | CompiledNativeRoute;

const bodyArgument = 'input';

/** What src/routes.ts adds to a module's rows. */
type Tagging = { tag: RouteTag; conflicts: ConflictVocabulary };

function parseTemplate(path: string): PathSegment[] {
  return path
    .split('/')
    .filter((part) => part !== '')
    .map((part) => {
      const param = /^\{([A-Za-z][A-Za-z0-9]*)\}$/.exec(part)?.[1];
      return param === undefined ? { literal: part } : { param };
    });
}

function unwrapped(schema: z.ZodType): z.ZodType {
  let current = schema;
  for (;;) {
    const def = current._zod.def as { type: string; innerType?: z.ZodType };
    if ((def.type === 'optional' || def.type === 'nullable' || def.type === 'default') && def.innerType) {
      current = def.innerType;
    } else {
      return current;
    }
  }
}

function scalarKindOf(schema: z.ZodType): 'string' | 'number' | 'boolean' {
  const def = unwrapped(schema)._zod.def as { type: string; in?: z.ZodType };
  if (def.type === 'pipe' && def.in) return scalarKindOf(def.in);
  if (def.type === 'number') return 'number';
  if (def.type === 'boolean') return 'boolean';
  return 'string';
}

function queryKindOf(schema: z.ZodType): QueryValueKind {
  const def = unwrapped(schema)._zod.def as { type: string; element?: z.ZodType };
  if (def.type === 'array' && def.element) return { list: scalarKindOf(def.element) };
  return scalarKindOf(schema);
}

const capitalise = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1);

/** `<controller>Controller<Action>`: the names generated clients give their methods. */
export const operationIdOf = (spec: RouteSpec): string => `${spec.controller}Controller${capitalise(spec.action)}`;

export const isNative = (spec: RouteSpec): spec is NativeRouteSpec => spec.kind === 'native';

const pathParamsOf = (segments: PathSegment[]): string[] => segments.flatMap((segment) => ('param' in segment ? [segment.param] : []));

function queryArgumentsOf(shape: Record<string, z.ZodType>, excluded: Set<string>): Record<string, QueryValueKind> {
  return Object.fromEntries(
    Object.entries(shape)
      .filter(([name]) => !excluded.has(name))
      .map(([name, fieldSchema]) => [name, queryKindOf(fieldSchema)]),
  );
}

function compileGraphQLRoute(schema: GraphQLSchema, spec: GraphQLRouteSpec & Tagging): CompiledGraphQLRoute {
  const where = `route ${spec.method} ${spec.path}`;
  const [rootType, fieldName] = spec.field.split('.') as ['Query' | 'Mutation', string];
  const rootObject = rootType === 'Query' ? schema.getQueryType() : schema.getMutationType();
  const graphqlField = rootObject?.getFields()[fieldName];
  if (!graphqlField) throw new Error(`${where}: the schema has no field ${spec.field}`);
  const extensions = operationExtensionsOf(graphqlField.extensions);
  const argsSchema = extensions.argsSchema;
  if (!argsSchema) throw new Error(`${where}: ${spec.field} was not declared with tenantOperation/plainOperation`);

  const segments = parseTemplate(spec.path);
  const params = pathParamsOf(segments);
  const shape = argsSchema.shape as Record<string, z.ZodType>;
  const pathArguments: Record<string, string> = {};
  params.forEach((param, index) => {
    if (param in shape) pathArguments[param] = param;
    else if (index === params.length - 1 && 'id' in shape) pathArguments[param] = 'id';
    else throw new Error(`${where}: path parameter {${param}} matches no argument of ${spec.field}`);
  });

  let body: CompiledGraphQLRoute['body'];
  const bodySchema = shape[bodyArgument];
  if (bodySchema !== undefined) {
    if (spec.method === 'GET' || spec.method === 'DELETE') throw new Error(`${where}: ${spec.method} routes take no body`);
    const inner = unwrapped(bodySchema);
    const named = namedInputs.get(inner);
    if (!named) throw new Error(`${where}: the ${bodyArgument} argument of ${spec.field} is not a named DTO`);
    body = { name: named.id, schema: inner as StrictObject, optional: bodySchema.safeParse(undefined).success };
  }

  const access: RouteAccess = extensions.permission
    ? { kind: 'tenant', permission: extensions.permission }
    : extensions.access === 'superadmin'
      ? { kind: 'superadmin' }
      : { kind: 'authenticated' };
  // A plain read answers for the field: only a read of a tenant's records, whose permission the router checks.
  if (spec.plain && (spec.method !== 'GET' || access.kind !== 'tenant')) throw new Error(`${where}: a plain read must be a GET with a tenant permission`);
  const { kind: _kind, ...row } = spec;
  return {
    ...row,
    kind: 'graphql',
    operationId: operationIdOf(spec),
    tag: spec.tag.name,
    tagInfo: spec.tag,
    segments,
    access,
    rootType,
    fieldName,
    graphqlField,
    argsSchema,
    parametersSchema: body ? argsSchema.omit({ [bodyArgument]: true }) : argsSchema,
    pathArguments,
    queryArguments: queryArgumentsOf(shape, new Set([...Object.values(pathArguments), bodyArgument])),
    body,
  };
}

function compileNativeRoute(spec: NativeRouteSpec & Tagging): CompiledNativeRoute {
  const where = `route ${spec.method} ${spec.path}`;
  const segments = parseTemplate(spec.path);
  const params = pathParamsOf(segments);
  const shape = spec.parameters.shape as Record<string, z.ZodType>;
  for (const param of params) {
    if (!(param in shape)) throw new Error(`${where}: path parameter {${param}} is not in its parameters schema`);
  }
  if (typeof spec.access !== 'string' && !params.includes('tenantId')) {
    throw new Error(`${where}: a permission needs a tenant; the path has no {tenantId}`);
  }
  const access: RouteAccess = typeof spec.access === 'string' ? { kind: spec.access } : { kind: 'tenant', permission: spec.access };
  const { kind: _kind, access: _access, ...row } = spec;
  return {
    ...row,
    kind: 'native',
    operationId: operationIdOf(spec),
    tag: spec.tag.name,
    tagInfo: spec.tag,
    segments,
    access,
    parametersSchema: spec.parameters,
    pathArguments: Object.fromEntries(params.map((param) => [param, param])),
    queryArguments: queryArgumentsOf(shape, new Set(params)),
  };
}

/** Compiles every row; throws on the first row that does not fit the schema or repeats another. */
export function compileRoutes(schema: GraphQLSchema, table: readonly TaggedRouteSpec[]): CompiledRoute[] {
  const seen = new Map<string, string>();
  for (const spec of table) {
    for (const [key, what] of [
      [`${spec.method} ${spec.path}`, 'path'],
      [operationIdOf(spec), 'operationId'],
      ...(isNative(spec) ? [] : [[spec.field, 'field']]),
    ] as const) {
      if (seen.has(key)) throw new Error(`route table: duplicate ${what} ${key}`);
      seen.set(key, what);
    }
  }
  return table.map((spec) => (isNative(spec) ? compileNativeRoute(spec) : compileGraphQLRoute(schema, spec)));
}

/** Literal segments beat parameters, position by position: `/users/me` wins over `/users/{id}`. */
function specificity(segments: PathSegment[]): string {
  return segments.map((segment) => ('literal' in segment ? '1' : '0')).join('');
}

/**
 * Routes in the order a router that tries them one by one must hold them: the more specific path first.
 * Specificities are strings of 0 and 1, compared by code unit (localeCompare would map ICU's collation data
 * into every process at start for the same order).
 */
export function byPrecedence<Route extends CompiledRoute>(routes: readonly Route[]): Route[] {
  return [...routes].sort((a, b) => {
    const [first, second] = [specificity(b.segments), specificity(a.segments)];
    return first < second ? -1 : first > second ? 1 : 0;
  });
}

/** Whether two templates can match one path: as long, and no position where both are literals and differ. */
function overlaps(template: PathSegment[], other: PathSegment[]): boolean {
  return (
    template.length === other.length &&
    template.every((segment, index) => {
      const otherSegment = other[index] as PathSegment;
      return 'param' in segment || 'param' in otherSegment || segment.literal === otherSegment.literal;
    })
  );
}

/**
 * Refuses a router that would run another route than the table chose for
 * some path. `tried` is the order in which a router that tries routes one by
 * one holds them (fets: literal paths first, then patterns as registered),
 * `preferred` the table's (`byPrecedence`): of two routes of one method that
 * can match the same path, the one the table prefers must be tried first.
 */
export function assertSameChoice(tried: readonly CompiledRoute[], preferred: readonly CompiledRoute[]): void {
  const rank = new Map(preferred.map((route, index) => [route, index]));
  tried.forEach((route, index) => {
    const earlier = tried
      .slice(0, index)
      .find((other) => other.method === route.method && overlaps(other.segments, route.segments) && (rank.get(other) ?? 0) > (rank.get(route) ?? 0));
    if (earlier) throw new Error(`the router tries ${earlier.method} ${earlier.path} before ${route.method} ${route.path}, which the route table prefers`);
  });
}

/** The template as fets (URLPattern) writes it, each parameter named after the argument it fills: `/tenants/:tenantId/notes/:id`. */
export function routerPathOf(route: CompiledRoute): string {
  return `/${route.segments.map((segment) => ('literal' in segment ? segment.literal : `:${route.pathArguments[segment.param] ?? segment.param}`)).join('/')}`;
}

/** A route that takes a request, with its path values keyed by the argument each fills (`id`, not `noteId`). */
export interface RouteMatch {
  route: CompiledRoute;
  pathValues: Record<string, string>;
}

/**
 * The route table's choice for a request: of the routes of its method whose
 * template matches its path (decoded segments), the most specific
 * (`byPrecedence`); undefined when none does.
 */
export function createRouteMatcher(routes: readonly CompiledRoute[]): (method: string, parts: readonly string[]) => RouteMatch | undefined {
  const candidates = new Map<string, CompiledRoute[]>();
  for (const route of byPrecedence(routes)) {
    const key = `${route.method} ${route.segments.length}`;
    candidates.set(key, [...(candidates.get(key) ?? []), route]);
  }
  return (method, parts) => {
    const route = candidates.get(`${method} ${parts.length}`)?.find((candidate) => matchesPath(candidate.segments, parts));
    if (!route) return undefined;
    const pathValues: Record<string, string> = {};
    route.segments.forEach((segment, index) => {
      if ('param' in segment) pathValues[route.pathArguments[segment.param] ?? segment.param] = parts[index] as string;
    });
    return { route, pathValues };
  };
}

/** Whether a template matches a path's (decoded) segments. */
export function matchesPath(segments: PathSegment[], parts: readonly string[]): boolean {
  return segments.length === parts.length && segments.every((segment, index) => 'param' in segment || segment.literal === parts[index]);
}

/** The methods some route takes at this path (already split and decoded); empty when no route has the path. */
export function allowedMethods(routes: readonly CompiledRoute[], parts: readonly string[]): string[] {
  return [...new Set(routes.filter((route) => matchesPath(route.segments, parts)).map((route) => route.method))];
}
