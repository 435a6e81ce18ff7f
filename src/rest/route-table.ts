/**
 * The REST contract (CONTRACT.md section 5): one row per route. This table
 * drives the REST router (through sofa) and the OpenAPI document; arguments,
 * bodies and permissions come from the GraphQL field the row names. Sign-in
 * routes are `native`: served by their own handler, documented here.
 *
 * operationId = `<controller>Controller<Action>`, tag = the controller's tag.
 * Path parameters map to the field argument of the same name, except the last
 * one, which maps to `id` when the field has no argument of its own name.
 */

export const controllerTags = {
  auth: 'Auth',
  tenant: 'Tenants',
  user: 'Users',
  entry: 'Entries',
  invoice: 'Invoices',
  project: 'Projects',
  taskList: 'TaskLists',
  vehicle: 'Vehicles',
  notification: 'Notifications',
  sync: 'Syncs',
  search: 'Search',
  apiKey: 'ApiKeys',
  webhook: 'Webhooks',
  note: 'Notes',
  admin: 'Admin',
} as const;

export type Controller = keyof typeof controllerTags;
export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
export type SuccessStatus = 200 | 201 | 202 | 204;

/** A route served by running a GraphQL field. */
export interface GraphQLRouteSpec {
  kind?: 'graphql';
  controller: Controller;
  action: string;
  method: HttpMethod;
  /** OpenAPI-style template: `/tenants/{tenantId}/notes/{noteId}`. */
  path: string;
  /** The GraphQL field that implements the route. */
  field: `Query.${string}` | `Mutation.${string}`;
  status: SuccessStatus;
  summary: string;
}

export interface NativeParameter {
  name: string;
  in: 'path' | 'query';
  required: boolean;
  description: string;
  schema: Record<string, unknown>;
}

/** A public route served by its own handler (sign-in); documented here, beside the others. */
export interface NativeRouteSpec {
  kind: 'native';
  controller: Controller;
  action: string;
  method: HttpMethod;
  path: string;
  summary: string;
  description: string;
  parameters: NativeParameter[];
  responses: Record<string, { description: string; headers?: Record<string, string>; schema?: Record<string, unknown> }>;
}

export type RouteSpec = GraphQLRouteSpec | NativeRouteSpec;

const provider: NativeParameter = {
  name: 'provider',
  in: 'path',
  required: true,
  description: 'A configured identity provider: `oidc` (or AUTH_OIDC_PROVIDER_ID), `google`, `github`, `microsoft`',
  schema: { type: 'string', pattern: '^[a-z0-9][a-z0-9_-]*$' },
};

const sessionUser = {
  type: 'object',
  required: ['id', 'name', 'email', 'emailVerified', 'isSuperadmin', 'createdAt', 'updatedAt'],
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    email: { type: 'string' },
    emailVerified: { type: 'boolean' },
    image: { type: ['string', 'null'] },
    isSuperadmin: { type: 'boolean' },
    createdAt: { type: 'string', format: 'date-time' },
    updatedAt: { type: 'string', format: 'date-time' },
  },
};

const sessionRecord = {
  type: 'object',
  required: ['id', 'userId', 'expiresAt', 'createdAt', 'updatedAt'],
  properties: {
    id: { type: 'string' },
    userId: { type: 'string' },
    expiresAt: { type: 'string', format: 'date-time' },
    createdAt: { type: 'string', format: 'date-time' },
    updatedAt: { type: 'string', format: 'date-time' },
    ipAddress: { type: ['string', 'null'] },
    userAgent: { type: ['string', 'null'] },
  },
};

