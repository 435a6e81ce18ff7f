import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/lib/logger.js';
import { bootstrapDemoTenant } from '../src/modules/platform/tenant/bootstrap.js';
import { apiClient, type Json } from './helpers/http.js';
import { startTestServer, type TestServer } from './helpers/server.js';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.stop();
});

describe('/health', () => {
  it('is public and reports the database', async () => {
    const response = await apiClient(server.url).get<{ status: string; database: Json; version: string }>('/health');
    expect(response.status).toBe(200);
    expect(response.headers.get('x-request-id')).toBeTruthy();
    expect(response.body).toMatchObject({ status: 'ok', database: { status: 'up', embedded: false } });
    expect(response.body.version).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('echoes a sane x-request-id and replaces a bad one', async () => {
    const kept = await apiClient(server.url).get('/health', { headers: { 'x-request-id': 'trace-123' } });
    expect(kept.headers.get('x-request-id')).toBe('trace-123');
    const replaced = await apiClient(server.url).get('/health', { headers: { 'x-request-id': 'bad id\twith spaces' } });
    expect(replaced.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('first-start bootstrap', () => {
  const dependencies = (nodeEnv: 'development' | 'production') => ({
    config: { ...loadConfig({ NODE_ENV: 'development' }), nodeEnv },
    db: server.app.db,
    services: server.app.services,
    log: createLogger('silent'),
  });

  it('is skipped in production', async () => {
    expect(await bootstrapDemoTenant(dependencies('production'))).toBeUndefined();
    expect(await server.app.db.tenant.count()).toBe(0);
  });

  it('creates tenant demo and an admin key on an empty database, once, however many processes start at that moment', async () => {
    // Several processes starting on one empty database all see no tenant; only one may create it, and none may fail.
    const results = await Promise.all(Array.from({ length: 6 }, () => bootstrapDemoTenant(dependencies('development'))));
    const made = results.filter((result) => result !== undefined);
    expect(made).toHaveLength(1);
    const created = made[0];
    expect(created?.key).toMatch(/^svc_/);
    const demo = await server.app.db.tenant.findUniqueOrThrow({ where: { slug: 'demo' } });
    expect(demo.id).toBe(created?.tenantId);

    const api = apiClient(server.url, { apiKey: created?.key as string });
    const note = await api.post<{ id: string }>(`/tenants/${demo.id}/notes`, { content: 'hi' });
    expect(note.status).toBe(201);

    expect(await bootstrapDemoTenant(dependencies('development'))).toBeUndefined();
    expect(await server.app.db.tenant.count()).toBe(1);
    expect(await server.app.db.apiKey.count()).toBe(1);
  });
});
