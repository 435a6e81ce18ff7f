/**
 * What one request costs the database. A request with an API key reads the
 * key and its tenant in one statement, so that a list is two statements
 * whatever the page size (no N+1), and another process's revocation or
 * suspension is seen by the very next request.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seeder, type SeededTenant } from './helpers/seed.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { apiClient } from './helpers/http.js';

let server: TestServer;
let tenant: SeededTenant;
const statements: string[] = [];

beforeAll(async () => {
  // The API role only: the statements counted are the requests' own, not the workers'.
  server = await startTestServer({ env: { ROLE: 'api' }, onQuery: (sql) => statements.push(sql) });
  tenant = await seeder(server).tenant();
  for (let index = 0; index < 60; index += 1) await tenant.api.post(`/tenants/${tenant.id}/notes`, { content: `note ${index}` });
});
afterAll(async () => {
  await server?.stop();
});

async function statementsOf(request: () => Promise<{ status: number }>): Promise<number> {
  statements.length = 0;
  const response = await request();
  expect(response.status).toBeLessThan(300);
  return statements.length;
}

describe('statements per request with an API key', () => {
  it('are two for a list, whatever the page size, over REST and GraphQL', async () => {
    const notes = `/tenants/${tenant.id}/notes`;
    expect(await statementsOf(() => tenant.api.get(notes, { query: { limit: 5 } }))).toBe(2);
    expect(await statementsOf(() => tenant.api.get(notes, { query: { limit: 60 } }))).toBe(2);
    const query = 'query ($t: ID!, $l: Int) { notes(tenantId: $t, limit: $l) { id content createdAt } }';
    expect(await statementsOf(() => tenant.api.graphql(query, { t: tenant.id, l: 5 }))).toBe(2);
    expect(await statementsOf(() => tenant.api.graphql(query, { t: tenant.id, l: 60 }))).toBe(2);
  });

  it("are three for a page of projects with what they have spent: one grouped statement for the page's budgets", async () => {
    const projects = `/tenants/${tenant.id}/projects`;
    for (let index = 0; index < 12; index += 1) {
      await tenant.api.post(projects, { name: `project ${index}`, budgetHours: 10, budgetPeriod: index % 2 === 0 ? 'total' : 'monthly' });
    }
    expect(await statementsOf(() => tenant.api.get(projects, { query: { limit: 2 } }))).toBe(3);
    expect(await statementsOf(() => tenant.api.get(projects, { query: { limit: 12 } }))).toBe(3);
    const query = 'query ($t: ID!, $l: Int) { projects(tenantId: $t, limit: $l) { id spentMinutes spentAmount } }';
    expect(await statementsOf(() => tenant.api.graphql(query, { t: tenant.id, l: 12 }))).toBe(3);
    // Without the spent fields, GraphQL reads no budgets at all.
    expect(await statementsOf(() => tenant.api.graphql('query ($t: ID!) { projects(tenantId: $t, limit: 12) { id name } }', { t: tenant.id }))).toBe(2);
  });

  it('are two for one record', async () => {
    const [first] = (await tenant.api.get<{ id: string }[]>(`/tenants/${tenant.id}/notes`, { query: { limit: 1 } })).body;
    expect(await statementsOf(() => tenant.api.get(`/tenants/${tenant.id}/notes/${first?.id}`))).toBe(2);
  });
});

describe('what another process changes', () => {
  it('refuses a tenant suspended there on the very next request here, and admits it again once restored', async () => {
    const other = await startTestServer({ databaseUrl: server.databaseUrl });
    try {
      const here = apiClient(other.url, { apiKey: tenant.key });
      expect((await here.get(`/tenants/${tenant.id}/notes`)).status).toBe(200);
      await server.app.db.tenant.update({ where: { id: tenant.id }, data: { status: 'suspended' } });
      const refused = await here.get<{ code: string }>(`/tenants/${tenant.id}/notes`);
      expect(refused.status).toBe(403);
      expect(refused.body.code).toBe('TENANT_SUSPENDED');
      await server.app.db.tenant.update({ where: { id: tenant.id }, data: { status: 'active' } });
      expect((await here.get(`/tenants/${tenant.id}/notes`)).status).toBe(200);
    } finally {
      await other.stop();
    }
  });
});
