import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../src/lib/logger.js';
import { seeder } from './helpers/seed.js';
import { Browser } from './helpers/browser.js';
import { apiClient, type Json } from './helpers/http.js';
import { startIdentityProvider, type IdentityProvider } from './helpers/oidc.js';
import { freePort, startTestServer, type TestServer } from './helpers/server.js';
import { signIn, uniqueEmail } from './helpers/sessions.js';

let provider: IdentityProvider;
let server: TestServer;
const rootEmail = 'root@example.test';
/** What the server logged, one JSON line each. */
const logged: string[] = [];
const loggedSince = (start: number): { level: string; msg: string; component?: string }[] =>
  logged.slice(start).map((line) => JSON.parse(line) as { level: string; msg: string; component?: string });

beforeAll(async () => {
  provider = await startIdentityProvider();
  server = await startTestServer({
    env: { ...provider.env, SUPERADMIN_EMAILS: `someone@else.test, ${rootEmail.toUpperCase()}` },
    log: createLogger('info', {}, { write: (line: string) => void logged.push(line) }),
  });
});
afterAll(async () => {
  await server?.stop();
  await provider?.close();
});

describe('signing in through an OpenID Connect provider', () => {
  it('redirects, sets the session cookie, reports the session, admits to tenant routes, and signs out', async () => {
    const email = uniqueEmail('alice');
    const tenant = await seeder(server).tenant();
    await tenant.api.post(`/tenants/${tenant.tenant.id}/users`, { email, role: 'member' });
    provider.signInAs({ sub: 'alice-1', email, name: 'Alice' });

    const browser = new Browser(server.url);
    const start = await browser.request('GET', `${server.url}/api/auth/signin/oidc`);
    expect(start.status).toBe(302);
    const consent = new URL(start.headers.get('location') as string);
    expect(consent.origin).toBe(provider.issuer);
    expect(consent.searchParams.get('redirect_uri')).toBe(`${server.url}/api/auth/callback/oidc`);
    expect(consent.searchParams.get('code_challenge_method')).toBe('S256');
    expect(browser.cookie(server.url, 'service.state')).toBeDefined();

    const hops = await browser.navigate(consent.toString());
    const callback = hops.find((hop) => hop.url.includes('/api/auth/callback/oidc'));
    expect(callback?.status).toBe(302);
    const sessionCookie = browser.cookie(server.url, 'service.session_token');
    expect(sessionCookie?.attributes).toEqual(expect.arrayContaining(['HttpOnly', 'SameSite=Lax', 'Path=/']));
    expect(sessionCookie?.attributes.some((attribute) => /^secure$/i.test(attribute))).toBe(false);

    const landed = hops.at(-1);
    expect(landed?.url).toBe(`${server.url}/api/auth/session`);
    const session = JSON.parse(landed?.text ?? 'null') as { session: Json; user: Json };
    expect(session.user).toMatchObject({ email, name: 'Alice', emailVerified: true, isSuperadmin: false });
    expect(session.session).not.toHaveProperty('token');

    const api = apiClient(server.url, { cookie: browser.cookieHeader(server.url), origin: server.url });
    const me = await api.get<Json>(`/tenants/${tenant.tenant.id}/users/me`);
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ email, role: 'member', status: 'active', actorType: 'user' });

    const oldCookie = browser.cookieHeader(server.url);
    const signOut = await browser.request('POST', `${server.url}/api/auth/signout`);
    expect(signOut.status).toBe(200);
    expect(JSON.parse(signOut.text)).toEqual({ success: true });
    expect(browser.cookie(server.url, 'service.session_token')).toBeUndefined();
    // The old cookie is dead everywhere.
    expect((await api.get(`/tenants/${tenant.tenant.id}/users/me`)).status).toBe(401);
    expect((await api.graphql('{ __typename }')).status).toBe(401);
    const afterwards = await apiClient(server.url, { cookie: oldCookie }).get('/api/auth/session');
    expect(afterwards.status).toBe(200);
    expect(afterwards.text).toBe('null');
  });

  it('creates the user, account and session records', async () => {
    const signedIn = await signIn(server, provider, { name: 'Records' });
    const user = await server.app.db.user.findUniqueOrThrow({ where: { email: signedIn.user.email }, include: { accounts: true, sessions: true } });
    expect(user.accounts).toEqual([expect.objectContaining({ providerId: 'oidc', accountId: signedIn.user.sub })]);
    expect(user.sessions).toHaveLength(1);
    expect(user.sessions[0]?.ipAddress).toBe('127.0.0.1');
  });

  it('sends the browser where callbackUrl says, but only to this server or a trusted origin', async () => {
    provider.signInAs({ sub: 'cb-1', email: uniqueEmail('cb'), name: 'Callback' });
    const browser = new Browser(server.url);
    const hops = await browser.navigate(`${server.url}/api/auth/signin/oidc?callbackUrl=${encodeURIComponent('/docs')}`);
    expect(hops.at(-1)?.url).toBe(`${server.url}/docs`);

    for (const target of ['https://evil.example/steal', '//evil.example/x', 'javascript:alert(1)']) {
      const refused = await apiClient(server.url).get<Json>(`/api/auth/signin/oidc?callbackUrl=${encodeURIComponent(target)}`);
      expect(refused.status, target).toBe(400);
      expect(refused.body.errors).toEqual([{ path: 'callbackUrl', message: 'must be a path on this server or a URL of a trusted origin' }]);
    }
  });

  it('answers an unknown provider with 404 naming the configured ones', async () => {
    const response = await apiClient(server.url).get<Json>('/api/auth/signin/facebook');
    expect(response.status).toBe(404);
    expect(response.body.detail).toBe('No identity provider "facebook"; configured: oidc');
  });

  it('answers a callback without state as a bad request, and logs no error for it (anyone can send one)', async () => {
    const start = logged.length;
    for (const query of ['', '?code=forged', '?error=access_denied']) {
      const answer = await fetch(`${server.url}/api/auth/callback/oidc${query}`, { redirect: 'manual' });
      expect(answer.status, query).toBe(302);
      expect(answer.headers.get('location'), query).toMatch(/\/api\/auth\/error\?error=state_not_found$/);
      const landed = await apiClient(server.url).get<Json>(new URL(answer.headers.get('location') as string).pathname + '?error=state_not_found');
      expect(landed.status).toBe(401);
      expect(landed.body.detail).toContain('state_not_found');
    }
    const lines = loggedSince(start);
    expect(lines.filter((line) => line.level === 'error' || line.level === 'fatal')).toEqual([]);
    // Still written, at the level of a bad request (the request line's).
    expect(lines.filter((line) => line.msg === 'State not found').map((line) => [line.component, line.level])).toEqual([
      ['auth', 'info'],
      ['auth', 'info'],
      ['auth', 'info'],
    ]);
  });

  it('refuses a callback that did not start in this browser (state mismatch)', async () => {
    const logStart = logged.length;
    provider.signInAs({ sub: 'csrf-1', email: uniqueEmail('victim'), name: 'Victim' });
    const attacker = new Browser(server.url);
    const start = await attacker.request('GET', `${server.url}/api/auth/signin/oidc`);
    const consent = await attacker.request('GET', start.headers.get('location') as string);
    const callback = consent.headers.get('location') as string;
    expect(callback).toContain('/api/auth/callback/oidc?code=');
    // The victim's browser is sent the attacker's callback URL, without the state cookie.
    const victim = new Browser(server.url);
    const hops = await victim.navigate(callback);
    expect(hops.at(-1)?.url).toMatch(/\/api\/auth\/error\?error=state_mismatch/);
    expect(hops.at(-1)?.status).toBe(401);
    expect(victim.cookie(server.url, 'service.session_token')).toBeUndefined();
    // The victim's bad request is no error of ours.
    expect(loggedSince(logStart).filter((line) => line.level === 'error')).toEqual([]);
  });

  it('exposes nothing else of the auth router', async () => {
    for (const [method, path] of [
      ['POST', '/api/auth/sign-in/social'],
      ['POST', '/api/auth/update-user'],
      ['GET', '/api/auth/list-sessions'],
      ['POST', '/api/auth/delete-user'],
    ] as const) {
      expect((await apiClient(server.url).request(method, path, method === 'POST' ? {} : undefined)).status, path).toBe(404);
    }
  });
});

