/**
 * The OpenAPI 3.1 document, built from the same compiled route table the
 * router serves, the DTO schemas of src/lib/dto.ts, and the resource types
 * REST returns. Built once at start; served at /docs-json and /docs-yaml and
 * written to schema/openapi.json by `npm run codegen`.
 */
import {
  GraphQLList,
  GraphQLNonNull,
  isEnumType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
  type GraphQLObjectType,
  type GraphQLOutputType,
  type GraphQLSchema,
} from 'graphql';
import { decimalKindOf } from '../graphql/money.js';
import { argumentJsonSchema, namedInputJsonSchemas, namedInputs, type JsonSchema } from '../lib/dto.js';
import { errorStatus, problemTypeOf, type ConflictVocabulary, type ErrorCode } from '../lib/errors.js';
import type { CompiledGraphQLRoute, CompiledNativeRoute, CompiledRoute } from './compile.js';
import type { NativeResponse, RouteTag } from './route.js';

export interface OpenApiOptions {
  routes: readonly CompiledRoute[];
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
  JSONObject: { type: 'object', additionalProperties: true },
};

const ref = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });

/**
 * What a decimal property holds, for clients (src/graphql/money.ts): `x-money` is money with exactly the minor
 * units of its currency (the `currency` of its object or of the nearest object holding it; 2 decimals when that is
 * null), `at-least` a price that may have more; `x-decimals` a fixed scale (percents).
 */
const decimalMarks: Record<string, JsonSchema> = {
  money: { 'x-money': 'exact' },
  price: { 'x-money': 'at-least' },
  percent: { 'x-decimals': 2 },
  quantity: {},
  none: {},
};

function nullable(schema: JsonSchema): JsonSchema {
  if (typeof schema.$ref === 'string') return { anyOf: [schema, { type: 'null' }] };
  // An enum lists its values, so null must be one of them too (a `type` allowing null is not enough).
  if (typeof schema.type === 'string')
    return { ...schema, type: [schema.type, 'null'], ...(Array.isArray(schema.enum) ? { enum: [...schema.enum, null] } : {}) };
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
      const property = { ...this.of(field.type), ...decimalMarks[decimalKindOf(field.extensions) ?? 'none'] };
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
  PayloadTooLarge: ['The body is larger than its limit (1 MiB of JSON, 20 MiB of upload)', ['PAYLOAD_TOO_LARGE']],
  UnsupportedMediaType: ['The body is not of a type this operation takes', ['UNSUPPORTED_MEDIA_TYPE']],
  IdempotencyKeyReused: [
    'The Idempotency-Key was used before, within 24 hours, for another request (another method, path, query or body); use a new key',
    ['IDEMPOTENCY_KEY_REUSED'],
  ],
  TooManyRequests: [
    'Over the request budget (600 a minute per key or session, 30 a minute per address on sign-in); wait Retry-After seconds',
    ['RATE_LIMITED'],
  ],
  InternalError: ['Something failed on our side; quote the requestId (no internals are shown)', ['INTERNAL']],
  Unavailable: ['The database cannot be reached right now; retry shortly', ['UNAVAILABLE']],
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
      reason: {
        type: 'string',
        description: "With a 409 (CONFLICT or INVALID_STATE): which conflict, stable and machine-readable; each operation's 409 lists its reasons",
        examples: ['TIMER_RUNNING'],
      },
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

/** What any route may answer: the request budget, and our own failures. */
const alwaysPossible: readonly ProblemResponse[] = ['TooManyRequests', 'InternalError', 'Unavailable'];

/** Whether a route takes `Idempotency-Key`: every POST and PATCH of a caller (a public route may have none). */
const takesIdempotencyKey = (route: CompiledRoute): boolean => (route.method === 'POST' || route.method === 'PATCH') && route.access.kind !== 'public';

const idempotencyKeyParameter = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'Makes the request safe to retry: 1 to 255 visible ASCII characters, unique per request (a UUID). For 24 hours the same ' +
    'request with the same key, by the same API key or person, is not run again but answered with the first answer (status and ' +
    'body, `Location` and type), marked `Idempotent-Replayed: true`; a 4xx is such an answer too, a 5xx is not kept (a retry runs ' +
    'again). The same key with another request is 422 IDEMPOTENCY_KEY_REUSED; while the first is still running, 409 CONFLICT ' +
    '(reason IDEMPOTENCY_KEY_IN_USE) with `Retry-After`. An upload counts by its file and fields.',
  schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7E]+$' },
};