const auth: NativeRouteSpec[] = [
  {
    kind: 'native',
    controller: 'auth',
    action: 'signIn',
    method: 'GET',
    path: '/api/auth/signin/{provider}',
    summary: 'Start signing in with an identity provider',
    description:
      "Redirects (302) to the provider's consent screen. After it, the provider returns to /api/auth/callback/{provider}, " +
      'which sets the session cookie and redirects to `callbackUrl`.',
    parameters: [
      provider,
      {
        name: 'callbackUrl',
        in: 'query',
        required: false,
        description: 'Where to go once signed in: a path on this server, or a URL of a trusted origin. Default /api/auth/session',
        schema: { type: 'string' },
      },
      {
        name: 'errorCallbackUrl',
        in: 'query',
        required: false,
        description: 'Where to go when sign-in fails (`?error=<code>` is added). Default /api/auth/error',
        schema: { type: 'string' },
      },
    ],
    responses: {
      '302': { description: "To the provider's consent screen", headers: { location: 'The provider URL', 'set-cookie': 'The sign-in state cookie' } },
      '400': { description: 'callbackUrl or errorCallbackUrl is not on this server or a trusted origin' },
      '404': { description: 'No such provider is configured' },
    },
  },
  {
    kind: 'native',
    controller: 'auth',
    action: 'callback',
    method: 'GET',
    path: '/api/auth/callback/{provider}',
    summary: 'Return from the identity provider',
    description:
      'Reached by redirect from the provider. Creates or updates the user, account and session, sets the session cookie ' +
      '`service.session_token` (`__Secure-service.session_token` over https) and redirects to the callbackUrl of the sign-in.',
    parameters: [
      provider,
      { name: 'code', in: 'query', required: false, description: 'Supplied by the provider', schema: { type: 'string' } },
      { name: 'state', in: 'query', required: false, description: 'Supplied by the provider', schema: { type: 'string' } },
    ],
    responses: {
      '302': { description: 'Signed in: to callbackUrl. Failed: to errorCallbackUrl with `?error=<code>`', headers: { 'set-cookie': 'The session cookie' } },
    },
  },
  {
    kind: 'native',
    controller: 'auth',
    action: 'signOut',
    method: 'POST',
    path: '/api/auth/signout',
    summary: 'Sign out',
    description:
      'Ends the session of the cookie sent (the cookie then gets 401 everywhere) and clears it. Browsers must send an Origin ' +
      'that is this server or a trusted origin. Signing out without a session also succeeds.',
    parameters: [],
    responses: {
      '200': { description: 'Signed out', schema: { type: 'object', required: ['success'], properties: { success: { type: 'boolean' } } } },
      '403': { description: 'The request came from an untrusted browser origin' },
    },
  },
  {
    kind: 'native',
    controller: 'auth',
    action: 'session',
    method: 'GET',
    path: '/api/auth/session',
    summary: 'The current session and user',
    description: 'Answers 200 with `{session, user}` for a valid session cookie, and 200 with `null` without one (API keys have no session).',
    parameters: [],
    responses: {
      '200': {
        description: 'The session and its user, or null',
        schema: {
          anyOf: [
            { type: 'object', required: ['session', 'user'], properties: { session: sessionRecord, user: sessionUser } },
            { type: 'null' },
          ],
        },
      },
    },
  },
];

const tenants: RouteSpec[] = [
  { controller: 'tenant', action: 'create', method: 'POST', path: '/tenants', field: 'Mutation.createTenant', status: 201, summary: 'Create a tenant (superadmin)' },
  { controller: 'tenant', action: 'findAll', method: 'GET', path: '/tenants', field: 'Query.tenants', status: 200, summary: "List the caller's tenants" },
  { controller: 'tenant', action: 'findOne', method: 'GET', path: '/tenants/{tenantId}', field: 'Query.tenant', status: 200, summary: 'Get a tenant and its settings' },
  { controller: 'tenant', action: 'update', method: 'PATCH', path: '/tenants/{tenantId}', field: 'Mutation.updateTenant', status: 200, summary: 'Change a tenant or its settings' },
];