describe('what a sign-in changes', () => {
  it('activates invitations for the address, in every tenant that invited it', async () => {
    const email = uniqueEmail('invited');
    const [first, second] = await Promise.all([seeder(server).tenant(), seeder(server).tenant()]);
    await first.api.post(`/tenants/${first.tenant.id}/users`, { email, role: 'manager', name: 'Before sign-in' });
    await second.api.post(`/tenants/${second.tenant.id}/users`, { email: email.toUpperCase(), role: 'member' });
    const invited = await first.api.get<Json[]>(`/tenants/${first.tenant.id}/users`, { query: { status: 'invited' } });
    expect(invited.body).toEqual([expect.objectContaining({ email, status: 'invited', userId: null })]);

    const person = await signIn(server, provider, { email, name: 'After sign-in' });
    const tenants = await person.api.get<Json[]>('/tenants');
    expect(tenants.body.map((tenant) => tenant.id).sort()).toEqual([first.tenant.id, second.tenant.id].sort());
    const me = await person.api.get<Json>(`/tenants/${first.tenant.id}/users/me`);
    expect(me.body).toMatchObject({ role: 'manager', status: 'active', userId: person.session.user.id, name: 'Before sign-in' });
    const events = await server.app.db.event.findMany({ where: { tenantId: first.tenant.id, type: 'user.updated' } });
    expect(events).toEqual([expect.objectContaining({ actorType: 'user', actorId: person.session.user.id })]);
  });

  it('does not activate invitations or superadmin rights for an address the provider did not verify', async () => {
    const email = uniqueEmail('unverified');
    const tenant = await seeder(server).tenant();
    await tenant.api.post(`/tenants/${tenant.tenant.id}/users`, { email });
    const person = await signIn(server, provider, { email, emailVerified: false });
    expect((await person.api.get<Json[]>('/tenants')).body).toEqual([]);
    expect((await person.api.get(`/tenants/${tenant.tenant.id}/users/me`)).status).toBe(404);
  });

  it('makes the addresses in SUPERADMIN_EMAILS superadmins, whatever their case', async () => {
    const root = await signIn(server, provider, { email: rootEmail });
    expect(root.session.user.isSuperadmin).toBe(true);
    const created = await root.api.post<Json>('/tenants', { name: 'Made by root', slug: `root-${Date.now()}` });
    expect(created.status).toBe(201);

    const someone = await signIn(server, provider);
    expect(someone.session.user.isSuperadmin).toBe(false);
    expect((await someone.api.post<Json>('/tenants', { name: 'Nope', slug: `nope-${Date.now()}` })).status).toBe(403);
  });
});

