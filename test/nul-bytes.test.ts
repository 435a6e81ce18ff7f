/**
 * NUL characters (U+0000), which PostgreSQL text cannot hold, over every
 * route of the table: in each path parameter (404), each query parameter and
 * each string field of each JSON body (400 naming it), in multipart fields,
 * and in GraphQL variables and literals. No answer is a 500.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileRoutes } from '../src/rest/compile.js';
import { routeTable } from '../src/routes.js';
import { schema } from '../src/schema.js';
import { seeder, type SeededTenant } from './helpers/seed.js';
import { startTestServer, type TestServer } from './helpers/server.js';

let server: TestServer;
let tenant: SeededTenant;

beforeAll(async () => {
  server = await startTestServer({ env: { ROLE: 'api' } });
  tenant = await seeder(server).tenant();
});
afterAll(async () => {
  await server?.stop();
});

const routes = compileRoutes(schema, routeTable).filter((route) => route.method !== 'GET' || !route.path.startsWith('/api/auth/callback'));

const valuesNotIds: Record<string, string> = { year: '2027', month: '2027-03' };

/** The route's path with real ids where it needs one, and `replace` for the parameter under test. */
function pathOf(route: (typeof routes)[number], replace?: { param: string; value: string }): string {
  return route.segments
    .map((segment) => {
      if ('literal' in segment) return segment.literal;
      if (replace && segment.param === replace.param) return replace.value;
      if (segment.param === 'tenantId') return tenant.id;
      // Path values that are not ids (users/{tenantUserId}/vacation/{year}) are valid ones, so that the body is what is refused.
      return valuesNotIds[segment.param] ?? 'no-such-id';
    })
    .reduce((path, part) => `${path}/${part}`, '');
}

async function call(
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; json: { code?: string; errors?: { path: string }[] } | undefined }> {
  const response = await fetch(`${server.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${tenant.key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    redirect: 'manual',
  });
  const text = await response.text();
  let json: { code?: string; errors?: { path: string }[] } | undefined;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: response.status, json };
}

describe('NUL characters, over every route', () => {
  it('in a path parameter: 404, never 500', async () => {
    const answers: string[] = [];
    for (const route of routes) {
      for (const segment of route.segments) {
        if (!('param' in segment)) continue;
        const { status } = await call(route.method, pathOf(route, { param: segment.param, value: 'a%00b' }));
        answers.push(`${route.operationId} ${segment.param} ${status}`);
      }
    }
    expect(answers.length).toBeGreaterThan(40);
    expect(answers.filter((answer) => !answer.endsWith(' 404'))).toEqual([]);
  });

  it('in a query parameter: 400 naming it (or the refusal the caller gets anyway), never 500', async () => {
    const answers: string[] = [];
    for (const route of routes) {
      for (const name of Object.keys(route.queryArguments)) {
        const { status, json } = await call(route.method, `${pathOf(route)}?${name}=a%00b`);
        const named = json?.errors?.some((error) => error.path === name) ?? false;
        answers.push(`${route.operationId} ${name} ${status}${status === 400 && !named ? ' (field not named)' : ''}`);
      }
    }
    expect(answers.length).toBeGreaterThan(20);
    expect(answers.filter((answer) => !/ (400|403)$/.test(answer))).toEqual([]);
  });

  it('in each string field of each JSON body: 400 VALIDATION_FAILED naming the field, never 500', async () => {
    const answers: string[] = [];
    for (const route of routes) {
      const dto = route.kind === 'graphql' ? route.body?.schema : route.body?.kind === 'json' ? route.body.dto : undefined;
      if (!dto) continue;
      for (const field of Object.keys(dto.shape)) {
        const { status, json } = await call(route.method, pathOf(route), { [field]: 'a\u0000b' });
        if (status === 400) {
          expect(json?.code, `${route.operationId} ${field}`).toBe('VALIDATION_FAILED');
          expect(
            json?.errors?.map((error) => error.path),
            `${route.operationId} ${field}`,
          ).toEqual([field]);
        }
        answers.push(`${route.operationId} ${field} ${status}`);
      }
    }
    expect(answers.length).toBeGreaterThan(60);
    // 403: routes an admin key may not use at all (superadmin ones); everything else is the 400 above.
    expect(answers.filter((answer) => !/ (400|403)$/.test(answer))).toEqual([]);
  });

  it('in the cases first reported: notes, API key names, createNote, admin search', async () => {
    expect((await call('POST', `/tenants/${tenant.id}/notes`, { content: 'a\u0000b' })).status).toBe(400);
    expect((await call('POST', `/tenants/${tenant.id}/api-keys`, { name: 'k\u0000' })).status).toBe(400);
    expect((await call('GET', `/tenants/${tenant.id}/notes/%00`)).status).toBe(404);
    const variables = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tenant.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        query: 'mutation ($t: ID!, $c: String!) { createNote(tenantId: $t, input: { content: $c }) { id } }',
        variables: { t: tenant.id, c: 'a\u0000b' },
      }),
    });
    expect(variables.status).toBe(400);
    expect(((await variables.json()) as { errors: { extensions: { code: string } }[] }).errors[0]?.extensions.code).toBe('VALIDATION_FAILED');
    const literal = await tenant.api.graphql(`mutation { createNote(tenantId: "${tenant.id}", input: { content: "a\\u0000b" }) { id } }`);
    expect(literal.body.errors?.[0]?.extensions?.code).toBe('VALIDATION_FAILED');
    const form = new FormData();
    form.append('number', 'a\u0000b');
    form.append('file', new Blob([new Uint8Array([0x25, 0x50, 0x44, 0x46])]), 'x.pdf');
    const upload = await fetch(`${server.url}/tenants/${tenant.id}/invoices/upload`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tenant.key}` },
      body: form,
    });
    expect(upload.status).toBe(400);
    const notes = await tenant.api.get<unknown[]>(`/tenants/${tenant.id}/notes`);
    expect(notes.body).toEqual([]);
  });
});
