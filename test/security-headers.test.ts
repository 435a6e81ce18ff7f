/**
 * Security headers on every kind of answer: JSON for a caller, problems,
 * GraphQL, and the HTML pages (GraphiQL, the docs), which must never be
 * framed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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

const withKey = () => ({ authorization: `Bearer ${tenant.key}` });

describe('security headers', () => {
  it('are on authenticated JSON, problems and GraphQL answers, which are never cached', async () => {
    const answers = [
      await fetch(`${server.url}/tenants/${tenant.id}/notes`, { headers: withKey() }),
      await fetch(`${server.url}/tenants/${tenant.id}/notes/nothing`, { headers: withKey() }),
      await fetch(`${server.url}/tenants/${tenant.id}/notes`),
      await fetch(`${server.url}/graphql`, {
        method: 'POST',
        headers: { ...withKey(), 'content-type': 'application/json' },
        body: JSON.stringify({ query: '{ __typename }' }),
      }),
    ];
    expect(answers.map((answer) => answer.status)).toEqual([200, 404, 401, 200]);
    for (const answer of answers) {
      expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
      expect(answer.headers.get('referrer-policy')).toBe('no-referrer');
      expect(answer.headers.get('cache-control')).toBe('no-store');
      expect(answer.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    }
  });

  it('keep GraphiQL and the docs UI out of frames', async () => {
    const graphiql = await fetch(`${server.url}/graphql`, { headers: { accept: 'text/html' } });
    const docs = await fetch(`${server.url}/docs`);
    for (const page of [graphiql, docs]) {
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toContain('text/html');
      expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
      expect(page.headers.get('x-frame-options')).toBe('DENY');
      expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    }
  });
});