/** The problems a route may answer; public routes document their own, and these. */
function errorResponsesOf(route: CompiledRoute): readonly ProblemResponse[] {
  if (route.access.kind === 'public') {
    // Every row validates its path and query parameters, and a path with a NUL is found nowhere: a public row too,
    // unless it words those answers itself.
    const own = route.kind === 'native' ? route.responses : {};
    const hasParameter = route.segments.some((segment) => 'param' in segment);
    return [...(own['400'] ? [] : ['BadRequest' as const]), ...(hasParameter && !own['404'] ? ['NotFound' as const] : []), ...alwaysPossible];
  }
  const responses: ProblemResponse[] = ['BadRequest', 'Unauthorized'];
  if (route.access.kind === 'tenant' || route.access.kind === 'superadmin' || route.path.includes('{tenantId}')) responses.push('Forbidden');
  if (route.segments.some((segment) => 'param' in segment)) responses.push('NotFound');
  if (route.method !== 'GET' || (route.kind === 'native' && route.readConflicts)) responses.push('Conflict');
  if (route.body) responses.push('PayloadTooLarge', 'UnsupportedMediaType');
  if (takesIdempotencyKey(route)) responses.push('IdempotencyKeyReused');
  return [...responses, ...alwaysPossible];
}

function parametersOf(route: CompiledRoute): Record<string, unknown>[] {
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
  return [
    ...Object.entries(route.pathArguments).map(([name, argument]) => parameter(name, argument, 'path')),
    ...Object.keys(route.queryArguments).map((name) => parameter(name, name, 'query')),
    ...(takesIdempotencyKey(route) ? [idempotencyKeyParameter] : []),
  ];
}

/** The route's own words, then who may call it. */
function descriptionOf(route: CompiledRoute, own: string, extra: string[]): string {
  const parts = [own];
  if (route.access.kind === 'tenant') {
    const [action, subject] = route.access.permission;
    parts.push(`Requires permission \`${action}\` on \`${subject}\`.`);
  }
  if (route.access.kind === 'superadmin') parts.push('Superadmins only.');
  return [...parts, ...extra].join('\n\n');
}

function errorResponses(route: CompiledRoute): Record<string, unknown> {
  return Object.fromEntries(
    errorResponsesOf(route).map((name) => [
      String(errorStatus[problemResponses[name][1][0]]),
      { $ref: `#/components/responses/${name === 'Conflict' ? conflictResponseName(route.conflicts) : name}` },
    ]),
  );
}

const conflictResponseName = (conflicts: ConflictVocabulary): string => `${conflicts.subject}Conflict`;
const conflictReasonName = (conflicts: ConflictVocabulary): string => `${conflicts.subject}ConflictReason`;

/** A module's conflict reasons as a schema: the enum, and what each means (also as x-enum-descriptions for generators). */
function conflictReasonSchema(conflicts: ConflictVocabulary): JsonSchema {
  const reasons = Object.entries(conflicts.reasons);
  return {
    type: 'string',
    enum: reasons.map(([reason]) => reason),
    description: ['Which conflict:', ...reasons.map(([reason, { code, description }]) => `- \`${reason}\` (${code}): ${description}`)].join('\n'),
    'x-enum-descriptions': reasons.map(([, { description }]) => description),
  };
}

/** The 409 of a module's writes: a problem whose `reason` is one of the module's. */
function conflictResponse(conflicts: ConflictVocabulary): Record<string, unknown> {
  return {
    description: `${problemResponses.Conflict[0]}; \`reason\` says which (${conflictReasonName(conflicts)})`,
    content: {
      'application/problem+json': {
        schema: { allOf: [ref('Problem'), { type: 'object', required: ['reason'], properties: { reason: ref(conflictReasonName(conflicts)) } }] },
      },
    },
  };
}

function permissionExtensions(route: CompiledRoute): Record<string, unknown> {
  if (route.access.kind === 'tenant') {
    const [action, subject] = route.access.permission;
    return { 'x-permission': { action, subject } };
  }
  return route.access.kind === 'superadmin' ? { 'x-superadmin': true } : {};
}

