/**
 * What a REST route is. A row is either served by running a GraphQL field
 * (arguments, body DTO and permission come from the field), or served by its
 * own handler (redirects, streams, uploads, 202s). Both kinds pass the same
 * gate, tenant guard, permission check, limits and problem+json errors in the
 * router, and both are described in the OpenAPI document from the row itself.
 *
 * operationId = `<controller>Controller<Action>`; the tag is the declaring module's (its manifest says it).
 * Path parameters map to the field argument of the same name, except the last
 * one, which maps to `id` when the field has no argument of its own name.
 */
import type { IncomingMessage } from 'node:http';
import type { z } from 'zod';
import type { OriginPolicy } from '../auth/origins.js';
import type { LazyAuth } from '../auth/better-auth.js';
import type { SessionLookup, Sessions } from '../auth/sessions.js';
import type { Permission } from '../auth/permissions.js';
import type { TenantAccess } from '../auth/tenant-access.js';
import type { Config } from '../config.js';
import type { GraphQLContext } from '../graphql/context.js';
import type { StrictObject } from '../lib/dto.js';
import { commonConflictVocabulary, type ConflictVocabulary } from '../lib/errors.js';
import type { HttpResult } from '../lib/problem.js';
import type { PublicBudget } from '../request/request.js';
import type { MultipartResult, IncomingFile } from './body.js';

/** An OpenAPI tag: the group a module's rows (or the sign-in rows) are documented under. */
export interface RouteTag {
  name: string;
  description: string;
}

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
export type SuccessStatus = 200 | 201 | 202 | 204;

interface RouteBase {
  /** The operationId's prefix: `note` in `noteControllerCreate`. */
  controller: string;
  action: string;
  method: HttpMethod;
  /** OpenAPI-style template: `/tenants/{tenantId}/notes/{noteId}`. */
  path: string;
  summary: string;
}

/** A route served by running a GraphQL field. */
export interface GraphQLRouteSpec extends RouteBase {
  kind?: 'graphql';
  /** The GraphQL field that implements the route. */
  field: `Query.${string}` | `Mutation.${string}`;
  status: SuccessStatus;
  /**
   * A read whose answer REST prints without running the field: the same arguments (validated by the field's
   * schema), the same permission and tenant guard, and the same bytes, from the service's rows, serialised once.
   * For a list whose many fields cost more through GraphQL than the read itself (docs/decisions.md).
   */
  plain?: PlainRead;
}

/** What a plain read is given: the caller's access to the path's tenant (the row's permission passed), and the field's arguments. */
export interface PlainReadRequest<Input = Record<string, unknown>> {
  access: TenantAccess;
  input: Input;
  context: GraphQLContext;
}

/** A plain read: the JSON text of the answer. */
export type PlainRead = (request: PlainReadRequest) => Promise<string>;

/** A plain read typed by the field's arguments (`args`: its schema, which the router has validated the request against). */
export const plainRead =
  <Args extends z.ZodObject>(_args: Args, answer: (request: PlainReadRequest<z.output<Args>>) => Promise<string>): PlainRead =>
  (request) =>
    answer(request as PlainReadRequest<z.output<Args>>);

/** Who may call a native route: anyone (sign-in), any caller, superadmins, or a permission in the path's tenant. */
export type NativeAccess = 'public' | 'authenticated' | 'superadmin' | Permission;

/** Process-wide infrastructure a native handler may need besides the services. */
export interface Platform {
  config: Config;
  auth: LazyAuth;
  sessions: Sessions;
  origins: OriginPolicy;
}

/** A JSON Schema (2020-12, as OpenAPI 3.1 uses it). */
export type JsonSchemaObject = Record<string, unknown>;

