/**
 * The OpenAPI 3.1 document, built from the same compiled route table the
 * router serves, the DTO schemas of src/lib/dto.ts, and the resource types
 * REST returns. Built once at start; served at /docs-json and /docs-yaml and
 * written to schema/openapi.json by `npm run codegen`. What it says of
 * failures is openapi-problems.ts's; response schemas, openapi-schemas.ts's.
 */
import { GraphQLList, GraphQLNonNull, isObjectType, type GraphQLOutputType, type GraphQLSchema } from 'graphql';
import { argumentJsonSchema, namedInputJsonSchemas, namedInputs, type JsonSchema } from '../lib/dto.js';
import type { CompiledGraphQLRoute, CompiledNativeRoute, CompiledRoute } from './compile.js';
import type { NativeResponse, RouteTag } from './route.js';
import {
  conflictReasonName,
  conflictReasonSchema,
  conflictResponse,
  conflictResponseName,
  errorResponses,
  errorResponsesOf,
  problemResponseComponents,
  problemSchema,
  takesIdempotencyKey,
} from './openapi-problems.js';
import { ref, ResponseSchemas } from './openapi-schemas.js';

export interface OpenApiOptions {
  routes: readonly CompiledRoute[];
  /** The schema as REST sees it (relations removed), see flatResourceSchema. */
  restSchema: GraphQLSchema;
  serverUrl: string;
  version: string;
  sessionCookieName: string;
}

export type OpenApiDocument = Record<string, unknown> & { paths: Record<string, Record<string, unknown>> };

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
    ...(route.body ? { requestBody: { required: !route.body.optional, content: { 'application/json': { schema: ref(route.body.name) } } } } : {}),
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
        ...problemResponseComponents(),
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
