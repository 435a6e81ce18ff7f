import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256Hex } from '../src/lib/crypto.js';
import { msAgo, testClock } from './helpers/clock.js';
import { seeder, type SeededTenant } from './helpers/seed.js';
import { apiClient, type Json } from './helpers/http.js';
import { startTestServer, type TestServer } from './helpers/server.js';

let server: TestServer;
let alpha: SeededTenant;
let beta: SeededTenant;

beforeAll(async () => {
  server = await startTestServer();
  [alpha, beta] = await Promise.all([seeder(server).tenant(), seeder(server).tenant()]);
});
afterAll(async () => {
  await server?.stop();
});

const notesOf = (tenant: SeededTenant): string => `/tenants/${tenant.tenant.id}/notes`;

describe('the authentication gate', () => {
  it.each([
    ['no credentials', {}, /Authentication required/],
    ['an unknown key', { authorization: 'Bearer svc_thisKeyDoesNotExist0000000000000000000' }, /not valid/],
    ['a key without the svc_ prefix', { authorization: 'Bearer abc' }, /not valid/],
    ['another scheme', { authorization: 'Basic dXNlcjpwYXNz' }, /Bearer svc_/],
    ['a bearer without a token', { authorization: 'Bearer' }, /Bearer svc_/],
  ])('answers %s with 401 problem+json', async (_case, headers, detail) => {
    const response = await apiClient(server.url).get<Json>(notesOf(alpha), { headers });
    expect(response.status).toBe(401);
    expect(response.headers.get('content-type')).toBe('application/problem+json');
    expect(response.headers.get('www-authenticate')).toBe('Bearer');
    expect(response.body).toMatchObject({ status: 401, code: 'UNAUTHENTICATED' });
    expect(String(response.body.detail)).toMatch(detail);
  });

  it('answers unknown paths with 401 too, so routes cannot be probed anonymously', async () => {
    expect((await apiClient(server.url).get('/no/such/route')).status).toBe(401);
  });

  it('refuses GraphQL operations without credentials with a GraphQL-shaped 401', async () => {
    const response = await apiClient(server.url).graphql('{ __typename }');
    expect(response.status).toBe(401);
    expect(response.body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
  });

  it('serves the public routes without credentials', async () => {
    const anonymous = apiClient(server.url);
    expect((await anonymous.get('/health')).status).toBe(200);
    expect((await anonymous.get('/docs-json')).status).toBe(200);
    expect((await anonymous.get('/docs-yaml')).status).toBe(200);
    expect((await anonymous.get('/docs')).status).toBe(200);
    const graphiql = await anonymous.get('/graphql', { headers: { accept: 'text/html' } });
    expect(graphiql.status).toBe(200);
    expect(graphiql.text).toMatch(/GraphiQL|graphiql/);
  });

  it('refuses a revoked key at once', async () => {
    const own = await seeder(server).tenant();
    expect((await own.api.get(notesOf(own))).status).toBe(200);
    await server.app.db.apiKey.update({ where: { id: own.apiKeyId }, data: { revokedAt: new Date() } });
    const response = await own.api.get<Json>(notesOf(own));
    expect(response.status).toBe(401);
    expect(response.body.detail).toBe('The API key has been revoked');
  });

  it('refuses an expired key', async () => {
    const own = await seeder(server).tenant();
    await server.app.db.apiKey.update({ where: { id: own.apiKeyId }, data: { expiresAt: msAgo(1000) } });
    const response = await own.api.get<Json>(notesOf(own));
    expect(response.status).toBe(401);
    expect(response.body.detail).toBe('The API key has expired');
  });

  it('keeps lastUsedAt', async () => {
    const own = await seeder(server).tenant();
    const before = await server.app.db.apiKey.findUniqueOrThrow({ where: { id: own.apiKeyId } });
    expect(before.lastUsedAt).toBeNull();
    await own.api.get(notesOf(own));
    const after = await server.app.db.apiKey.findUniqueOrThrow({ where: { id: own.apiKeyId } });
    expect(after.lastUsedAt?.getTime()).toBeGreaterThan(testClock.now().getTime() - 60_000);
  });

  it('stores only the SHA-256 of the key, and a display prefix', async () => {
    const stored = await server.app.db.apiKey.findUniqueOrThrow({ where: { id: alpha.apiKeyId } });
    expect(alpha.key).toMatch(/^svc_[0-9A-Za-z]{40}$/);
    expect(stored.keyHash).toBe(sha256Hex(alpha.key));
    expect(stored.prefix).toBe(alpha.key.slice(0, 8));
    expect(JSON.stringify(stored)).not.toContain(alpha.key);
    expect(stored.expiresAt.getTime() - stored.createdAt.getTime()).toBeCloseTo(90 * 24 * 3600 * 1000, -4);
  });
});

describe('tenant isolation', () => {
  it("reports another tenant's notes as 404, over REST and GraphQL", async () => {
    const secret = await beta.api.post<{ id: string }>(notesOf(beta), { content: 'beta only' });
    expect(secret.status).toBe(201);

    // alpha's key on beta's paths: the tenant itself is not found for alpha.
    for (const response of [
      await alpha.api.get<Json>(notesOf(beta)),
      await alpha.api.get<Json>(`${notesOf(beta)}/${secret.body.id}`),
      await alpha.api.post<Json>(notesOf(beta), { content: 'intrusion' }),
      await alpha.api.delete<Json>(`${notesOf(beta)}/${secret.body.id}`),
    ]) {
      expect(response.status).toBe(404);
      expect(response.body.code).toBe('NOT_FOUND');
    }
    // beta's note through alpha's own tenant path: not there either.
    expect((await alpha.api.get(`${notesOf(alpha)}/${secret.body.id}`)).status).toBe(404);
    expect((await alpha.api.patch(`${notesOf(alpha)}/${secret.body.id}`, { content: 'x' })).status).toBe(404);

    const viaGraphql = await alpha.api.graphql('query ($tenantId: ID!, $id: ID!) { note(tenantId: $tenantId, id: $id) { content } }', {
      tenantId: beta.tenant.id,
      id: secret.body.id,
    });
    expect(viaGraphql.body.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    expect(JSON.stringify(viaGraphql.body)).not.toContain('beta only');

    const untouched = await beta.api.get<{ content: string }>(`${notesOf(beta)}/${secret.body.id}`);
    expect(untouched.body.content).toBe('beta only');
  });
});
