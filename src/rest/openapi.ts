/**
 * The OpenAPI 3.1 document, built from the same compiled route table the
 * router serves, the DTO schemas of src/lib/dto.ts, and the resource types
 * REST returns. Built once at start; served at /docs-json and /docs-yaml and
 * written to schema/openapi.json by `npm run codegen`.
 */
import {
  isEnumType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
  type GraphQLObjectType,
  type GraphQLOutputType,
  type GraphQLSchema,
} from 'graphql';
import { argumentJsonSchema, namedInputJsonSchemas, type JsonSchema } from '../lib/dto.js';
import { errorStatus, problemTypeOf, type ErrorCode } from '../lib/errors.js';
import { controllerTags, type NativeRouteSpec } from './route-table.js';
import { operationIdOf, type RestRoute } from './routes.js';

export interface OpenApiOptions {
  routes: readonly RestRoute[];
  nativeRoutes: readonly NativeRouteSpec[];
  /** The schema as REST sees it (relations removed), see flatResourceSchema. */
  restSchema: GraphQLSchema;
  serverUrl: string;
  version: string;
  sessionCookieName: string;
}

export type OpenApiDocument = Record<string, unknown> & { paths: Record<string, Record<string, unknown>> };

const scalarSchemas: Record<string, JsonSchema> = {
  ID: { type: 'string' },
  String: { type: 'string' },
  Int: { type: 'integer' },
  Float: { type: 'number' },
  Boolean: { type: 'boolean' },
  DateTime: { type: 'string', format: 'date-time' },
  Date: { type: 'string', format: 'date' },
  Decimal: { type: 'string', pattern: '^-?\\d+(\\.\\d+)?$', examples: ['85.50'] },
};

const tagDescriptions: Record<string, string> = {
  Auth: 'Sign-in with an external identity provider, sign-out, the current session',
  Tenants: 'Tenants (organisations) and their settings',
  Users: 'Members of a tenant, their roles and rates',
  Entries: 'Time entries, timers and approval',
  Invoices: 'Received invoices and receipts, with OCR',
  Projects: 'Projects',
  TaskLists: 'Task lists and their tasks',
  Vehicles: 'Vehicles for mileage entries',
  Notifications: "The caller's in-app notifications",
  Syncs: 'IMAP mailboxes that import invoices',
  Search: 'Full-text search over entries, invoices and projects',
  ApiKeys: 'API keys for admin scripts',
  Webhooks: 'Webhook subscriptions and their deliveries',
  Notes: 'Short notes shared within a tenant',
  Admin: 'Superadmin operations',
};

const ref = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });

function nullable(schema: JsonSchema): JsonSchema {
  if (typeof schema.$ref === 'string') return { anyOf: [schema, { type: 'null' }] };
  if (typeof schema.type === 'string') return { ...schema, type: [schema.type, 'null'] };
  return { anyOf: [schema, { type: 'null' }] };
}

class ResponseSchemas {
  readonly components: Record<string, JsonSchema> = {};

  /** The JSON Schema of a GraphQL output type; object types become components. */
  of(type: GraphQLOutputType): JsonSchema {
    if (isNonNullType(type)) return this.nonNull(type.ofType);
    return nullable(this.nonNull(type));
  }

  private nonNull(type: GraphQLOutputType): JsonSchema {
    if (isNonNullType(type)) return this.nonNull(type.ofType);
    if (isListType(type)) return { type: 'array', items: this.of(type.ofType) };
    if (isScalarType(type)) return scalarSchemas[type.name] ?? {};
    if (isEnumType(type)) return { type: 'string', enum: type.getValues().map((value) => value.value as string) };
    if (isObjectType(type)) {
      this.component(type);
      return ref(type.name);
    }
    return {};
  }

  private component(type: GraphQLObjectType): void {
    if (this.components[type.name]) return;
    const schema: JsonSchema = { type: 'object' };
    this.components[type.name] = schema; // placed first so that cycles terminate
    const properties: Record<string, JsonSchema> = {};
    const required: string[] = [];
    for (const field of Object.values(type.getFields())) {
      const property = this.of(field.type);
      properties[field.name] = field.description ? { ...property, description: field.description } : property;
      if (isNonNullType(field.type)) required.push(field.name);
    }
    if (type.description) schema.description = type.description;
    schema.properties = properties;
    schema.required = required;
  }
}

