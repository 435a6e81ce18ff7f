/**
 * GET /metrics: Prometheus text for those who may read it (owners and
 * admins, superadmins, API keys, or the METRICS_TOKEN), labelled by route
 * template and never by ids.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from './helpers/eventually.js';
import { connectWs, untilListening, wsSubscribe } from './helpers/graphql-ws.js';
import { invoiceForm, invoicePng } from './helpers/invoices.js';
import { startIdentityProvider, type IdentityProvider } from './helpers/oidc.js';
import { seedTeam, type Team } from './helpers/seed.js';
import { startTestServer, type TestServer } from './helpers/server.js';

const metricsToken = 'scraper-token-0123456789abcdef';
let provider: IdentityProvider;
let server: TestServer;
let team: Team;

beforeAll(async () => {
  provider = await startIdentityProvider();
  server = await startTestServer({ env: { ...provider.env, METRICS_TOKEN: metricsToken } });
  team = await seedTeam(server, provider);
});
afterAll(async () => {
  await server?.stop();
  await provider?.close();
});

const scrape = (headers: Record<string, string> = {}) => fetch(`${server.url}/metrics`, { headers });

describe('/metrics', () => {
  it('counts requests by route template and status, GraphQL operations, the pool, the event loop, queues and jobs', async () => {
    await team.tenant.api.get(`/tenants/${team.tenant.id}/notes`);
    await team.tenant.api.get(`/tenants/${team.tenant.id}/notes/no-such-note`);
    await team.tenant.api.graphql('query ($t: ID!) { notes(tenantId: $t) { id } }', { t: team.tenant.id });
    const uploaded = await fetch(`${server.url}/tenants/${team.tenant.id}/invoices/upload`, {
      method: 'POST',
      headers: { authorization: `Bearer ${team.tenant.key}` },
      body: invoiceForm(invoicePng(['Metrics Ltd', 'Invoice M-1']), 'm.png'),
    });
    expect(uploaded.status).toBe(201);

    const text = await eventually(async () => {
      const answer = await scrape({ authorization: `Bearer ${team.tenant.key}` });
      expect(answer.status).toBe(200);
      expect(answer.headers.get('content-type')).toContain('text/plain');
      const body = await answer.text();
      expect(body).toContain('tally_jobs_total{queue="invoice.ocr",outcome="completed"} 1');
      return body;
    });
    expect(text).toContain('tally_http_requests_total{method="GET",route="/tenants/{tenantId}/notes",status="200"} 1');
    expect(text).toContain('tally_http_requests_total{method="GET",route="/tenants/{tenantId}/notes/{noteId}",status="404"} 1');
    expect(text).toMatch(/tally_http_request_duration_seconds_bucket\{le="0.1",method="GET",route="\/tenants\/\{tenantId\}\/notes",status="200"\} 1/);
    expect(text).toContain('tally_graphql_operations_total{type="query",outcome="ok"} 1');
    expect(text).toMatch(/tally_db_pool_connections\{state="max"\} \d+/);
    expect(text).toMatch(/tally_nodejs_eventloop_lag_seconds \d/);
    expect(text).toMatch(/tally_queue_jobs\{queue="webhook.deliver",state="ready"\} \d+/);
    // Labels carry templates, never ids.
    expect(text).not.toContain(team.tenant.id);
    expect(text).not.toContain('no-such-note');
  });

  it('shows the GraphQL subscriptions listening now, by kind: up while a socket subscribes, down once it closes', async () => {
    const gauge = async (kind: string): Promise<number> => {
      const text = await (await scrape({ authorization: `Bearer ${metricsToken}` })).text();
      const value = new RegExp(`^tally_live_subscribers\\{kind="${kind}"\\} (\\d+)$`, 'm').exec(text)?.[1];
      expect(value, text).toBeDefined();
      return Number(value);
    };
    const before = { notifications: await gauge('notifications'), events: await gauge('events') };
    const socket = connectWs(server.url, { headers: { cookie: team.member.cookie, origin: server.url } });
    const keySocket = connectWs(server.url, { authorization: `Bearer ${team.tenant.key}` });
    try {
      wsSubscribe(socket.client, 'subscription ($t: ID!) { notificationAdded(tenantId: $t) { id } }', { t: team.tenant.id });
      wsSubscribe(keySocket.client, 'subscription ($t: ID!) { tenantEvents(tenantId: $t) { id } }', { t: team.tenant.id });
      await untilListening(server.live, 'notifications', before.notifications + 1);
      await untilListening(server.live, 'events', before.events + 1);
      expect(await gauge('notifications')).toBe(before.notifications + 1);
      expect(await gauge('events')).toBe(before.events + 1);
    } finally {
      await Promise.all([socket.client.dispose(), keySocket.client.dispose()]);
    }
    await eventually(async () => {
      expect(await gauge('notifications')).toBe(before.notifications);
      expect(await gauge('events')).toBe(before.events);
    }, 5_000);
  });

  it('is for owners and admins, API keys and the token: 401 without credentials, 403 for a member', async () => {
    expect((await scrape()).status).toBe(401);
    expect((await scrape({ authorization: 'Bearer not-the-token-0123456789abcdef' })).status).toBe(401);
    expect((await scrape({ cookie: team.member.cookie })).status).toBe(403);
    expect((await scrape({ cookie: team.manager.cookie })).status).toBe(403);
    expect((await scrape({ cookie: team.admin.cookie })).status).toBe(200);
    expect((await scrape({ authorization: `Bearer ${metricsToken}` })).status).toBe(200);
    const posted = await fetch(`${server.url}/metrics`, { method: 'POST', headers: { authorization: `Bearer ${metricsToken}` } });
    expect(posted.status).toBe(405);
    expect(posted.headers.get('allow')).toBe('GET, HEAD');
  });
});
