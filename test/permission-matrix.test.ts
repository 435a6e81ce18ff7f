/**
 * Walks the permission matrix (src/auth/permissions.ts)
 * against the running API: each role, and an API key, times each subject
 * whose module exists, times each action, over REST and over GraphQL. A
 * granted action must succeed and a refused one must answer 403 FORBIDDEN,
 * the same way on both.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemActor } from '../src/auth/actor.js';
import { actions, canAny, canSome, grantsOf, type Action, type Role, type Subject } from '../src/auth/permissions.js';
import { systemAccess } from '../src/auth/tenant-access.js';
import type { Tenant } from '../src/generated/prisma/client.js';
import { createTenantWithKey } from './helpers/fixtures.js';
import type { ApiClient, Json } from './helpers/http.js';
import { startIdentityProvider, type IdentityProvider } from './helpers/oidc.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { signIn, uniqueEmail } from './helpers/sessions.js';

let provider: IdentityProvider;
let server: TestServer;
let tenant: Tenant;
const callers = new Map<string, { role: Role; api: ApiClient }>();

beforeAll(async () => {
  provider = await startIdentityProvider();
  server = await startTestServer({ env: provider.env });
  const withKey = await createTenantWithKey(server);
  tenant = withKey.tenant;
  callers.set('api key', { role: 'admin', api: withKey.api });
  for (const role of ['owner', 'admin', 'manager', 'member'] as const) {
    const email = uniqueEmail(role);
    await server.app.services.users.invite(systemAccess(tenant, systemActor('test')), { email, role });
    callers.set(role, { role, api: (await signIn(server, provider, { email })).api });
  }
});
afterAll(async () => {
  await server?.stop();
  await provider?.close();
});

const system = () => systemAccess(tenant, systemActor('test'));

/** Records an operation works on, made by the system, so nobody owns them. */
const targets = {
  member: async () => (await server.app.services.users.invite(system(), { email: uniqueEmail('target'), role: 'member' })).id,
  note: async () => (await server.app.services.notes.create(system(), { content: 'not yours' })).id,
  apiKey: async () => (await server.app.services.apiKeys.create(system(), { name: 'target', expiresInDays: 90 })).apiKey.id,
};

type Outcome = 'allowed' | 'forbidden' | `unexpected ${string}`;

function restOutcome(status: number): Outcome {
  if (status < 300) return 'allowed';
  return status === 403 ? 'forbidden' : `unexpected ${status}`;
}

function graphqlOutcome(response: { body: { errors?: { extensions?: { code?: string } }[] } }): Outcome {
  const code = response.body.errors?.[0]?.extensions?.code;
  if (code === undefined) return 'allowed';
  return code === 'FORBIDDEN' ? 'forbidden' : `unexpected ${code}`;
}

interface Operation {
  subject: Subject;
  action: Action;
  /** On a record the caller made (update/delete of own records). */
  own?: boolean;
  rest(api: ApiClient): Promise<Outcome>;
  graphql(api: ApiClient): Promise<Outcome>;
}

const t = () => tenant.id;
const gql = async (api: ApiClient, query: string, variables: Json = {}) =>
  graphqlOutcome(await api.graphql(query, { tenantId: t(), ...variables }));

async function ownNote(api: ApiClient): Promise<string> {
  const created = await api.post<{ id: string }>(`/tenants/${t()}/notes`, { content: 'mine' });
  if (created.status !== 201) throw new Error(`could not create an own note: ${created.status}`);
  return created.body.id;
}