const problemResponses = {
  BadRequest: ['The request is malformed or a field is invalid (VALIDATION_FAILED names each field)', ['BAD_REQUEST', 'VALIDATION_FAILED']],
  Unauthorized: ['No valid session and no valid API key', ['UNAUTHENTICATED']],
  Forbidden: ['Authenticated, but not allowed; or the tenant is suspended', ['FORBIDDEN', 'TENANT_SUSPENDED']],
  NotFound: ['No such resource in this tenant (another tenant\u2019s resources are reported as missing)', ['NOT_FOUND']],
  Conflict: ['The change conflicts with the current state', ['CONFLICT', 'INVALID_STATE']],
  PayloadTooLarge: ['The body is larger than 1 MiB', ['PAYLOAD_TOO_LARGE']],
  UnsupportedMediaType: ['The body is not application/json', ['UNSUPPORTED_MEDIA_TYPE']],
} as const satisfies Record<string, readonly [string, readonly ErrorCode[]]>;

type ProblemResponse = keyof typeof problemResponses;

function problemSchema(): JsonSchema {
  return {
    type: 'object',
    description: 'RFC 9457 problem details',
    required: ['type', 'title', 'status', 'detail', 'code'],
    properties: {
      type: { type: 'string', description: 'A URI naming the kind of problem', examples: [problemTypeOf('VALIDATION_FAILED')] },
      title: { type: 'string' },
      status: { type: 'integer' },
      detail: { type: 'string', description: 'What went wrong, for a human' },
      code: { type: 'string', enum: Object.keys(errorStatus) },
      errors: {
        type: 'array',
        description: 'One entry per invalid field',
        items: {
          type: 'object',
          required: ['path', 'message'],
          properties: { path: { type: 'string', examples: ['content'] }, message: { type: 'string' } },
        },
      },
      requestId: { type: 'string', description: 'Also in the x-request-id response header; quote it when reporting a problem' },
    },
  };
}

function errorResponsesOf(route: RestRoute): ProblemResponse[] {
  const responses: ProblemResponse[] = ['BadRequest', 'Unauthorized'];
  if (route.permission || route.superadminOnly || route.path.includes('{tenantId}')) responses.push('Forbidden');
  if (route.segments.some((segment) => 'param' in segment)) responses.push('NotFound');
  if (route.method !== 'GET') responses.push('Conflict');
  if (route.body) responses.push('PayloadTooLarge', 'UnsupportedMediaType');
  return responses;
}

function operationOf(route: RestRoute, responses: ResponseSchemas): Record<string, unknown> {
  const parameterSchemas = argumentJsonSchema(route.parametersSchema);
  const properties = (parameterSchemas.properties ?? {}) as Record<string, JsonSchema>;
  const requiredParameters = new Set((parameterSchemas.required ?? []) as string[]);
  const parameter = (name: string, argument: string, location: 'path' | 'query') => {
    const { description, ...schema } = properties[argument] ?? {};
    return {
      name,
      in: location,
      required: location === 'path' || requiredParameters.has(argument),
      ...(typeof description === 'string' ? { description } : {}),
      schema,
      ...(location === 'query' && schema.type === 'array' ? { style: 'form', explode: false } : {}),
    };
  };
  const descriptionParts = [route.graphqlField.description ?? route.summary];
  if (route.permission) {
    descriptionParts.push(`Requires permission \`${route.permission.action}\` on \`${route.permission.subject}\`.`);
  }
  if (route.superadminOnly) descriptionParts.push('Superadmins only.');
  descriptionParts.push(`GraphQL: \`${route.fieldName}\`.`);
  return {
    operationId: route.operationId,
    tags: [route.tag],
    summary: route.summary,
    description: descriptionParts.join('\n\n'),
    parameters: [
      ...Object.entries(route.pathArguments).map(([name, argument]) => parameter(name, argument, 'path')),
      ...Object.keys(route.queryArguments).map((name) => parameter(name, name, 'query')),
    ],
    ...(route.body
      ? { requestBody: { required: true, content: { 'application/json': { schema: ref(route.body.name) } } } }
      : {}),
    responses: {
      [String(route.status)]:
        route.status === 204
          ? { description: 'Done; no content' }
          : {
              description: route.summary,
              content: { 'application/json': { schema: responses.of(route.graphqlField.type) } },
            },
      ...Object.fromEntries(
        errorResponsesOf(route).map((name) => [
          String(errorStatus[problemResponses[name][1][0]]),
          { $ref: `#/components/responses/${name}` },
        ]),
      ),
    },
    ...(route.permission ? { 'x-permission': route.permission } : {}),
    ...(route.superadminOnly ? { 'x-superadmin': true } : {}),
  };
}

