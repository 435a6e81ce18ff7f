/**
 * Sweeps the live OpenAPI document: every route that is not public answers
 * 401 without credentials, and a member's session is refused the routes of
 * admins and superadmins.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seeder, type SeededTenant } from './helpers/seed.js';
import { apiClient, type Json } from './helpers/http.js';
import { startIdentityProvider, type IdentityProvider } from './helpers/oidc.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { signIn, uniqueEmail, type SignedIn } from './helpers/sessions.js';

type Document = { paths: Record<string, Record<string, { security?: unknown[]; operationId: string }>> };

let provider: IdentityProvider;
let server: TestServer;
let document: Document;
let tenant: SeededTenant;
let member: SignedIn;

beforeAll(async () => {
  provider = await startIdentityProvider();
  server = await startTestServer({ env: provider.env });
  document = (await apiClient(server.url).get<Document>('/docs-json')).body;
  tenant = await seeder(server).tenant();
  const email = uniqueEmail('member');
  await tenant.api.post(`/tenants/${tenant.tenant.id}/users`, { email, role: 'member' });
  member = await signIn(server, provider, { email });
});
afterAll(async () => {
  await server?.stop();
  await provider?.close();
});

function operations(): { method: string; path: string; public: boolean; operationId: string }[] {
  return Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]) => ({
      method: method.toUpperCase(),
      path,
      public: Array.isArray(operation.security) && operation.security.length === 0,
      operationId: operation.operationId,
    })),
  );
}

const concrete = (path: string, tenantId: string) => path.replace('{tenantId}', tenantId).replace(/\{[A-Za-z]+\}/g, '0199a1f0-0000-7000-8000-000000000000');

describe('every route of the OpenAPI document', () => {
  it('answers 401 without credentials unless it is public', async () => {
    const routes = operations();
    expect(routes.filter((route) => !route.public).length).toBeGreaterThan(20);
    const anonymous = apiClient(server.url);
    for (const route of routes.filter((each) => !each.public)) {
      const body = ['POST', 'PATCH', 'PUT'].includes(route.method) ? {} : undefined;
      const response = await anonymous.request<Json>(route.method, concrete(route.path, tenant.tenant.id), body);
      expect(response.status, `${route.method} ${route.path}`).toBe(401);
      expect(response.body.code, `${route.method} ${route.path}`).toBe('UNAUTHENTICATED');
    }
  });

  it('marks only the sign-in routes and the calendar feed (its token is the credential) public', () => {
    expect(
      operations()
        .filter((route) => route.public)
        .map((route) => route.operationId)
        .sort(),
    ).toEqual(['authControllerCallback', 'authControllerSession', 'authControllerSignIn', 'authControllerSignOut', 'calendarControllerFeed']);
  });
});

describe("a member's session", () => {
  it('gets 403 on every /admin route', async () => {
    const adminRoutes = operations().filter((route) => route.path.startsWith('/admin/'));
    expect(adminRoutes.map((route) => route.operationId).sort()).toEqual([
      'adminControllerFindTenants',
      'adminControllerFindUsers',
      'adminControllerStats',
      'adminControllerUpdateTenant',
      'adminControllerUpdateUser',
    ]);
    for (const route of adminRoutes) {
      const body = route.method === 'PATCH' ? (route.path.includes('users') ? { isSuperadmin: true } : { status: 'suspended' }) : undefined;
      const response = await member.api.request<Json>(route.method, concrete(route.path, tenant.tenant.id), body);
      expect(response.status, `${route.method} ${route.path}`).toBe(403);
    }
  });

  it('gets 403 on /admin over GraphQL too, and an API key as well', async () => {
    const viaSession = await member.api.graphql('{ adminStats { tenants } }');
    expect(viaSession.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    expect((await tenant.api.get('/admin/stats')).status).toBe(403);
  });
});