describe('cookies, origins and API keys together', () => {
  it('refuses cookie-authenticated writes from an untrusted origin, with 403', async () => {
    const tenant = await seeder(server).tenant();
    const email = uniqueEmail('writer');
    await tenant.api.post(`/tenants/${tenant.tenant.id}/users`, { email });
    const person = await signIn(server, provider, { email });
    const notes = `/tenants/${tenant.tenant.id}/notes`;
    const evil = apiClient(server.url, { cookie: person.cookie, origin: 'https://evil.example' });

    const refused = await evil.post<Json>(notes, { content: 'csrf' });
    expect(refused.status).toBe(403);
    expect(refused.body.detail).toBe('Requests with a session cookie must come from a trusted origin, not https://evil.example');
    expect((await evil.graphql('{ __typename }')).status).toBe(403);
    expect(
      (await apiClient(server.url, { cookie: person.cookie }).post(notes, { content: 'x' }, { headers: { referer: 'https://evil.example/page' } })).status,
    ).toBe(403);
    // Reads are not refused (browsers cannot read the answer cross-site without CORS).
    expect((await evil.get(notes)).status).toBe(200);
    // The server's own origin, and clients that send no Origin at all, may write.
    expect((await person.api.post(notes, { content: 'same origin' })).status).toBe(201);
    expect((await apiClient(server.url, { cookie: person.cookie }).post(notes, { content: 'no origin' })).status).toBe(201);
    // Signing out is a write too.
    expect((await evil.post('/api/auth/signout')).status).toBe(403);
    expect((await person.api.get('/api/auth/session')).text).not.toBe('null');
  });

  it('accepts API keys from any origin: browsers do not send them by themselves', async () => {
    const tenant = await seeder(server).tenant();
    const keyFromElsewhere = apiClient(server.url, { apiKey: tenant.key, origin: 'https://evil.example' });
    expect((await keyFromElsewhere.post(`/tenants/${tenant.tenant.id}/notes`, { content: 'script' })).status).toBe(201);
  });

  it('lets the API key win when both a key and a cookie are sent', async () => {
    const [cookieTenant, keyTenant] = await Promise.all([seeder(server).tenant(), seeder(server).tenant()]);
    const email = uniqueEmail('both');
    await cookieTenant.api.post(`/tenants/${cookieTenant.tenant.id}/users`, { email });
    const person = await signIn(server, provider, { email });
    const both = apiClient(server.url, { cookie: person.cookie, apiKey: keyTenant.key });
    const tenants = await both.get<Json[]>('/tenants');
    expect(tenants.body.map((tenant) => tenant.id)).toEqual([keyTenant.tenant.id]);
    // A bad key is not rescued by the cookie.
    const badKey = apiClient(server.url, { cookie: person.cookie, apiKey: 'svc_not_a_real_key_0000000000000000000000' });
    expect((await badKey.get('/tenants')).status).toBe(401);
  });
});

