import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiKey, CreatedApiKey } from './generated/openapi/types.gen.js';
import { testClock } from './helpers/clock.js';
import { runCli } from './helpers/cli.js';
import { seeder } from './helpers/seed.js';
import { apiClient, type Json } from './helpers/http.js';
import { startIdentityProvider, type IdentityProvider } from './helpers/oidc.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { signIn, uniqueEmail, type SignedIn } from './helpers/sessions.js';

let provider: IdentityProvider;
let server: TestServer;
let root: SignedIn;

beforeAll(async () => {
  provider = await startIdentityProvider();
  server = await startTestServer({ env: { ...provider.env, SUPERADMIN_EMAILS: 'root@admin.test' } });
  root = await signIn(server, provider, { email: 'root@admin.test' });
});
afterAll(async () => {
  await server?.stop();
  await provider?.close();
});

/** A key as the API lists it, or as creation returns it (with the secret). */
type ApiKeyRecord = ApiKey & Partial<Pick<CreatedApiKey, 'key'>>;

describe('API keys over the API', () => {
  it('show the secret once, at creation, and never again', async () => {
    const tenant = await seeder(server).tenant();
    const keys = `/tenants/${tenant.tenant.id}/api-keys`;
    const created = await tenant.api.post<ApiKeyRecord>(keys, { name: 'payroll export', expiresInDays: 30 });
    expect(created.status).toBe(201);
    expect(created.body.key).toMatch(/^svc_[0-9A-Za-z]{40}$/);
    expect(created.body).toMatchObject({ name: 'payroll export', prefix: created.body.key?.slice(0, 8), status: 'active', revokedAt: null });
    expect(Date.parse(created.body.expiresAt) - testClock.now().getTime()).toBeGreaterThan(29 * 24 * 3600 * 1000);
    const viaNewKey = apiClient(server.url, { apiKey: created.body.key as string });
    expect((await viaNewKey.get(`/tenants/${tenant.tenant.id}/notes`)).status).toBe(200);

    const listed = await tenant.api.get<ApiKeyRecord[]>(keys);
    expect(listed.body).toHaveLength(2);
    for (const key of listed.body) {
      expect(Object.keys(key).sort()).toEqual(
        ['createdAt', 'createdById', 'createdByType', 'expiresAt', 'id', 'lastUsedAt', 'name', 'prefix', 'revokedAt', 'status', 'tenantId'].sort(),
      );
    }
    expect(listed.text).not.toContain(created.body.key as string);
    const event = await server.app.db.event.findFirstOrThrow({ where: { subjectId: created.body.id, type: 'api_key.created' } });
    expect(JSON.stringify(event.data)).not.toContain(created.body.key as string);
    expect(event.data).not.toHaveProperty('keyHash');
  });

  it('validate the expiry: 1 to 365 days', async () => {
    const tenant = await seeder(server).tenant();
    for (const expiresInDays of [0, 366, 1.5]) {
      const response = await tenant.api.post<Json>(`/tenants/${tenant.tenant.id}/api-keys`, { name: 'x', expiresInDays });
      expect(response.status, String(expiresInDays)).toBe(400);
      expect((response.body.errors as Json[])[0]).toMatchObject({ path: 'expiresInDays' });
    }
  });

  it('fail at once when revoked, on every server process', async () => {
    const tenant = await seeder(server).tenant();
    const second = await startTestServer({ databaseUrl: server.databaseUrl });
    try {
      const created = await tenant.api.post<ApiKeyRecord>(`/tenants/${tenant.tenant.id}/api-keys`, { name: 'short-lived' });
      const onSecond = apiClient(second.url, { apiKey: created.body.key as string });
      expect((await onSecond.get(`/tenants/${tenant.tenant.id}/notes`)).status).toBe(200);
      expect((await tenant.api.delete(`/tenants/${tenant.tenant.id}/api-keys/${created.body.id}`)).status).toBe(204);
      const refused = await onSecond.get<Json>(`/tenants/${tenant.tenant.id}/notes`);
      expect(refused.status).toBe(401);
      expect(refused.body.detail).toBe('The API key has been revoked');
      const listed = await tenant.api.get<ApiKeyRecord[]>(`/tenants/${tenant.tenant.id}/api-keys`);
      expect(listed.body.find((key) => key.id === created.body.id)).toMatchObject({ status: 'revoked' });
      // Revoking again changes nothing; an unknown key is 404.
      expect((await tenant.api.delete(`/tenants/${tenant.tenant.id}/api-keys/${created.body.id}`)).status).toBe(204);
      expect((await tenant.api.delete(`/tenants/${tenant.tenant.id}/api-keys/0199a1f0-0000-7000-8000-000000000000`)).status).toBe(404);
      const events = await server.app.db.event.findMany({ where: { subjectId: created.body.id }, orderBy: { id: 'asc' } });
      expect(events.map((event) => event.type)).toEqual(['api_key.created', 'api_key.revoked']);
    } finally {
      await second.stop();
    }
  });

  it('are created over GraphQL too, with the secret in the answer', async () => {
    const tenant = await seeder(server).tenant();
    const response = await tenant.api.graphql<{ createApiKey: { key: string; status: string; prefix: string } }>(
      'mutation ($tenantId: ID!) { createApiKey(tenantId: $tenantId, input: { name: "gql" }) { key status prefix } }',
      { tenantId: tenant.tenant.id },
    );
    expect(response.body.data?.createApiKey).toMatchObject({ status: 'active' });
    expect(response.body.data?.createApiKey.key.startsWith(response.body.data?.createApiKey.prefix ?? '?')).toBe(true);
  });
});