const users: RouteSpec[] = [
  { controller: 'user', action: 'findAll', method: 'GET', path: '/tenants/{tenantId}/users', field: 'Query.users', status: 200, summary: 'List members' },
  { controller: 'user', action: 'findMe', method: 'GET', path: '/tenants/{tenantId}/users/me', field: 'Query.me', status: 200, summary: 'The caller: member record, role and permissions' },
  { controller: 'user', action: 'findOne', method: 'GET', path: '/tenants/{tenantId}/users/{tenantUserId}', field: 'Query.user', status: 200, summary: 'Get a member' },
  { controller: 'user', action: 'create', method: 'POST', path: '/tenants/{tenantId}/users', field: 'Mutation.inviteUser', status: 201, summary: 'Invite a person by e-mail' },
  { controller: 'user', action: 'update', method: 'PATCH', path: '/tenants/{tenantId}/users/{tenantUserId}', field: 'Mutation.updateUser', status: 200, summary: "Change a member's role, status or rates" },
  { controller: 'user', action: 'remove', method: 'DELETE', path: '/tenants/{tenantId}/users/{tenantUserId}', field: 'Mutation.removeUser', status: 204, summary: 'Remove a member' },
];

const apiKeys: RouteSpec[] = [
  { controller: 'apiKey', action: 'findAll', method: 'GET', path: '/tenants/{tenantId}/api-keys', field: 'Query.apiKeys', status: 200, summary: 'List API keys' },
  { controller: 'apiKey', action: 'create', method: 'POST', path: '/tenants/{tenantId}/api-keys', field: 'Mutation.createApiKey', status: 201, summary: 'Create an API key (its secret is shown once)' },
  { controller: 'apiKey', action: 'remove', method: 'DELETE', path: '/tenants/{tenantId}/api-keys/{apiKeyId}', field: 'Mutation.revokeApiKey', status: 204, summary: 'Revoke an API key' },
];

const admin: RouteSpec[] = [
  { controller: 'admin', action: 'findTenants', method: 'GET', path: '/admin/tenants', field: 'Query.adminTenants', status: 200, summary: 'List every tenant, with counts' },
  { controller: 'admin', action: 'updateTenant', method: 'PATCH', path: '/admin/tenants/{tenantId}', field: 'Mutation.adminUpdateTenant', status: 200, summary: 'Suspend or restore a tenant' },
  { controller: 'admin', action: 'findUsers', method: 'GET', path: '/admin/users', field: 'Query.adminUsers', status: 200, summary: 'List every user' },
  { controller: 'admin', action: 'updateUser', method: 'PATCH', path: '/admin/users/{userId}', field: 'Mutation.adminUpdateUser', status: 200, summary: 'Grant or revoke superadmin' },
  { controller: 'admin', action: 'stats', method: 'GET', path: '/admin/stats', field: 'Query.adminStats', status: 200, summary: 'Counts across all tenants' },
];

const notes: RouteSpec[] = [
  {
    controller: 'note',
    action: 'findAll',
    method: 'GET',
    path: '/tenants/{tenantId}/notes',
    field: 'Query.notes',
    status: 200,
    summary: 'List notes, newest first',
  },
  {
    controller: 'note',
    action: 'create',
    method: 'POST',
    path: '/tenants/{tenantId}/notes',
    field: 'Mutation.createNote',
    status: 201,
    summary: 'Create a note',
  },
  {
    controller: 'note',
    action: 'findOne',
    method: 'GET',
    path: '/tenants/{tenantId}/notes/{noteId}',
    field: 'Query.note',
    status: 200,
    summary: 'Get a note',
  },
  {
    controller: 'note',
    action: 'update',
    method: 'PATCH',
    path: '/tenants/{tenantId}/notes/{noteId}',
    field: 'Mutation.updateNote',
    status: 200,
    summary: 'Change a note (members and managers: their own only)',
  },
  {
    controller: 'note',
    action: 'remove',
    method: 'DELETE',
    path: '/tenants/{tenantId}/notes/{noteId}',
    field: 'Mutation.deleteNote',
    status: 204,
    summary: 'Delete a note (members and managers: their own only)',
  },
];

export const routeTable: readonly RouteSpec[] = [...auth, ...tenants, ...users, ...apiKeys, ...notes, ...admin];