/** A public route with its own handler: documented from its row, no credentials. */
function nativeOperationOf(route: NativeRouteSpec): Record<string, unknown> {
  return {
    operationId: operationIdOf(route),
    tags: [controllerTags[route.controller]],
    summary: route.summary,
    description: route.description,
    security: [],
    parameters: route.parameters,
    responses: Object.fromEntries(
      Object.entries(route.responses).map(([status, response]) => [
        status,
        {
          description: response.description,
          ...(response.headers
            ? { headers: Object.fromEntries(Object.entries(response.headers).map(([name, description]) => [name, { description, schema: { type: 'string' } }])) }
            : {}),
          ...(response.schema ? { content: { 'application/json': { schema: response.schema } } } : {}),
        },
      ]),
    ),
  };
}

/** The OpenAPI document of every route in the table. */
export function buildOpenApiDocument(options: OpenApiOptions): OpenApiDocument {
  const responses = new ResponseSchemas();
  const paths: OpenApiDocument['paths'] = {};
  const operations: [string, string, Record<string, unknown>][] = [
    ...options.nativeRoutes.map((route) => [route.path, route.method, nativeOperationOf(route)] as [string, string, Record<string, unknown>]),
    ...options.routes.map((route) => [route.path, route.method, operationOf(route, responses)] as [string, string, Record<string, unknown>]),
  ];
  for (const [path, method, operation] of operations) {
    paths[path] ??= {};
    (paths[path] as Record<string, unknown>)[method.toLowerCase()] = operation;
  }
  const usedTags = new Set([
    ...options.routes.map((route) => route.tag),
    ...options.nativeRoutes.map((route) => controllerTags[route.controller]),
  ]);
  return {
    openapi: '3.1.0',
    info: {
      title: 'Tally API',
      version: options.version,
      description:
        'Multi-tenant time tracking. Authenticate with `Authorization: Bearer svc_...` (an API key) or the ' +
        '`service.session_token` cookie from signing in. Errors are RFC 9457 problem details. ' +
        'Every operation is also available over GraphQL at /graphql.',
    },
    servers: [{ url: options.serverUrl }],
    tags: Object.values(controllerTags)
      .filter((tag) => usedTags.has(tag))
      .map((name) => ({ name, description: tagDescriptions[name] })),
    security: [{ bearerAuth: [] }, { cookieAuth: [] }],
    paths,
    components: {
      schemas: {
        ...namedInputJsonSchemas(options.routes.flatMap((route) => (route.body ? [route.body.name] : []))),
        ...Object.fromEntries(Object.entries(responses.components).sort(([a], [b]) => a.localeCompare(b))),
        Problem: problemSchema(),
      },
      responses: Object.fromEntries(
        Object.entries(problemResponses).map(([name, [description]]) => [
          name,
          { description, content: { 'application/problem+json': { schema: ref('Problem') } } },
        ]),
      ),
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer', description: 'An API key: `svc_` followed by 40 characters' },
        cookieAuth: { type: 'apiKey', in: 'cookie', name: options.sessionCookieName, description: 'The session cookie set by sign-in' },
      },
    },
  };
}