export interface NativeResponse {
  description: string;
  headers?: Record<string, string>;
  /** A JSON body, described by its JSON Schema... */
  schema?: JsonSchemaObject;
  /** ...or by a GraphQL object type of the REST schema (`Invoice`), as GraphQL-backed rows are. */
  graphqlType?: string;
  /** A JSON array of `graphqlType` (a feed), not one of them. */
  list?: boolean;
  /** Another body type (a download): its media type, or the ones it may be (besides the JSON, when it has one). */
  contentType?: string | readonly string[];
}

/**
 * `multipart/form-data` with one file field and the text fields of `fields`,
 * read by the router before the handler runs (an Idempotency-Key is claimed
 * once the whole upload is known). `stage` keeps the file as it streams in;
 * `discard` undoes that when the request fails before its handler runs (a
 * bad field, a key that answered before).
 */
export interface MultipartBody<Fields extends StrictObject = StrictObject, Staged = unknown> {
  kind: 'multipart';
  fileField: string;
  fileDescription: string;
  /** The media types the file may be, for the OpenAPI document (its `encoding`); the handler still judges the content. */
  fileTypes?: readonly string[];
  fields: Fields;
  stage(file: IncomingFile, context: GraphQLContext): Promise<Staged>;
  discard?(staged: Staged): Promise<void>;
}

export type NativeBody<Fields extends StrictObject = StrictObject, Staged = unknown> =
  | { kind: 'json'; dto: StrictObject }
  | MultipartBody<Fields, Staged>
  /** The handler reads the body itself (at most 1 MiB), e.g. a provider's form post. */
  | { kind: 'raw' };

export interface NativeRequest<
  Parameters = Record<string, unknown>,
  Body = unknown,
  Access extends TenantAccess | undefined = TenantAccess | undefined,
  Staged = unknown,
> {
  http: IncomingMessage;
  url: URL;
  /** The client's address, as TRUST_PROXY decides. */
  clientAddress: string;
  /** On a public route, the session cookie's lookup the gate made to count the request as its session's. */
  session: SessionLookup | undefined;
  /** Path and query parameters, validated. */
  parameters: Parameters;
  /** A JSON body, validated; undefined for other kinds. */
  body: Body;
  /** The raw body of a `raw` route. */
  rawBody: Buffer | undefined;
  /** The upload of a `multipart` route: its text fields, validated, and what `stage` kept of the file (undefined without one). */
  upload: MultipartResult<Staged> | undefined;
  /**
   * Answers with `record` as REST shows its GraphQL type (`Invoice`): the resource as this request left it. An
   * array answers a JSON array of them (a row whose response is a `list`).
   */
  respond(typeName: string, record: object | readonly object[], status: SuccessStatus): Promise<HttpResult>;
  /**
   * Records of `typeName` as this caller may see them in a file (no GraphQL runs there): its Rate fields, nested
   * ones too, null unless the caller may read rates. Built once per type. Only on rows with a permission.
   */
  visible<Row extends object>(typeName: string): (row: Row) => Row;
  context: GraphQLContext;
  /** The tenant guard's answer: on routes that need a permission (under `/tenants/{tenantId}`), always there. */
  access: Access;
  platform: Platform;
}

/** A route served by its own handler. */
export interface NativeRouteSpec extends RouteBase {
  kind: 'native';
  description: string;
  access: NativeAccess;
  /** Path and query parameters; strict unless the route must take what others send (a provider's callback). */
  parameters: z.ZodObject;
  body?: NativeBody;
  /** By status; the first is the success status. */
  responses: Record<string, NativeResponse>;
  /** Served, but left out of the document (the provider's form-post callback, the sign-in error page). */
  hidden?: boolean;
  /** A read that may still answer 409 with one of its module's reasons (a file an invoice cannot become yet); writes always may. */
  readConflicts?: true;
  /** A public route's budget; `caller` unless said. */
  publicBudget?: PublicBudget;
  handler: (request: NativeRequest) => Promise<HttpResult>;
}

export type RouteSpec = GraphQLRouteSpec | NativeRouteSpec;

