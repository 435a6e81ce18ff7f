/**
 * The route table compiled against the GraphQL schema at start: each row
 * learns its arguments, body DTO and permission from its field, and any
 * mismatch (unknown field, a path parameter with no argument) stops the
 * process before it serves a request.
 */
import type { GraphQLField, GraphQLSchema } from 'graphql';
import type { z } from 'zod';
import type { Action, Subject } from '../auth/permissions.js';
import { operationExtensionsOf } from '../graphql/inputs.js';
import { namedInputs, type StrictObject } from '../lib/dto.js';
import { controllerTags, type GraphQLRouteSpec, type NativeRouteSpec, type RouteSpec } from './route-table.js';

export type PathSegment = { literal: string } | { param: string };

/** How a query-string value is turned into the JSON value its argument expects. */
export type QueryValueKind = 'string' | 'number' | 'boolean' | { list: 'string' | 'number' | 'boolean' };

export interface RestRoute extends GraphQLRouteSpec {
  operationId: string;
  tag: string;
  segments: PathSegment[];
  rootType: 'Query' | 'Mutation';
  fieldName: string;
  graphqlField: GraphQLField<unknown, unknown>;
  /** Path and query arguments (everything but the body). */
  parametersSchema: StrictObject;
  permission: { action: Action; subject: Subject } | undefined;
  /** Superadmins only (a route outside the tenants). */
  superadminOnly: boolean;
  /** Path parameter name -> argument name. */
  pathArguments: Record<string, string>;
  queryArguments: Record<string, QueryValueKind>;
  body: { name: string; schema: StrictObject } | undefined;
  /** Where sofa serves the field; only the REST router calls it. */
  internalPath: string;
}

const bodyArgument = 'input';

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

/** `<controller>Controller<Action>` (CONTRACT.md section 5). */
export const operationIdOf = (spec: RouteSpec): string => `${spec.controller}Controller${capitalise(spec.action)}`;

export const isNative = (spec: RouteSpec): spec is NativeRouteSpec => spec.kind === 'native';

function compileRoute(schema: GraphQLSchema, spec: GraphQLRouteSpec): RestRoute {
  const where = `route ${spec.method} ${spec.path}`;
  const [rootType, fieldName] = spec.field.split('.') as ['Query' | 'Mutation', string];
  const rootObject = rootType === 'Query' ? schema.getQueryType() : schema.getMutationType();
  const graphqlField = rootObject?.getFields()[fieldName];
  if (!graphqlField) throw new Error(`${where}: the schema has no field ${spec.field}`);
  const extensions = operationExtensionsOf(graphqlField.extensions);
  const argsSchema = extensions.argsSchema;
  if (!argsSchema) throw new Error(`${where}: ${spec.field} was not declared with tenantOperation/plainOperation`);

  const segments = parseTemplate(spec.path);
  const params = segments.flatMap((segment) => ('param' in segment ? [segment.param] : []));
  const shape = argsSchema.shape as Record<string, z.ZodType>;
  const pathArguments: Record<string, string> = {};
  params.forEach((param, index) => {
    if (param in shape) pathArguments[param] = param;
    else if (index === params.length - 1 && 'id' in shape) pathArguments[param] = 'id';
    else throw new Error(`${where}: path parameter {${param}} matches no argument of ${spec.field}`);
  });

  let body: RestRoute['body'];
  const bodySchema = shape[bodyArgument];
  if (bodySchema !== undefined) {
    if (spec.method === 'GET' || spec.method === 'DELETE') throw new Error(`${where}: ${spec.method} routes take no body`);
    const inner = unwrapped(bodySchema);
    const named = namedInputs.get(inner);
    if (!named) throw new Error(`${where}: the ${bodyArgument} argument of ${spec.field} is not a named DTO`);
    body = { name: named.id, schema: inner as StrictObject };
  }

  const mapped = new Set([...Object.values(pathArguments), bodyArgument]);
  const queryArguments = Object.fromEntries(
    Object.entries(shape)
      .filter(([name]) => !mapped.has(name))
      .map(([name, fieldSchema]) => [name, queryKindOf(fieldSchema)]),
  );

  return {
    ...spec,
    operationId: operationIdOf(spec),
    tag: controllerTags[spec.controller],
    segments,
    rootType,
    fieldName,
    graphqlField,
    parametersSchema: body ? argsSchema.omit({ [bodyArgument]: true }) : argsSchema,
    permission: extensions.permission,
    superadminOnly: extensions.access === 'superadmin',
    pathArguments,
    queryArguments,
    body,
    internalPath: `/${rootType}/${fieldName}`,
  };
}

/** Compiles the GraphQL rows of the table; throws on the first row that does not fit the schema. */
export function compileRoutes(schema: GraphQLSchema, table: readonly RouteSpec[]): RestRoute[] {
  const seen = new Map<string, string>();
  for (const spec of table) {
    for (const [key, what] of [
      [`${spec.method} ${spec.path}`, 'path'],
      [operationIdOf(spec), 'operationId'],
      [isNative(spec) ? `native ${spec.path}` : spec.field, 'field'],
    ] as const) {
      if (seen.has(key)) throw new Error(`route table: duplicate ${what} ${key}`);
      seen.set(key, what);
    }
  }
  return table.filter((spec): spec is GraphQLRouteSpec => !isNative(spec)).map((spec) => compileRoute(schema, spec));
}

export type RouteMatch =
  | { kind: 'found'; route: RestRoute; params: Record<string, string> }
  | { kind: 'method-not-allowed'; allowed: string[] }
  | { kind: 'not-found' };

function matchSegments(segments: PathSegment[], parts: string[]): Record<string, string> | undefined {
  if (segments.length !== parts.length) return undefined;
  const params: Record<string, string> = {};
  for (const [index, segment] of segments.entries()) {
    const part = parts[index] as string;
    if ('literal' in segment) {
      if (segment.literal !== part) return undefined;
    } else {
      params[segment.param] = part;
    }
  }
  return params;
}

/** Literal segments beat parameters, position by position: `/users/me` wins over `/users/{id}`. */
function specificity(segments: PathSegment[]): string {
  return segments.map((segment) => ('literal' in segment ? '1' : '0')).join('');
}

export class RouteMatcher {
  private readonly routes: RestRoute[];

  constructor(routes: RestRoute[]) {
    this.routes = [...routes].sort((a, b) => specificity(b.segments).localeCompare(specificity(a.segments)));
  }

  /** `pathname` segments must already be percent-decoded. */
  match(method: string, parts: string[]): RouteMatch {
    let allowed: string[] | undefined;
    for (const route of this.routes) {
      const params = matchSegments(route.segments, parts);
      if (!params) continue;
      if (route.method === method) return { kind: 'found', route, params };
      allowed ??= this.routes.filter((other) => other.path === route.path).map((other) => other.method);
    }
    return allowed ? { kind: 'method-not-allowed', allowed } : { kind: 'not-found' };
  }
}
