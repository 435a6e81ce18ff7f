/**
 * GraphQL over WebSocket behind the same gate as HTTP, with a real
 * graphql-ws client: a key in connectionParams, or the session cookie of the
 * upgrade request from a trusted origin; anything else is closed with 4403.
 */
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectWs, wsQuery } from './helpers/graphql-ws.js';
import { seeder, type SeededTenant } from './helpers/seed.js';
import { startIdentityProvider, type IdentityProvider } from './helpers/oidc.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { signIn, uniqueEmail } from './helpers/sessions.js';

let provider: IdentityProvider;
let server: TestServer;
let tenant: SeededTenant;

beforeAll(async () => {
  provider = await startIdentityProvider();
  server = await startTestServer({ env: provider.env });
  tenant = await seeder(server).tenant();
});
afterAll(async () => {
  await server?.stop();
  await provider?.close();
});

const connect = (options: Parameters<typeof connectWs>[1]) => connectWs(server.url, options);
const query = wsQuery;

describe('graphql-ws connections', () => {
  it('accept an API key in connectionParams.authorization', async () => {
    const { client } = connect({ authorization: `Bearer ${tenant.key}` });
    try {
      const result = await query<{ tenants: { id: string }[] }>(client, '{ tenants { id } }');
      expect(result.data?.tenants.map((each) => each.id)).toEqual([tenant.tenant.id]);
      const missing = await query(client, 'query ($t: ID!) { note(tenantId: $t, id: "nope") { id } }', { t: tenant.tenant.id });
      expect(missing.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    } finally {
      await client.dispose();
    }
  });

  it('accept the session cookie of the upgrade request from a trusted origin', async () => {
    const email = uniqueEmail('ws');
    await tenant.api.post(`/tenants/${tenant.tenant.id}/users`, { email, role: 'manager' });
    const person = await signIn(server, provider, { email });
    const { client } = connect({ headers: { cookie: person.cookie, origin: server.url } });
    try {
      const result = await query<{ me: { role: string; email: string } }>(client, 'query ($t: ID!) { me(tenantId: $t) { role email } }', {
        t: tenant.tenant.id,
      });
      expect(result.data?.me).toEqual({ role: 'manager', email });
    } finally {
      await client.dispose();
    }
  });

  it.each([
    ['no credentials', {}],
    ['an unknown key', { authorization: 'Bearer svc_unknownKeyUnknownKeyUnknownKey000000' }],
    ['a key without the Bearer scheme', { authorization: tenant?.key ?? 'svc_x' }],
  ])('close with 4403 for %s', async (_case, options) => {
    const { client, closed } = connect(options);
    try {
      expect(await closed).toBe(4403);
    } finally {
      await client.dispose();
    }
  });

  it('close with 4403 for a session cookie sent from an untrusted origin', async () => {
    const email = uniqueEmail('cswsh');
    await tenant.api.post(`/tenants/${tenant.tenant.id}/users`, { email });
    const person = await signIn(server, provider, { email });
    const { client, closed } = connect({ headers: { cookie: person.cookie, origin: 'https://evil.example' } });
    try {
      expect(await closed).toBe(4403);
    } finally {
      await client.dispose();
    }
  });

  it('refuse upgrades anywhere but /graphql', async () => {
    const socket = new WebSocket(`${server.url.replace('http', 'ws')}/tenants`);
    const status = await new Promise<number>((resolve) => {
      socket.on('unexpected-response', (_request, response) => resolve(response.statusCode ?? 0));
      socket.on('error', () => resolve(-1));
    });
    expect(status).toBe(404);
  });
});