/** A row as the route table holds it: with the tag of the module that declared it. */
export type TaggedRouteSpec = RouteSpec & { tag: RouteTag; conflicts: ConflictVocabulary };

/** Puts `routes` under `tag`, with the conflicts their 409s may name (src/routes.ts does it for each module's rows). */
export const tagged = (tag: RouteTag, routes: readonly RouteSpec[], conflicts: ConflictVocabulary = commonConflictVocabulary): TaggedRouteSpec[] =>
  routes.map((route) => ({ ...route, tag, conflicts }));

/** A native route whose handler sees its own parameter, body and upload types. */
export function nativeRoute<
  Parameters extends z.ZodObject,
  Dto extends StrictObject = StrictObject,
  const Access extends NativeAccess = NativeAccess,
  Staged = unknown,
>(
  spec: Omit<NativeRouteSpec, 'parameters' | 'handler' | 'kind' | 'access' | 'body'> & {
    access: Access;
    parameters: Parameters;
    body?: { kind: 'json'; dto: Dto } | MultipartBody<StrictObject, Staged> | { kind: 'raw' };
    handler: (request: NativeRequest<z.output<Parameters>, z.output<Dto>, Access extends string ? undefined : TenantAccess, Staged>) => Promise<HttpResult>;
  },
): NativeRouteSpec {
  return { ...spec, kind: 'native', body: spec.body as NativeBody | undefined, handler: spec.handler as NativeRouteSpec['handler'] };
}

/**
 * The irregular rows of a resource: `step(verb, field, summary)` is a POST to `path/{idParam}/<verb>` answering 200
 * with the mutation's result (`entries/{entryId}/approve`); `action` names the operation when it is not the verb.
 */
export function steps(controller: string, path: string, idParam: string) {
  return (verb: string, field: GraphQLRouteSpec['field'], summary: string, action = verb): GraphQLRouteSpec => ({
    controller,
    action,
    method: 'POST',
    path: `${path}/{${idParam}}/${verb}`,
    field,
    status: 200,
    summary,
  });
}

type CrudAction = 'list' | 'create' | 'get' | 'update' | 'remove';
type CrudRow = GraphQLRouteSpec['field'] | { field: GraphQLRouteSpec['field']; summary?: string; plain?: PlainRead };

const crudRows: Record<CrudAction, { action: string; method: HttpMethod; one: boolean; status: SuccessStatus }> = {
  list: { action: 'findAll', method: 'GET', one: false, status: 200 },
  create: { action: 'create', method: 'POST', one: false, status: 201 },
  get: { action: 'findOne', method: 'GET', one: true, status: 200 },
  update: { action: 'update', method: 'PATCH', one: true, status: 200 },
  remove: { action: 'remove', method: 'DELETE', one: true, status: 204 },
};

/**
 * The regular block of a resource: list and create on `path`, get, update and
 * remove on `path/{idParam}`, in that order. `noun` words the default
 * summaries ("List notes, newest first", "Get a note"...).
 */
export function crud(
  controller: string,
  path: string,
  idParam: string,
  noun: { one: string; many: string },
  rows: Partial<Record<CrudAction, CrudRow>>,
): GraphQLRouteSpec[] {
  const defaults: Record<CrudAction, string> = {
    list: `List ${noun.many}, newest first`,
    create: `Create a ${noun.one}`,
    get: `Get a ${noun.one}`,
    update: `Change a ${noun.one}`,
    remove: `Delete a ${noun.one}`,
  };
  return (Object.keys(crudRows) as CrudAction[]).flatMap((name) => {
    const row = rows[name];
    if (row === undefined) return [];
    const { action, method, one, status } = crudRows[name];
    const { field, summary = defaults[name], plain } = typeof row === 'string' ? { field: row } : row;
    return [{ controller, action, method, path: one ? `${path}/{${idParam}}` : path, field, status, summary, ...(plain ? { plain } : {}) }];
  });
}