describe('/admin', () => {
  it('lists tenants with counts, and suspends and restores them', async () => {
    const tenant = await seeder(server).tenant();
    await tenant.api.post(`/tenants/${tenant.tenant.id}/notes`, { content: 'one' });
    await tenant.api.post(`/tenants/${tenant.tenant.id}/users`, { email: uniqueEmail('counted') });
    const listed = await root.api.get<Json[]>('/admin/tenants', { query: { search: tenant.tenant.slug } });
    expect(listed.body).toEqual([
      expect.objectContaining({ id: tenant.tenant.id, status: 'active', noteCount: 1, apiKeyCount: 1, memberCount: 0, entryCount: 0 }),
    ]);

    const suspended = await root.api.patch<Json>(`/admin/tenants/${tenant.tenant.id}`, { status: 'suspended' });
    expect(suspended.body.status).toBe('suspended');
    expect((await tenant.api.get<Json>(`/tenants/${tenant.tenant.id}/notes`)).body.code).toBe('TENANT_SUSPENDED');
    expect((await root.api.get<Json[]>('/admin/tenants', { query: { status: 'suspended' } })).body.map((each) => each.id)).toContain(tenant.tenant.id);
    await root.api.patch(`/admin/tenants/${tenant.tenant.id}`, { status: 'active' });
    expect((await tenant.api.get(`/tenants/${tenant.tenant.id}/notes`)).status).toBe(200);

    expect((await root.api.patch(`/admin/tenants/0199a1f0-0000-7000-8000-000000000000`, { status: 'active' })).status).toBe(404);
    expect((await root.api.patch<Json>(`/admin/tenants/${tenant.tenant.id}`, { status: 'deleted' })).status).toBe(400);
  });

  it('grants and revokes superadmin, and keeps the last one', async () => {
    const person = await signIn(server, provider);
    const found = await root.api.get<Json[]>('/admin/users', { query: { search: person.user.email } });
    expect(found.body).toEqual([expect.objectContaining({ email: person.user.email, isSuperadmin: false })]);
    const userId = found.body[0]?.id as string;

    expect((await person.api.get('/admin/stats')).status).toBe(403);
    const granted = await root.api.patch<Json>(`/admin/users/${userId}`, { isSuperadmin: true });
    expect(granted.body.isSuperadmin).toBe(true);
    // The change applies to the existing session at once.
    expect((await person.api.get('/admin/stats')).status).toBe(200);

    expect((await person.api.patch(`/admin/users/${userId}`, { isSuperadmin: false })).status).toBe(200);
    expect((await person.api.get('/admin/stats')).status).toBe(403);

    const superadmins = await root.api.get<Json[]>('/admin/users', { query: { isSuperadmin: true } });
    expect(superadmins.body.map((user) => user.email)).toEqual(['root@admin.test']);
    const last = await root.api.patch<Json>(`/admin/users/${root.session.user.id}`, { isSuperadmin: false });
    expect(last.status).toBe(409);
    expect(last.body.reason).toBe('LAST_SUPERADMIN');
    expect(last.body.detail).toMatch(/last superadmin/);
  });

  it('counts things across tenants', async () => {
    const stats = await root.api.get<Json>('/admin/stats');
    expect(stats.status).toBe(200);
    expect(stats.body).toMatchObject({
      tenants: await server.app.db.tenant.count(),
      users: await server.app.db.user.count(),
      notes: await server.app.db.note.count(),
      superadmins: 1,
    });
    expect(stats.body.activeSessions).toBeGreaterThanOrEqual(1);
  });
});

describe('tally superadmin', () => {
  const run = (args: string[]) => runCli(args, { DATABASE_URL: server.databaseUrl, LOG_LEVEL: 'warn' });

  it('grant and revoke <email> change the rights of a user who signed in', async () => {
    const person = await signIn(server, provider);
    const granted = await run(['superadmin', 'grant', person.user.email.toUpperCase()]);
    expect(granted.code, granted.output).toBe(0);
    expect(granted.output).toContain(`${person.user.email} is now a superadmin`);
    expect((await person.api.get('/admin/stats')).status).toBe(200);
    const revoked = await run(['superadmin', 'revoke', person.user.email]);
    expect(revoked.code, revoked.output).toBe(0);
    expect((await person.api.get('/admin/stats')).status).toBe(403);

    const unknown = await run(['superadmin', 'grant', 'never-signed-in@example.test']);
    expect(unknown.code).toBe(1);
    expect(unknown.output).toMatch(/never-signed-in@example.test.*sign in first.*SUPERADMIN_EMAILS/s);
  });
});
