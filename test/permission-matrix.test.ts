/**
 * Walks the permission matrix (src/auth/permissions.ts) against the running
 * API: each role, and an API key, over every REST route that declares a
 * permission, and over the same operation in GraphQL. What each caller may
 * do is read from the route's declared permission and the matrix, never
 * written here; a route without a walk below fails the coverage test, so a
 * new resource cannot land without its matrix tests.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canAny, canSome, type Permission, type Role } from '../src/auth/permissions.js';
import { compileRoutes, type CompiledRoute } from '../src/rest/compile.js';
import { routeTable } from '../src/routes.js';
import { schema } from '../src/schema.js';
import type { ApiClient, Json } from './helpers/http.js';
import { startIdentityProvider, type IdentityProvider } from './helpers/oidc.js';
import { seeder, type SeededTenant } from './helpers/seed.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { uniqueEmail } from './helpers/sessions.js';

let provider: IdentityProvider;
let server: TestServer;
let tenant: SeededTenant;
const callers = new Map<string, { role: Role; api: ApiClient }>();

beforeAll(async () => {
  provider = await startIdentityProvider();
  server = await startTestServer({ env: provider.env });
  const seed = seeder(server, provider);
  const tenantStep = seed.tenant();
  tenant = await tenantStep;
  callers.set('api key', { role: 'admin', api: tenant.api });
  for (const role of ['owner', 'admin', 'manager', 'member'] as const) {
    callers.set(role, { role, api: (await tenantStep.member(role)).api });
  }
});
afterAll(async () => {
  await server?.stop();
  await provider?.close();
});

/** Records an operation works on, made with the tenant's key, so that no person owns them. */
const targets = {
  member: async () => (await tenant.api.post<{ id: string }>(`/tenants/${tenant.id}/users`, { email: uniqueEmail('target') })).body.id,
  note: async () => (await tenant.api.post<{ id: string }>(`/tenants/${tenant.id}/notes`, { content: 'not yours' })).body.id,
  apiKey: async () => (await tenant.api.post<{ id: string }>(`/tenants/${tenant.id}/api-keys`, { name: 'target' })).body.id,
};

async function ownNote(api: ApiClient): Promise<string> {
  const created = await api.post<{ id: string }>(`/tenants/${tenant.id}/notes`, { content: 'mine' });
  if (created.status !== 201) throw new Error(`could not create an own note: ${created.status}`);
  return created.body.id;
}

type Outcome = 'allowed' | 'forbidden' | `unexpected ${string}`;

function restOutcome(status: number): Outcome {
  if (status < 300) return 'allowed';
  return status === 403 ? 'forbidden' : `unexpected ${status}`;
}

async function graphqlOutcome(api: ApiClient, query: string, variables: Json = {}): Promise<Outcome> {
  const response = await api.graphql(query, { tenantId: tenant.id, ...variables });
  const code = response.body.errors?.[0]?.extensions?.code;
  if (code === undefined) return 'allowed';
  return code === 'FORBIDDEN' ? 'forbidden' : `unexpected ${code}`;
}

/**
 * One walk of an operation, over REST and GraphQL. `own`: on a record the
 * caller made (then grants limited to their own records count), or on one
 * they did not (then only unrestricted grants count).
 */
interface Walk {
  own?: boolean;
  rest(api: ApiClient): Promise<number>;
  graphql(api: ApiClient): Promise<Outcome>;
}

const t = () => tenant.id;

interface Walks {
  /** The pair the route must declare, from the role table this service promises. */
  permission: Permission;
  walks: Walk[];
}
const on = (permission: Permission, walks: Walk[]): Walks => ({ permission, walks });