const operations: Operation[] = [
  {
    subject: 'Tenant',
    action: 'read',
    rest: async (api) => restOutcome((await api.get(`/tenants/${t()}`)).status),
    graphql: (api) => gql(api, 'query ($tenantId: ID!) { tenant(tenantId: $tenantId) { id } }'),
  },
  {
    subject: 'Tenant',
    action: 'update',
    rest: async (api) => restOutcome((await api.patch(`/tenants/${t()}`, { name: 'Renamed' })).status),
    graphql: (api) => gql(api, 'mutation ($tenantId: ID!) { updateTenant(tenantId: $tenantId, input: { name: "Renamed" }) { id } }'),
  },
  {
    subject: 'TenantUser',
    action: 'read',
    rest: async (api) => restOutcome((await api.get(`/tenants/${t()}/users`)).status),
    graphql: (api) => gql(api, 'query ($tenantId: ID!) { users(tenantId: $tenantId) { id } }'),
  },
  {
    subject: 'TenantUser',
    action: 'create',
    rest: async (api) => restOutcome((await api.post(`/tenants/${t()}/users`, { email: uniqueEmail('new') })).status),
    graphql: (api) =>
      gql(api, 'mutation ($tenantId: ID!, $email: String!) { inviteUser(tenantId: $tenantId, input: { email: $email }) { id } }', {
        email: uniqueEmail('new'),
      }),
  },
  {
    subject: 'TenantUser',
    action: 'update',
    rest: async (api) => restOutcome((await api.patch(`/tenants/${t()}/users/${await targets.member()}`, { name: 'Changed' })).status),
    graphql: async (api) =>
      gql(api, 'mutation ($tenantId: ID!, $id: ID!) { updateUser(tenantId: $tenantId, id: $id, input: { name: "Changed" }) { id } }', {
        id: await targets.member(),
      }),
  },
  {
    subject: 'TenantUser',
    action: 'delete',
    rest: async (api) => restOutcome((await api.delete(`/tenants/${t()}/users/${await targets.member()}`)).status),
    graphql: async (api) =>
      gql(api, 'mutation ($tenantId: ID!, $id: ID!) { removeUser(tenantId: $tenantId, id: $id) { id } }', { id: await targets.member() }),
  },
  {
    subject: 'Note',
    action: 'read',
    rest: async (api) => restOutcome((await api.get(`/tenants/${t()}/notes`)).status),
    graphql: (api) => gql(api, 'query ($tenantId: ID!) { notes(tenantId: $tenantId) { id } }'),
  },
  {
    subject: 'Note',
    action: 'create',
    rest: async (api) => restOutcome((await api.post(`/tenants/${t()}/notes`, { content: 'new' })).status),
    graphql: (api) => gql(api, 'mutation ($tenantId: ID!) { createNote(tenantId: $tenantId, input: { content: "new" }) { id } }'),
  },
  ...([false, true] as const).flatMap((own): Operation[] => [
    {
      subject: 'Note',
      action: 'update',
      own,
      rest: async (api) =>
        restOutcome((await api.patch(`/tenants/${t()}/notes/${own ? await ownNote(api) : await targets.note()}`, { content: 'edited' })).status),
      graphql: async (api) =>
        gql(api, 'mutation ($tenantId: ID!, $id: ID!) { updateNote(tenantId: $tenantId, id: $id, input: { content: "edited" }) { id } }', {
          id: own ? await ownNote(api) : await targets.note(),
        }),
    },
    {
      subject: 'Note',
      action: 'delete',
      own,
      rest: async (api) => restOutcome((await api.delete(`/tenants/${t()}/notes/${own ? await ownNote(api) : await targets.note()}`)).status),
      graphql: async (api) =>
        gql(api, 'mutation ($tenantId: ID!, $id: ID!) { deleteNote(tenantId: $tenantId, id: $id) { id } }', {
          id: own ? await ownNote(api) : await targets.note(),
        }),
    },
  ]),
  {
    subject: 'ApiKey',
    action: 'read',
    rest: async (api) => restOutcome((await api.get(`/tenants/${t()}/api-keys`)).status),
    graphql: (api) => gql(api, 'query ($tenantId: ID!) { apiKeys(tenantId: $tenantId) { id } }'),
  },
  {
    subject: 'ApiKey',
    action: 'create',
    rest: async (api) => restOutcome((await api.post(`/tenants/${t()}/api-keys`, { name: 'walk' })).status),
    graphql: (api) => gql(api, 'mutation ($tenantId: ID!) { createApiKey(tenantId: $tenantId, input: { name: "walk" }) { id } }'),
  },
  {
    subject: 'ApiKey',
    action: 'delete',
    rest: async (api) => restOutcome((await api.delete(`/tenants/${t()}/api-keys/${await targets.apiKey()}`)).status),
    graphql: async (api) =>
      gql(api, 'mutation ($tenantId: ID!, $id: ID!) { revokeApiKey(tenantId: $tenantId, id: $id) { id } }', { id: await targets.apiKey() }),
  },
];

/** What the matrix says: on a record of someone else's only unrestricted grants count. */
function expected(role: Role, operation: Operation): Outcome {
  const { action, subject } = operation;
  const granted = operation.own === false ? canAny(role, action, subject) : canSome(role, action, subject);
  return granted ? 'allowed' : 'forbidden';
}

describe('the permission matrix, walked against the running API', () => {
  const walked = ['owner', 'admin', 'manager', 'member', 'api key'];

  it.each(walked)('%s: every operation answers as the matrix says, over REST and GraphQL', async (name) => {
    const caller = callers.get(name);
    if (!caller) throw new Error(`no caller ${name}`);
    const answers: string[] = [];
    const wanted: string[] = [];
    for (const operation of operations) {
      const label = `${operation.subject}.${operation.action}${operation.own === undefined ? '' : operation.own ? ' (own)' : ' (others)'}`;
      answers.push(`${label} REST ${await operation.rest(caller.api)}`, `${label} GraphQL ${await operation.graphql(caller.api)}`);
      const outcome = expected(caller.role, operation);
      wanted.push(`${label} REST ${outcome}`, `${label} GraphQL ${outcome}`);
    }
    expect(answers).toEqual(wanted);
  });

  it('covers every action the matrix grants on the subjects that exist', () => {
    const walkedPairs = new Set(operations.map((operation) => `${operation.action} ${operation.subject}`));
    const subjects = new Set(operations.map((operation) => operation.subject));
    for (const role of ['owner', 'admin', 'manager', 'member'] as const) {
      for (const grant of grantsOf(role).filter((each) => subjects.has(each.subject))) {
        const covered =
          grant.action === 'manage'
            ? ['read', 'create', 'update', 'delete'].some((action) => walkedPairs.has(`${action} ${grant.subject}`))
            : walkedPairs.has(`${grant.action} ${grant.subject}`);
        expect(covered, `${role}: ${grant.action} ${grant.subject}`).toBe(true);
      }
    }
    expect(actions).toContain('approve');
  });

  it('agrees with the contract table on the cells that matter most', () => {
    expect(canSome('member', 'create', 'ApiKey')).toBe(false);
    expect(canSome('manager', 'create', 'ApiKey')).toBe(false);
    expect(canSome('manager', 'update', 'TenantUser')).toBe(false);
    expect(canAny('member', 'update', 'Note')).toBe(false);
    expect(canSome('member', 'update', 'Note')).toBe(true);
    expect(canSome('admin', 'approve', 'Entry')).toBe(true);
    expect(canSome('admin', 'approve', 'Note')).toBe(false);
    expect(canSome('member', 'update', 'Tenant')).toBe(false);
  });
});

describe('refusals that do not depend on the role', () => {
  it("answers 404 for another tenant's routes whatever the role", async () => {
    const other = await createTenantWithKey(server);
    for (const [name, caller] of callers) {
      const response = await caller.api.get<Json>(`/tenants/${other.tenant.id}/notes`);
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
