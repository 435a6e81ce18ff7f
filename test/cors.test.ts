/**
 * One CORS policy for every path, REST and GraphQL alike: credentialed CORS
 * headers only for BASE_URL and TRUSTED_ORIGINS, matched exactly (no `null`,
 * no suffix or prefix games), whatever the method and the credential.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seeder, type SeededTenant } from './helpers/seed.js';
import { startIdentityProvider, type IdentityProvider } from './helpers/oidc.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { signIn, uniqueEmail, type SignedIn } from './helpers/sessions.js';

const trustedApp = 'https://app.example.test';

let provider: IdentityProvider;
let server: TestServer;
let tenant: SeededTenant;
let member: SignedIn;

beforeAll(async () => {
  provider = await startIdentityProvider();
  server = await startTestServer({ env: { ...provider.env, TRUSTED_ORIGINS: trustedApp } });
  tenant = await seeder(server).tenant();
  const email = uniqueEmail('member');
  await tenant.api.post(`/tenants/${tenant.tenant.id}/users`, { email, role: 'member' });
  member = await signIn(server, provider, { email });
});
afterAll(async () => {
  await server?.stop();
  await provider?.close();
});

const untrusted = () => [
  'https://evil.example',
  'null',
  `${trustedApp}.evil.example`,
  'https://evilapp.example.test',
  trustedApp.replace('https:', 'http:'),
  `${server.url}.evil.example`,
];

interface Probe {
  name: string;
  method: 'GET' | 'POST';
  path: () => string;
  body?: () => string;
}

const probes: Probe[] = [
  {
    name: 'GraphQL GET',
    method: 'GET',
    path: () => `/graphql?query=${encodeURIComponent(`{ users(tenantId: "${tenant.tenant.id}") { email } }`)}`,
  },
  {
    name: 'GraphQL POST',
    method: 'POST',
    path: () => '/graphql',
    body: () => JSON.stringify({ query: `{ users(tenantId: "${tenant.tenant.id}") { email } }` }),
  },
  { name: 'REST GET', method: 'GET', path: () => `/tenants/${tenant.tenant.id}/users` },
  { name: 'REST POST', method: 'POST', path: () => `/tenants/${tenant.tenant.id}/notes`, body: () => JSON.stringify({ content: 'cors' }) },
];

async function corsHeadersFor(probe: Probe, credential: 'cookie' | 'key', origin: string) {
  const response = await fetch(new URL(probe.path(), server.url), {
    method: probe.method,
    headers: {
      origin,
      'content-type': 'application/json',
      ...(credential === 'cookie' ? { cookie: member.cookie } : { authorization: `Bearer ${tenant.key}` }),
    },
    ...(probe.body ? { body: probe.body() } : {}),
  });
  await response.arrayBuffer();
  return {
    status: response.status,
    allowOrigin: response.headers.get('access-control-allow-origin'),
    allowCredentials: response.headers.get('access-control-allow-credentials'),
  };
}

describe('CORS', () => {
  for (const probe of probes) {
    for (const credential of ['cookie', 'key'] as const) {
      it(`${probe.name} with a ${credential}: credentialed CORS for trusted origins only`, async () => {
        for (const origin of [server.url, trustedApp]) {
          const answer = await corsHeadersFor(probe, credential, origin);
          expect(answer, `${origin}`).toMatchObject({ allowOrigin: origin, allowCredentials: 'true' });
          expect(answer.status, origin).toBeLessThan(300);
        }
        for (const origin of untrusted()) {
          const answer = await corsHeadersFor(probe, credential, origin);
          expect(answer, origin).toMatchObject({ allowOrigin: null, allowCredentials: null });
        }
      });
    }
  }

  it('answers preflights of untrusted origins without any allow header, on GraphQL and REST', async () => {
    for (const path of ['/graphql', `/tenants/${tenant.tenant.id}/notes`]) {
      for (const origin of untrusted()) {
        const response = await fetch(new URL(path, server.url), {
          method: 'OPTIONS',
          headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
        });
        expect(response.headers.get('access-control-allow-origin'), `${path} ${origin}`).toBeNull();
        expect(response.headers.get('access-control-allow-methods'), `${path} ${origin}`).toBeNull();
      }
      const trusted = await fetch(new URL(path, server.url), {
        method: 'OPTIONS',
        headers: { origin: trustedApp, 'access-control-request-method': 'POST' },
      });
      expect(trusted.headers.get('access-control-allow-origin')).toBe(trustedApp);
    }
  });

  it('refuses a cookie-authenticated GraphQL mutation from an untrusted origin, as REST does', async () => {
    const response = await fetch(new URL('/graphql', server.url), {
      method: 'POST',
      headers: { origin: 'https://evil.example', 'content-type': 'application/json', cookie: member.cookie },
      body: JSON.stringify({ query: `mutation { createNote(tenantId: "${tenant.tenant.id}", input: { content: "csrf" }) { id } }` }),
    });
    expect(response.status).toBe(403);
    expect(await server.app.db.note.count({ where: { content: 'csrf' } })).toBe(0);
  });
});