/** Every REST route that declares a permission, by operationId. */
const walks: Record<string, Walks> = {
  tenantControllerFindOne: on(['read', 'Tenant'], [
    {
      rest: async (api) => (await api.get(`/tenants/${t()}`)).status,
      graphql: (api) => graphqlOutcome(api, 'query ($tenantId: ID!) { tenant(tenantId: $tenantId) { id } }'),
    },
  ]),
  tenantControllerUpdate: on(['update', 'Tenant'], [
    {
      rest: async (api) => (await api.patch(`/tenants/${t()}`, { name: 'Renamed' })).status,
      graphql: (api) => graphqlOutcome(api, 'mutation ($tenantId: ID!) { updateTenant(tenantId: $tenantId, input: { name: "Renamed" }) { id } }'),
    },
  ]),
  userControllerFindAll: on(['read', 'TenantUser'], [
    {
      rest: async (api) => (await api.get(`/tenants/${t()}/users`)).status,
      graphql: (api) => graphqlOutcome(api, 'query ($tenantId: ID!) { users(tenantId: $tenantId) { id } }'),
    },
  ]),
  userControllerFindMe: on(['read', 'Tenant'], [
    {
      rest: async (api) => (await api.get(`/tenants/${t()}/users/me`)).status,
      graphql: (api) => graphqlOutcome(api, 'query ($tenantId: ID!) { me(tenantId: $tenantId) { role } }'),
    },
  ]),
  userControllerFindOne: on(['read', 'TenantUser'], [
    {
      rest: async (api) => (await api.get(`/tenants/${t()}/users/${await targets.member()}`)).status,
      graphql: async (api) =>
        graphqlOutcome(api, 'query ($tenantId: ID!, $id: ID!) { user(tenantId: $tenantId, id: $id) { id } }', { id: await targets.member() }),
    },
  ]),
  userControllerCreate: on(['create', 'TenantUser'], [
    {
      rest: async (api) => (await api.post(`/tenants/${t()}/users`, { email: uniqueEmail('new') })).status,
      graphql: (api) =>
        graphqlOutcome(api, 'mutation ($tenantId: ID!, $email: String!) { inviteUser(tenantId: $tenantId, input: { email: $email }) { id } }', {
          email: uniqueEmail('new'),
        }),
    },
  ]),
  userControllerUpdate: on(['update', 'TenantUser'], [
    {
      own: false,
      rest: async (api) => (await api.patch(`/tenants/${t()}/users/${await targets.member()}`, { name: 'Changed' })).status,
      graphql: async (api) =>
        graphqlOutcome(api, 'mutation ($tenantId: ID!, $id: ID!) { updateUser(tenantId: $tenantId, id: $id, input: { name: "Changed" }) { id } }', {
          id: await targets.member(),
        }),
    },
  ]),
  userControllerRemove: on(['delete', 'TenantUser'], [
    {
      own: false,
      rest: async (api) => (await api.delete(`/tenants/${t()}/users/${await targets.member()}`)).status,
      graphql: async (api) =>
        graphqlOutcome(api, 'mutation ($tenantId: ID!, $id: ID!) { removeUser(tenantId: $tenantId, id: $id) { id } }', { id: await targets.member() }),
    },
  ]),
  noteControllerFindAll: on(['read', 'Note'], [
    {
      rest: async (api) => (await api.get(`/tenants/${t()}/notes`)).status,
      graphql: (api) => graphqlOutcome(api, 'query ($tenantId: ID!) { notes(tenantId: $tenantId) { id } }'),
    },
  ]),
  noteControllerFindOne: on(['read', 'Note'], [
    {
      rest: async (api) => (await api.get(`/tenants/${t()}/notes/${await targets.note()}`)).status,
      graphql: async (api) =>
        graphqlOutcome(api, 'query ($tenantId: ID!, $id: ID!) { note(tenantId: $tenantId, id: $id) { id } }', { id: await targets.note() }),
    },
  ]),
  noteControllerCreate: on(['create', 'Note'], [
    {
      rest: async (api) => (await api.post(`/tenants/${t()}/notes`, { content: 'new' })).status,
      graphql: (api) => graphqlOutcome(api, 'mutation ($tenantId: ID!) { createNote(tenantId: $tenantId, input: { content: "new" }) { id } }'),
    },
  ]),
  noteControllerUpdate: on(['update', 'Note'], [false, true].map((own) => ({
    own,
    rest: async (api: ApiClient) =>
      (await api.patch(`/tenants/${t()}/notes/${own ? await ownNote(api) : await targets.note()}`, { content: 'edited' })).status,
    graphql: async (api: ApiClient) =>
      graphqlOutcome(api, 'mutation ($tenantId: ID!, $id: ID!) { updateNote(tenantId: $tenantId, id: $id, input: { content: "edited" }) { id } }', {
        id: own ? await ownNote(api) : await targets.note(),
      }),
  }))),
  noteControllerRemove: on(['delete', 'Note'], [false, true].map((own) => ({
    own,
    rest: async (api: ApiClient) => (await api.delete(`/tenants/${t()}/notes/${own ? await ownNote(api) : await targets.note()}`)).status,
    graphql: async (api: ApiClient) =>
      graphqlOutcome(api, 'mutation ($tenantId: ID!, $id: ID!) { deleteNote(tenantId: $tenantId, id: $id) { id } }', {
        id: own ? await ownNote(api) : await targets.note(),
      }),
  }))),
  apiKeyControllerFindAll: on(['read', 'ApiKey'], [
    {
      rest: async (api) => (await api.get(`/tenants/${t()}/api-keys`)).status,
      graphql: (api) => graphqlOutcome(api, 'query ($tenantId: ID!) { apiKeys(tenantId: $tenantId) { id } }'),
    },
  ]),
  apiKeyControllerCreate: on(['create', 'ApiKey'], [
    {
      rest: async (api) => (await api.post(`/tenants/${t()}/api-keys`, { name: 'walk' })).status,
      graphql: (api) => graphqlOutcome(api, 'mutation ($tenantId: ID!) { createApiKey(tenantId: $tenantId, input: { name: "walk" }) { id } }'),
    },
  ]),
  apiKeyControllerRemove: on(['delete', 'ApiKey'], [
    {
      rest: async (api) => (await api.delete(`/tenants/${t()}/api-keys/${await targets.apiKey()}`)).status,
      graphql: async (api) =>
        graphqlOutcome(api, 'mutation ($tenantId: ID!, $id: ID!) { revokeApiKey(tenantId: $tenantId, id: $id) { id } }', { id: await targets.apiKey() }),
    },
  ]),
};

