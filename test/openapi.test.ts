import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createClient as generateClient } from '@hey-api/openapi-ts';
import { parse as parseYaml } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routeTable } from '../src/routes.js';
import { seeder } from './helpers/seed.js';
import { apiClient, type Json } from './helpers/http.js';
import { startTestServer, type TestServer } from './helpers/server.js';

type Operation = {
  operationId: string;
  tags: string[];
  parameters: { name: string; in: string; required: boolean; schema: Json }[];
  requestBody?: { content: { 'application/json': { schema: { $ref: string } } } };
  responses: Record<string, Json>;
};
type Document = {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Json>; responses: Record<string, Json>; securitySchemes: Record<string, Json> };
};

let server: TestServer;
let document: Document;

beforeAll(async () => {
  server = await startTestServer();
  document = (await apiClient(server.url).get<Document>('/docs-json')).body;
});
afterAll(async () => {
  await server?.stop();
});

function resolve(ref: string): unknown {
  return ref
    .replace(/^#\//, '')
    .split('/')
    .reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], document);
}

function refsIn(value: unknown, found: string[] = []): string[] {
  if (Array.isArray(value)) {
    for (const item of value) refsIn(item, found);
  } else if (value && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      if (key === '$ref' && typeof item === 'string') found.push(item);
      else refsIn(item, found);
    }
  }
  return found;
}

