/**
 * Which budget a request to `/api/auth/*` spends (CONTRACT.md section 8,
 * "Trusted proxies"): only starting a sign-in and the provider's callback are
 * limited per client address; the session check and sign-out count like any
 * request of their session (or of the address, at the general budget, without
 * one). The client address is the socket's unless TRUST_PROXY says which
 * `X-Forwarded-For` hops to believe; it is in the request log too.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../src/lib/logger.js';
import { startIdentityProvider, type IdentityProvider } from './helpers/oidc.js';
import { signIn } from './helpers/sessions.js';
import { startTestServer, type TestServer } from './helpers/server.js';

let provider: IdentityProvider;
const servers: TestServer[] = [];
const logged: { msg: string; path?: string; clientAddress?: string }[] = [];

/** A server with the product's default budgets (600 a minute per caller, 30 per address on sign-in), or `env`'s. */
async function serverWith(env: Record<string, string> = {}, log = createLogger('silent')): Promise<TestServer> {
  const server = await startTestServer({ env: { ...provider.env, RATE_LIMIT_PER_MINUTE: '600', AUTH_RATE_LIMIT_PER_MINUTE: '30', ...env }, log });
  servers.push(server);
  return server;
}

beforeAll(async () => {
  provider = await startIdentityProvider();
});
afterAll(async () => {
  await Promise.all(servers.map((server) => server.stop()));
  await provider?.close();
});

const startSignIn = (server: TestServer, forwardedFor?: string) =>
  fetch(`${server.url}/api/auth/signin/oidc`, { redirect: 'manual', headers: forwardedFor ? { 'x-forwarded-for': forwardedFor } : {} });

/** Starts sign-ins until one is refused; the statuses. */
async function spendSignIns(server: TestServer, count: number, forwardedFor?: string): Promise<number[]> {
  const statuses: number[] = [];
  for (let index = 0; index < count; index += 1) statuses.push((await startSignIn(server, forwardedFor)).status);
  return statuses;
}

describe('the session check and sign-out', () => {
  it('answer 100 session checks a minute from one address, signed out and signed in, each at the caller budget', async () => {
    const server = await serverWith();
    const anonymous = await Promise.all(Array.from({ length: 100 }, () => fetch(`${server.url}/api/auth/session`)));
    expect(anonymous.map((response) => response.status)).toEqual(Array(100).fill(200));
    // Counted for the address at the general budget, not the sign-in one.
    expect(anonymous.every((response) => response.headers.get('ratelimit-limit') === '600')).toBe(true);
    expect(Math.min(...anonymous.map((response) => Number(response.headers.get('ratelimit-remaining'))))).toBeGreaterThanOrEqual(500);

    const person = await signIn(server, provider);
    const signedIn: Response[] = [];
    for (let index = 0; index < 100; index += 1) signedIn.push(await fetch(`${server.url}/api/auth/session`, { headers: { cookie: person.cookie } }));
    expect(signedIn.map((response) => response.status)).toEqual(Array(100).fill(200));
    expect(((await signedIn.at(-1)?.json()) as { user: { email: string } }).user.email).toBe(person.user.email);
    // The session's own budget: the session check and an API call count together.
    const afterChecks = Number(signedIn.at(-1)?.headers.get('ratelimit-remaining'));
    const apiCall = await person.api.get('/tenants');
    expect(apiCall.status).toBe(200);
    expect(Number(apiCall.headers.get('ratelimit-remaining'))).toBe(afterChecks - 1);

    // Sign-in itself still has its own, smaller budget per address: 30, of which signing in above spent two (start, callback).
    expect(await spendSignIns(server, 29)).toEqual([...Array(28).fill(302), 429]);
    // ... which the session check and sign-out do not share.
    expect((await fetch(`${server.url}/api/auth/session`)).status).toBe(200);
    const signOut = await fetch(`${server.url}/api/auth/signout`, { method: 'POST', headers: { cookie: person.cookie, origin: server.url } });
    expect(signOut.status).toBe(200);
    expect(signOut.headers.get('ratelimit-limit')).toBe('600');
    expect(await (await fetch(`${server.url}/api/auth/session`, { headers: { cookie: person.cookie } })).json()).toBeNull();
  });
});

describe('trusted proxies', () => {
  it('behind TRUST_PROXY=1 gives clients with different X-Forwarded-For their own sign-in budgets, and logs their addresses', async () => {
    const server = await serverWith(
      { TRUST_PROXY: '1', AUTH_RATE_LIMIT_PER_MINUTE: '5' },
      createLogger('info', {}, { write: (line: string) => void logged.push(JSON.parse(line) as (typeof logged)[number]) }),
    );
    expect(await spendSignIns(server, 6, '203.0.113.10')).toEqual([302, 302, 302, 302, 302, 429]);
    expect(await spendSignIns(server, 5, '203.0.113.20')).toEqual(Array(5).fill(302));
    const requests = logged.filter((line) => line.msg === 'request' && line.path === '/api/auth/signin/oidc');
    expect(new Set(requests.map((line) => line.clientAddress))).toEqual(new Set(['203.0.113.10', '203.0.113.20']));
  });

  it('believes only the hops it trusts: a forged start of the chain does not change the client', async () => {
    const server = await serverWith({ TRUST_PROXY: '1', AUTH_RATE_LIMIT_PER_MINUTE: '5' });
    // The proxy appends the address it saw; whatever the client wrote before it is the client's own claim.
    const forged = ['198.51.100.1', '198.51.100.2', '198.51.100.3', '198.51.100.4', '198.51.100.5', '198.51.100.6'];
    const statuses: number[] = [];
    for (const claim of forged) statuses.push((await startSignIn(server, `${claim}, 203.0.113.30`)).status);
    expect(statuses).toEqual([302, 302, 302, 302, 302, 429]);
  });

  it('without TRUST_PROXY, clients with different X-Forwarded-For share the socket address budget', async () => {
    const server = await serverWith({ AUTH_RATE_LIMIT_PER_MINUTE: '5' });
    expect(await spendSignIns(server, 5, '203.0.113.40')).toEqual(Array(5).fill(302));
    expect((await startSignIn(server, '203.0.113.50')).status).toBe(429);
    expect((await startSignIn(server)).status).toBe(429);
  });

  it('ignores X-Forwarded-For from a peer that is not a trusted proxy', async () => {
    // Only proxies in 10.0.0.0/8 are believed; this test's requests come from loopback.
    const server = await serverWith({ TRUST_PROXY: '10.0.0.0/8, 192.168.1.1', AUTH_RATE_LIMIT_PER_MINUTE: '5' });
    expect(await spendSignIns(server, 5, '203.0.113.60')).toEqual(Array(5).fill(302));
    expect((await startSignIn(server, '203.0.113.70')).status).toBe(429);
  });
});