const permissionRoutes = compileRoutes(schema, routeTable).filter(
  (route): route is CompiledRoute & { access: { kind: 'tenant' } } => route.access.kind === 'tenant',
);

/** What the matrix says about a walk of a route, for a role. */
function expected(role: Role, route: CompiledRoute & { access: { kind: 'tenant' } }, walk: Walk): Outcome {
  const [action, subject] = route.access.permission;
  const granted = walk.own === false ? canAny(role, action, subject) : canSome(role, action, subject);
  return granted ? 'allowed' : 'forbidden';
}

describe('the permission matrix, walked against the running API', () => {
  it('has a walk for every route that declares a permission, and none for routes that do not exist', () => {
    const declared = permissionRoutes.map((route) => route.operationId).sort();
    expect(declared.filter((operationId) => !walks[operationId]), 'routes without a walk').toEqual([]);
    expect(Object.keys(walks).filter((operationId) => !declared.includes(operationId)), 'walks without a route').toEqual([]);
  });

  it('declares on every route the permission the role table promises', () => {
    const declaredPairs = Object.fromEntries(permissionRoutes.map((route) => [route.operationId, route.access.permission]));
    const promised = Object.fromEntries(Object.entries(walks).map(([operationId, entry]) => [operationId, entry.permission]));
    expect(declaredPairs).toEqual(promised);
  });

  it.each(['owner', 'admin', 'manager', 'member', 'api key'])('%s: every route answers as the matrix says, over REST and GraphQL', async (name) => {
    const caller = callers.get(name);
    if (!caller) throw new Error(`no caller ${name}`);
    const answers: string[] = [];
    const wanted: string[] = [];
    for (const route of permissionRoutes) {
      for (const walk of walks[route.operationId]?.walks ?? []) {
        const label = `${route.operationId}${walk.own === undefined ? '' : walk.own ? ' (own)' : ' (others)'}`;
        answers.push(`${label} REST ${restOutcome(await walk.rest(caller.api))}`, `${label} GraphQL ${await walk.graphql(caller.api)}`);
        const outcome = expected(caller.role, route, walk);
        wanted.push(`${label} REST ${outcome}`, `${label} GraphQL ${outcome}`);
      }
    }
    expect(answers).toEqual(wanted);
  });
});

describe('refusals that do not depend on the role', () => {
  it("answers 404 for another tenant's routes whatever the role", async () => {
    const other = await seeder(server).tenant();
    for (const [name, caller] of callers) {
      const response = await caller.api.get<Json>(`/tenants/${other.id}/notes`);
      expect(response.status, name).toBe(404);
    }
  });

  it('answers 403 TENANT_SUSPENDED for every role of a suspended tenant, and restores', async () => {
    await server.app.db.tenant.update({ where: { id: tenant.id }, data: { status: 'suspended' } });
    try {
      for (const [name, caller] of callers) {
        const rest = await caller.api.get<Json>(`/tenants/${tenant.id}/notes`);
        expect(rest.body.code, name).toBe('TENANT_SUSPENDED');
        const graphql = await caller.api.graphql('query ($tenantId: ID!) { notes(tenantId: $tenantId) { id } }', { tenantId: tenant.id });
        expect(graphql.body.errors?.[0]?.extensions?.code, name).toBe('TENANT_SUSPENDED');
      }
    } finally {
      await server.app.db.tenant.update({ where: { id: tenant.id }, data: { status: 'active' } });
    }
  });
});