describe('the OpenAPI document', () => {
  it('is the same document at /docs-json and /docs-yaml', async () => {
    const yaml = await apiClient(server.url).get('/docs-yaml');
    expect(yaml.headers.get('content-type')).toMatch(/yaml/);
    expect(parseYaml(yaml.text)).toEqual(document);
    expect(document.openapi).toBe('3.1.0');
  });

  it('has every route of the table with its operationId, tag and method', () => {
    for (const route of routeTable.filter((row) => row.kind !== 'native' || !row.hidden)) {
      const operation = document.paths[route.path]?.[route.method.toLowerCase()];
      const action = route.action.charAt(0).toUpperCase() + route.action.slice(1);
      expect(operation?.operationId, `${route.method} ${route.path}`).toBe(`${route.controller}Controller${action}`);
      expect(operation?.tags).toHaveLength(1);
      const successStatus = route.kind === 'native' ? Object.keys(route.responses)[0] : String(route.status);
      expect(operation?.responses[successStatus as string]).toBeDefined();
    }
  });

  it('describes the notes routes: operationIds, tags, parameters, DTOs and answers', () => {
    const list = document.paths['/tenants/{tenantId}/notes']?.get as Operation;
    const create = document.paths['/tenants/{tenantId}/notes']?.post as Operation;
    const one = document.paths['/tenants/{tenantId}/notes/{noteId}'] as Record<string, Operation>;
    expect([list, create, one.get, one.patch, one.delete].map((operation) => operation?.operationId)).toEqual([
      'noteControllerFindAll',
      'noteControllerCreate',
      'noteControllerFindOne',
      'noteControllerUpdate',
      'noteControllerRemove',
    ]);
    for (const operation of [list, create, one.get, one.patch, one.delete]) expect(operation?.tags).toEqual(['Notes']);

    const parameters = (operation: Operation | undefined) => operation?.parameters.map((parameter) => `${parameter.in}:${parameter.name}`);
    expect(parameters(list)).toEqual(['path:tenantId', 'query:limit', 'query:offset']);
    expect(parameters(create)).toEqual(['path:tenantId', 'header:Idempotency-Key']);
    expect(parameters(one.get)).toEqual(['path:tenantId', 'path:noteId']);
    expect(parameters(one.patch)).toEqual(['path:tenantId', 'path:noteId', 'header:Idempotency-Key']);
    expect(parameters(one.delete)).toEqual(['path:tenantId', 'path:noteId']);
    for (const parameter of [...(list?.parameters ?? []), ...(one.patch?.parameters ?? [])]) {
      if (parameter.in === 'path') expect(parameter.required).toBe(true);
    }
    expect(list?.parameters.find((parameter) => parameter.name === 'limit')?.schema).toMatchObject({ minimum: 1, maximum: 200, default: 50 });

    expect(create?.requestBody?.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/CreateNoteDto' });
    expect(one.patch?.requestBody?.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/UpdateNoteDto' });
    expect(list?.requestBody).toBeUndefined();

    expect(create?.responses['201']).toMatchObject({ content: { 'application/json': { schema: { $ref: '#/components/schemas/Note' } } } });
    expect(list?.responses['200']).toMatchObject({
      content: { 'application/json': { schema: { type: 'array', items: { $ref: '#/components/schemas/Note' } } } },
    });
    expect(one.delete?.responses['204']).toBeDefined();
    expect(create?.responses['401']).toEqual({ $ref: '#/components/responses/Unauthorized' });
    expect(create?.responses['413']).toEqual({ $ref: '#/components/responses/PayloadTooLarge' });
  });

  it('takes Idempotency-Key on every POST and PATCH of a caller, with its 422', () => {
    let writes = 0;
    for (const [path, operations] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(operations as Record<string, Operation & { security?: unknown[] }>)) {
        const takesKey = operation.parameters.some((parameter) => parameter.in === 'header' && parameter.name === 'Idempotency-Key');
        const isPublic = Array.isArray(operation.security) && operation.security.length === 0;
        const write = (method === 'post' || method === 'patch') && !isPublic;
        if (write) writes++;
        expect(takesKey, `${method} ${path}`).toBe(write);
        expect(operation.responses['422'] !== undefined, `${method} ${path}`).toBe(write);
        if (write) expect(operation.responses['422']).toEqual({ $ref: '#/components/responses/IdempotencyKeyReused' });
      }
    }
    expect(writes).toBeGreaterThan(30);
    expect(JSON.stringify(document.components.schemas.NoteConflictReason ?? document.components.schemas.CommonConflictReason)).toContain(
      'IDEMPOTENCY_KEY_IN_USE',
    );
  });

  it('has non-empty Create/Update DTOs', () => {
    for (const name of ['CreateNoteDto', 'UpdateNoteDto']) {
      const schema = document.components.schemas[name] as { properties: Json; required: string[]; additionalProperties: boolean };
      expect(Object.keys(schema.properties)).toEqual(['content']);
      expect(schema.properties.content).toMatchObject({ type: 'string', minLength: 1, maxLength: 10000 });
      expect(schema.required).toEqual(['content']);
      expect(schema.additionalProperties).toBe(false);
    }
    const names = Object.keys(document.components.schemas);
    for (const name of names.filter((schemaName) => /^(Create|Update)[A-Z]\w*Dto$/.test(schemaName))) {
      expect(Object.keys((document.components.schemas[name] as { properties?: Json }).properties ?? {}).length, name).toBeGreaterThan(0);
    }
  });

  it('has no dangling $ref', () => {
    const refs = refsIn(document);
    expect(refs.length).toBeGreaterThan(0);
    for (const ref of refs) expect(resolve(ref), ref).toBeDefined();
  });

  it('declares both credentials, and security on every operation', () => {
    expect(Object.keys(document.components.securitySchemes).sort()).toEqual(['bearerAuth', 'cookieAuth']);
    expect(document.components.securitySchemes.cookieAuth).toMatchObject({ in: 'cookie', name: 'service.session_token' });
  });

  it('generates a working client with @hey-api/openapi-ts: one class per tag, methods by operationId', async () => {
    const output = fs.mkdtempSync(path.join(os.tmpdir(), 'tally-client-'));
    try {
      await generateClient({
        input: document as unknown as Record<string, unknown>,
        output: { path: output },
        logs: { level: 'silent' },
        plugins: ['@hey-api/client-fetch', { name: '@hey-api/sdk', operations: { strategy: 'byTags' } }],
      });
      type Result = { data?: Json & { id?: string; content?: string }; error?: Json; response: Response };
      type Method = (options: { path?: Json; query?: Json; body?: Json }) => Promise<Result>;
      const sdk = (await import(path.join(output, 'sdk.gen.ts'))) as { Notes: Record<string, Method> };
      const { client } = (await import(path.join(output, 'client.gen.ts'))) as { client: { setConfig(config: Json): void } };
      const tenant = await seeder(server).tenant();
      client.setConfig({ baseUrl: server.url, auth: () => tenant.key });

      const created = await sdk.Notes.noteControllerCreate!({ path: { tenantId: tenant.tenant.id }, body: { content: 'generated' } });
      expect(created.response.status).toBe(201);
      expect(created.data?.content).toBe('generated');
      const listed = await sdk.Notes.noteControllerFindAll!({ path: { tenantId: tenant.tenant.id }, query: { limit: 5 } });
      expect(listed.data).toEqual([created.data]);
      const invalid = await sdk.Notes.noteControllerCreate!({ path: { tenantId: tenant.tenant.id }, body: { content: '' } });
      expect(invalid.response.status).toBe(400);
      expect(invalid.error).toMatchObject({ code: 'VALIDATION_FAILED' });
      const removed = await sdk.Notes.noteControllerRemove!({ path: { tenantId: tenant.tenant.id, noteId: created.data?.id as string } });
      expect(removed.response.status).toBe(204);
    } finally {
      fs.rmSync(output, { recursive: true, force: true });
    }
  });
});

describe('/docs', () => {
  it('serves the UI page and every asset it loads, without a CDN', async () => {
    const anonymous = apiClient(server.url);
    const page = await anonymous.get('/docs');
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    const assets = [...page.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1] as string);
    expect(assets.length).toBeGreaterThanOrEqual(4);
    for (const asset of assets) {
      expect(asset.startsWith('/docs/'), asset).toBe(true);
      const response = await anonymous.get(asset);
      expect(response.status, asset).toBe(200);
      expect(response.text.length, asset).toBeGreaterThan(0);
    }
    expect((await anonymous.get('/docs/init.js')).text).toContain("url: '/docs-json'");
  });

  it('answers a repeated request with 304 when nothing changed', async () => {
    const first = await apiClient(server.url).get('/docs-json');
    const etag = first.headers.get('etag') as string;
    const second = await apiClient(server.url).get('/docs-json', { headers: { 'if-none-match': etag } });
    expect(second.status).toBe(304);
  });
});