/** The field's type as REST answers it: from the flat resource schema, where relations are left out. */
function restTypeOf(route: CompiledGraphQLRoute, restSchema: GraphQLSchema): GraphQLOutputType {
  const root = route.rootType === 'Query' ? restSchema.getQueryType() : restSchema.getMutationType();
  const field = root?.getFields()[route.fieldName];
  if (!field) throw new Error(`the REST schema has no ${route.field}`);
  return field.type;
}

function operationOf(route: CompiledGraphQLRoute, responses: ResponseSchemas, restSchema: GraphQLSchema): Record<string, unknown> {
  return {
    operationId: route.operationId,
    tags: [route.tag],
    summary: route.summary,
    description: descriptionOf(route, route.graphqlField.description ?? route.summary, [`GraphQL: \`${route.fieldName}\`.`]),
    parameters: parametersOf(route),
    ...(route.body ? { requestBody: { required: true, content: { 'application/json': { schema: ref(route.body.name) } } } } : {}),
    responses: {
      [String(route.status)]:
        route.status === 204
          ? { description: 'Done; no content' }
          : {
              description: route.summary,
              content: { 'application/json': { schema: responses.of(restTypeOf(route, restSchema)) } },
            },
      ...errorResponses(route),
    },
    ...permissionExtensions(route),
  };
}

function nativeBodyOf(route: CompiledNativeRoute): Record<string, unknown> | undefined {
  const body = route.body;
  if (!body || body.kind === 'raw') return undefined;
  if (body.kind === 'json') {
    const named = namedInputs.get(body.dto);
    return { required: true, content: { 'application/json': { schema: named ? ref(named.id) : argumentJsonSchema(body.dto) } } };
  }
  const fields = argumentJsonSchema(body.fields);
  return {
    required: true,
    content: {
      'multipart/form-data': {
        schema: {
          ...fields,
          required: [body.fileField, ...((fields.required as string[] | undefined) ?? [])],
          properties: {
            [body.fileField]: { type: 'string', format: 'binary', description: body.fileDescription },
            ...((fields.properties as Record<string, unknown> | undefined) ?? {}),
          },
        },
        ...(body.fileTypes ? { encoding: { [body.fileField]: { contentType: body.fileTypes.join(', ') } } } : {}),
      },
    },
  };
}

/** A native row's JSON body: its GraphQL type's (one, or a list), or the JSON Schema it gives. */
function jsonSchemaOf(response: NativeResponse, responses: ResponseSchemas, restSchema: GraphQLSchema): JsonSchema {
  if (response.graphqlType === undefined) return response.schema ?? {};
  const type = restSchema.getType(response.graphqlType);
  if (!type || !isObjectType(type)) throw new Error(`a native route answers with ${response.graphqlType}, which is not an object type`);
  const one = new GraphQLNonNull(type);
  return responses.of(response.list ? new GraphQLNonNull(new GraphQLList(one)) : one);
}

function nativeResponseOf(status: string, response: NativeResponse, responses: ResponseSchemas, restSchema: GraphQLSchema): Record<string, unknown> {
  let content: Record<string, unknown> | undefined;
  if (Number(status) >= 400 && response.schema === undefined && response.contentType === undefined) {
    // Every error is a problem document, whatever the route.
    content = { 'application/problem+json': { schema: ref('Problem') } };
  } else if (response.graphqlType !== undefined || response.schema || response.contentType) {
    // JSON, files, or either (a report: JSON by default, a file for `format=csv|xlsx|pdf`).
    const types = typeof response.contentType === 'string' ? [response.contentType] : (response.contentType ?? []);
    content = {
      ...(response.graphqlType !== undefined || response.schema ? { 'application/json': { schema: jsonSchemaOf(response, responses, restSchema) } } : {}),
      ...Object.fromEntries(types.map((type) => [type, { schema: { type: 'string', format: 'binary' } }])),
    };
  }
  return {
    description: response.description,
    ...(response.headers
      ? { headers: Object.fromEntries(Object.entries(response.headers).map(([name, description]) => [name, { description, schema: { type: 'string' } }])) }
      : {}),
    ...(content ? { content } : {}),
  };
}

