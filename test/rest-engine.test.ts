/**
 * sofa-api is the engine of the REST layer (CONTRACT.md section 1): its router
 * registers every GraphQL-backed row from the `routes` config and runs the
 * field; the adapter chooses the row and runs native rows itself. What it
 * serves is what the OpenAPI document says, and its own webhook routes are
 * not reachable.
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildSchema, execute, parse } from 'graphql';
import { useSofa } from 'sofa-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Note } from './generated/openapi/types.gen.js';
import { apiClient, type Json } from './helpers/http.js';
import { seeder, type SeededTenant } from './helpers/seed.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { PreparedInvocation } from '../src/graphql/operations.js';
import type { AppError } from '../src/lib/errors.js';
import { createRestApi } from '../src/rest/router.js';
import { tagged, type RouteSpec } from '../src/rest/route.js';

let server: TestServer;
let tenant: SeededTenant;

beforeAll(async () => {
  server = await startTestServer();
  tenant = await seeder(server).tenant();
});
afterAll(async () => {
  await server?.stop();
});

describe('the REST engine', () => {
  it("answers a row that exists only in sofa's routes config, through sofa's router and handler", async () => {
    // A table of one row: no other router knows this path.
    const rows: RouteSpec[] = [
      {
        controller: 'note',
        action: 'findAll',
        method: 'GET',
        path: '/tenants/{tenantId}/through-sofa',
        field: 'Query.notes',
        status: 200,
        summary: 'Notes, via sofa',
      },
    ];
    const rest = createRestApi({
      schema: server.app.schema,
      table: tagged({ name: 'Notes', description: 'A row made for this test' }, rows),
      log: server.app.log,
      platform: server.app.platform,
      gate: server.app.gate,
      contextFor: server.app.contextFor,
      publicPrefixes: [],
    });
    expect(rest.servedRoutes()).toContainEqual({ method: 'GET', path: '/tenants/:tenantId/through-sofa' });
    const alone = http.createServer(async (request, response) => {
      const url = new URL(request.url ?? '/', 'http://localhost');
      const result = await rest.handle(request, url, { requestId: 'engine-test', log: server.app.log, actor: null, clientAddress: '127.0.0.1' });
      response.writeHead(result.status, result.headers).end(result.body);
    });
    await new Promise<void>((resolve) => alone.listen(0, '127.0.0.1', resolve));
    try {
      const base = `http://127.0.0.1:${(alone.address() as AddressInfo).port}`;
      const note = await tenant.api.post<Note>(`/tenants/${tenant.id}/notes`, { content: 'seen through sofa' });
      // Not through the test client: it checks answers against the app's document, which has no such row.
      const get = (path: string) => fetch(`${base}${path}`, { headers: { authorization: `Bearer ${tenant.key}` } });
      const listed = await get(`/tenants/${tenant.id}/through-sofa?limit=5`);
      expect(listed.status).toBe(200);
      expect(((await listed.json()) as Note[]).map((each) => each.id)).toContain(note.body.id);
      // The query string is the adapter's, validated strictly.
      const bad = await get(`/tenants/${tenant.id}/through-sofa?limit=many`);
      expect(bad.status).toBe(400);
      expect(await bad.json()).toMatchObject({ code: 'VALIDATION_FAILED', errors: [{ path: 'limit' }] });
      // The notes row of the app is not in this table: the path is unknown here.
      expect((await get(`/tenants/${tenant.id}/notes`)).status).toBe(404);
    } finally {
      await new Promise((resolve) => alone.close(resolve));
    }
  });

  it('serves every route of the OpenAPI document, and nothing the document does not name but hidden rows', async () => {
    const document = (await apiClient(server.url).get<{ paths: Record<string, Record<string, unknown>> }>('/docs-json')).body;
    // Parameter names differ (sofa names one after the argument it fills, `:id`; the document after the resource, `{noteId}`).
    const shape = (method: string, path: string): string => `${method.toUpperCase()} ${path.replace(/\{[A-Za-z]+\}|:[A-Za-z]+/g, '*')}`;
    const documented = Object.entries(document.paths).flatMap(([path, methods]) => Object.keys(methods).map((method) => shape(method, path)));
    const hidden = server.app.rest.routes.filter((route) => route.kind === 'native' && route.hidden).map((route) => shape(route.method, route.path));
    const served = server.app.rest.servedRoutes().map((route) => shape(route.method, route.path));
    expect(served.filter((route) => !hidden.includes(route)).sort()).toEqual(documented.sort());
    expect(served.length).toBe(documented.length + hidden.length);
    expect(served.length).toBeGreaterThan(80);
  });

  it("hands sofa's router the plugins it is given (patches/sofa-api+0.18.10.patch): onRoute sees each route sofa registers", () => {
    const schema = buildSchema('type Query { hello: String } type Mutation { wave(name: String): String }');
    const registered: string[] = [];
    useSofa({
      basePath: '/',
      schema,
      plugins: [{ onRoute: ({ route }) => void registered.push(`${route.method} ${route.path}`) }],
      openAPI: { endpoint: false },
      swaggerUI: { endpoint: false },
    });
    expect(registered).toEqual(['GET /hello', 'POST /wave']);
  });

  it("does not reach sofa's own webhook routes (subscriptions by callback)", async () => {
    for (const [method, path] of [
      ['POST', '/webhook'],
      ['POST', '/webhook/1'],
      ['DELETE', '/webhook/1'],
    ] as const) {
      const answer = await tenant.api.request<Json>(
        method,
        path,
        method === 'POST' ? { subscription: 'subscription { x }', url: 'http://127.0.0.1/' } : undefined,
      );
      expect(answer.status, `${method} ${path}`).toBe(404);
      expect(answer.body.code).toBe('NOT_FOUND');
    }
    expect(server.app.rest.servedRoutes().some((route) => route.path.startsWith('/webhook'))).toBe(false);
  });

  it("checks the field's permission on a call REST prepared as on any other: the prepared input admits nobody", async () => {
    const other = await seeder(server).tenant();
    const actor = { type: 'api_key', apiKeyId: randomUUID(), tenantId: other.id, name: 'of another tenant' } as const;
    const context = server.app.contextFor(actor, { requestId: 'prepared', log: server.app.log, actor, clientAddress: '127.0.0.1' });
    const result = await execute({
      schema: server.app.schema,
      document: parse('query ($t: ID!) { notes(tenantId: $t) { id } }'),
      rootValue: new PreparedInvocation('Query.notes', { tenantId: tenant.id }),
      contextValue: context,
      variableValues: { t: tenant.id },
    });
    expect(result.data).toBeNull();
    expect(result.errors?.map((error) => (error.originalError as AppError | undefined)?.code)).toEqual(['NOT_FOUND']);
  });

  it('answers 204 with no body, and 405 with Allow', async () => {
    const note = await tenant.api.post<Note>(`/tenants/${tenant.id}/notes`, { content: 'to go' });
    const deleted = await fetch(`${server.url}/tenants/${tenant.id}/notes/${note.body.id}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${tenant.key}` },
    });
    expect(deleted.status).toBe(204);
    expect(await deleted.text()).toBe('');
    expect(deleted.headers.get('content-type')).toBeNull();
    const wrong = await fetch(`${server.url}/tenants/${tenant.id}/notes/${note.body.id}`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${tenant.key}` },
    });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toBe('GET, PATCH, DELETE');
  });
});