describe('behind https', () => {
  it('names the cookie __Secure-service.session_token, marks it Secure, and accepts it', async () => {
    const port = await freePort();
    const secureBase = `https://localhost:${port}`;
    const secure = await startTestServer({ env: { ...provider.env, PORT: String(port), BASE_URL: secureBase } });
    try {
      // TLS ends in front of Tally (a proxy); the test talks plain HTTP to the port.
      const browser = new Browser(secureBase, (url) => (url.origin === secureBase ? new URL(url.toString().replace('https:', 'http:')) : url));
      provider.signInAs({ sub: 'secure-1', email: uniqueEmail('secure'), name: 'Secure' });
      const hops = await browser.navigate(`${secureBase}/api/auth/signin/oidc`);
      expect(hops.at(-1)?.status).toBe(200);
      const cookie = browser.cookie(secureBase, '__Secure-service.session_token');
      expect(cookie?.attributes).toEqual(expect.arrayContaining(['Secure', 'HttpOnly', 'SameSite=Lax']));
      expect(browser.cookie(secureBase, 'service.session_token')).toBeUndefined();
      const tenants = await apiClient(secure.url, { cookie: browser.cookieHeader(secureBase) }).get('/tenants');
      expect(tenants.status).toBe(200);
    } finally {
      await secure.stop();
    }
  });
});

describe('built-in providers', () => {
  it('send Google, GitHub and Microsoft sign-ins to their consent screens when configured', async () => {
    const builtIn = await startTestServer({
      env: {
        AUTH_GOOGLE_CLIENT_ID: 'google-id',
        AUTH_GOOGLE_CLIENT_SECRET: 'google-secret',
        AUTH_GITHUB_CLIENT_ID: 'github-id',
        AUTH_GITHUB_CLIENT_SECRET: 'github-secret',
        AUTH_MICROSOFT_CLIENT_ID: 'microsoft-id',
        AUTH_MICROSOFT_CLIENT_SECRET: 'microsoft-secret',
      },
    });
    try {
      for (const [name, host] of [
        ['google', 'accounts.google.com'],
        ['github', 'github.com'],
        ['microsoft', 'login.microsoftonline.com'],
      ] as const) {
        const response = await apiClient(builtIn.url).get(`/api/auth/signin/${name}`);
        expect(response.status, name).toBe(302);
        const location = new URL(response.headers.get('location') as string);
        expect(location.host, name).toBe(host);
        expect(location.searchParams.get('client_id'), name).toBe(`${name}-id`);
        expect(location.searchParams.get('redirect_uri'), name).toBe(`${builtIn.url}/api/auth/callback/${name}`);
      }
      expect((await apiClient(builtIn.url).get<Json>('/api/auth/signin/oidc')).body.detail).toBe(
        'No identity provider "oidc"; configured: google, github, microsoft',
      );
    } finally {
      await builtIn.stop();
    }
  });
});