/** A route with its own handler, documented from its row. Public ones declare every answer themselves. */
function nativeOperationOf(route: CompiledNativeRoute, responses: ResponseSchemas, restSchema: GraphQLSchema): Record<string, unknown> {
  const isPublic = route.access.kind === 'public';
  const requestBody = nativeBodyOf(route);
  return {
    operationId: route.operationId,
    tags: [route.tag],
    summary: route.summary,
    description: descriptionOf(route, route.description, []),
    ...(isPublic ? { security: [] } : {}),
    parameters: parametersOf(route),
    ...(requestBody ? { requestBody } : {}),
    responses: {
      ...Object.fromEntries(Object.entries(route.responses).map(([status, response]) => [status, nativeResponseOf(status, response, responses, restSchema)])),
      ...errorResponses(route),
    },
    ...permissionExtensions(route),
  };
}

/** The named DTOs a route's body refers to. */
function bodyDtoNames(route: CompiledRoute): string[] {
  if (route.kind === 'graphql') return route.body ? [route.body.name] : [];
  const named = route.body?.kind === 'json' ? namedInputs.get(route.body.dto) : undefined;
  return named ? [named.id] : [];
}

/** The OpenAPI document of every route in the table. */
export function buildOpenApiDocument(options: OpenApiOptions): OpenApiDocument {
  const responses = new ResponseSchemas();
  const paths: OpenApiDocument['paths'] = {};
  const documented = options.routes.filter((route) => route.kind === 'graphql' || !route.hidden);
  for (const route of documented) {
    paths[route.path] ??= {};
    (paths[route.path] as Record<string, unknown>)[route.method.toLowerCase()] =
      route.kind === 'graphql' ? operationOf(route, responses, options.restSchema) : nativeOperationOf(route, responses, options.restSchema);
  }
  // Each tag once, in the order of the route table (sign-in, then the module list).
  const usedTags = new Map<string, RouteTag>(documented.map((route) => [route.tag, route.tagInfo]));
  // Each module's conflicts once, if an operation may answer them.
  const conflictVocabularies = new Map(
    documented.filter((route) => errorResponsesOf(route).includes('Conflict')).map((route) => [route.conflicts.subject, route.conflicts]),
  );
  return {
    openapi: '3.1.0',
    info: {
      title: 'Tally API',
      version: options.version,
      description:
        'Multi-tenant time tracking. Authenticate with `Authorization: Bearer svc_...` (an API key) or the ' +
        '`service.session_token` cookie from signing in. Errors are RFC 9457 problem details. ' +
        'Every operation is also available over GraphQL at /graphql. A method a path does not list answers 405 ' +
        'with an `Allow` header (components.responses.MethodNotAllowed). Every answer carries `RateLimit-*` headers.',
    },
    servers: [{ url: options.serverUrl }],
    tags: [...usedTags.values()],
    security: [{ bearerAuth: [] }, { cookieAuth: [] }],
    paths,
    components: {
      schemas: {
        ...namedInputJsonSchemas(options.routes.flatMap(bodyDtoNames)),
        ...Object.fromEntries(Object.entries(responses.components).sort(([a], [b]) => a.localeCompare(b))),
        Problem: problemSchema(),
        ...Object.fromEntries([...conflictVocabularies.values()].map((conflicts) => [conflictReasonName(conflicts), conflictReasonSchema(conflicts)])),
      },
      responses: {
        ...Object.fromEntries(
          // 409s are the modules' own (below), each with its reasons.
          Object.entries(problemResponses)
            .filter(([name]) => name !== 'Conflict')
            .map(([name, [description]]) => [
              name,
              {
                description,
                ...(name === 'TooManyRequests'
                  ? { headers: { 'Retry-After': { description: 'Seconds until the budget allows a request again', schema: { type: 'integer' } } } }
                  : {}),
                content: { 'application/problem+json': { schema: ref('Problem') } },
              },
            ]),
        ),
        ...Object.fromEntries([...conflictVocabularies.values()].map((conflicts) => [conflictResponseName(conflicts), conflictResponse(conflicts)])),
        // Not referenced by an operation (a method a path does not have has no operation): every path answers it.
        MethodNotAllowed: {
          description: 'Any method a path does not list answers 405 METHOD_NOT_ALLOWED, with the methods it takes in Allow',
          headers: { Allow: { description: 'The methods this path takes, e.g. `GET, POST`', schema: { type: 'string' } } },
          content: { 'application/problem+json': { schema: ref('Problem') } },
        },
      },
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer', description: 'An API key: `svc_` followed by 40 characters' },
        cookieAuth: { type: 'apiKey', in: 'cookie', name: options.sessionCookieName, description: 'The session cookie set by sign-in' },
      },
    },
  };
}
