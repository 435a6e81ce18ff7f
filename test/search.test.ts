/**
 * Full-text search over entries, invoices and projects: ranked, with
 * snippets, prefix matching while typing, web-search syntax, and only what
 * the caller may read.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Problem, SearchResult } from './generated/openapi/types.gen.js';
import { startIdentityProvider, type IdentityProvider } from './helpers/oidc.js';
import { seeder, type SeededMember, type SeededTenant } from './helpers/seed.js';
import { startTestServer, type TestServer } from './helpers/server.js';

let provider: IdentityProvider;
let server: TestServer;
let tenant: SeededTenant;
let member: SeededMember;
let colleague: SeededMember;
let manager: SeededMember;
const ids: Record<string, string> = {};

beforeAll(async () => {
  provider = await startIdentityProvider();
  server = await startTestServer({ env: provider.env });
  const step = seeder(server, provider).tenant();
  tenant = await step;
  [member, colleague, manager] = [await step.member('member'), await step.member('member'), await step.member('manager')];
  const entry = async (who: SeededMember, description: string, tags: string[] = []) =>
    (
      await who.api.post<{ id: string }>(`/tenants/${tenant.id}/entries`, {
        startedAt: '2026-05-04T09:00:00Z',
        endedAt: '2026-05-04T10:00:00Z',
        description,
        tags,
      })
    ).body.id;
  ids.kickoff = await entry(member, 'Kickoff meeting with the marketing team', ['meeting']);
  ids.deploy = await entry(member, 'Deployed the <b>new</b> checkout & payment flow');
  ids.secret = await entry(colleague, 'Salary negotiation preparation');
  ids.meetingOnly = await entry(member, 'Budget review', ['meeting', 'finance']);
  ids.project = (
    await manager.api.post<{ id: string }>(`/tenants/${tenant.id}/projects`, { name: 'Marketing relaunch', code: 'MKT', description: 'For Globex' })
  ).body.id;
  // An invoice, as uploads and OCR will write them.
  await server.app.db.invoice.create({
    data: {
      tenantId: tenant.id,
      number: 'INV-2026-0042',
      vendorName: 'Office Supplies Ltd',
      ocrText: 'Invoice INV-2026-0042 printer paper marketing flyers',
      uploadedById: manager.id,
    },
  });
  const other = await seeder(server).tenant();
  await other.api.post(`/tenants/${other.id}/projects`, { name: 'Marketing of another tenant' });
});
afterAll(async () => {
  await server?.stop();
  await provider?.close();
});

const search = (who: { api: SeededTenant['api'] }, query: Record<string, string | number>) =>
  who.api.get<SearchResult[]>(`/tenants/${tenant.id}/search`, { query });

describe('search', () => {
  it('finds entries, projects and invoices, most relevant first, with a marked snippet', async () => {
    const results = (await search(manager, { q: 'marketing' })).body;
    expect(results.map((result) => result.type).sort()).toEqual(['entries', 'invoices', 'projects']);
    expect(results.map((result) => result.id)).not.toContain(undefined);
    const project = results.find((result) => result.type === 'projects');
    expect(project).toMatchObject({ id: ids.project, title: 'Marketing relaunch (MKT)' });
    expect(project?.snippet).toContain('<mark>Marketing</mark>');
    const ranks = results.map((result) => result.rank);
    expect([...ranks].sort((a, b) => b - a)).toEqual(ranks);
    expect(JSON.stringify(results)).not.toContain('another tenant');
  });

  it('finds clients by their name, for members too, and by nothing else they hold', async () => {
    const created = await manager.api.post<{ id: string }>(`/tenants/${tenant.id}/clients`, { name: 'Initech Holdings', notes: 'Secret discount' });
    expect(created.status).toBe(201);
    expect((await search(member, { q: 'initech' })).body).toEqual([
      expect.objectContaining({ type: 'clients', id: created.body.id, title: 'Initech Holdings' }),
    ]);
    expect((await search(member, { q: 'discount', types: 'clients' })).body).toEqual([]);
  });

  it('matches the last word as a prefix while typing, and takes web-search syntax', async () => {
    expect((await search(member, { q: 'kicko' })).body.map((result) => result.id)).toEqual([ids.kickoff]);
    expect((await search(member, { q: 'meeting -budget', types: 'entries' })).body.map((result) => result.id)).toEqual([ids.kickoff]);
    expect((await search(member, { q: '"checkout & payment"' })).body.map((result) => result.id)).toEqual([ids.deploy]);
    expect((await search(member, { q: 'finance or kickoff', types: 'entries' })).body.map((result) => result.id).sort()).toEqual(
      [ids.kickoff, ids.meetingOnly].sort(),
    );
  });

  it('gives snippets safe to show as HTML: markup in the text never comes through, the rest is escaped', async () => {
    const [result] = (await search(member, { q: 'deployed' })).body;
    expect(result?.snippet).toMatch(/^<mark>Deployed<\/mark> the\s+new\s+checkout &amp; payment flow$/);
    expect(result?.title).toBe('Deployed the <b>new</b> checkout & payment flow');
  });

  it("never shows a member another member's entries, or invoices they did not upload", async () => {
    expect((await search(member, { q: 'salary' })).body).toEqual([]);
    expect((await search(colleague, { q: 'salary' })).body.map((result) => result.id)).toEqual([ids.secret]);
    expect((await search(manager, { q: 'salary' })).body.map((result) => result.id)).toEqual([ids.secret]);
    expect((await search(member, { q: 'INV-2026-0042' })).body).toEqual([]);
    expect((await search(manager, { q: 'INV-2026-0042' })).body.map((result) => result.type)).toEqual(['invoices']);
  });

  it('limits and filters by type, over REST and GraphQL alike', async () => {
    expect((await search(manager, { q: 'marketing', types: 'projects,invoices', limit: 1 })).body).toHaveLength(1);
    const graphql = await manager.api.graphql<{ search: { type: string; id: string }[] }>(
      'query ($t: ID!) { search(tenantId: $t, q: "marketing", types: [projects]) { type id } }',
      { t: tenant.id },
    );
    expect(graphql.body.data?.search).toEqual([{ type: 'projects', id: ids.project }]);
  });

  it('refuses an empty query with 400, takes a 1,000-character one, and refuses longer', async () => {
    for (const q of ['', '   ']) {
      const empty = await search(member, { q });
      expect(empty.status).toBe(400);
      expect((empty.body as unknown as Problem).errors?.[0]?.path).toBe('q');
    }
    expect((await search(member, { q: `kickoff ${'x'.repeat(992)}` })).status).toBe(200);
    expect((await search(member, { q: 'y'.repeat(1001) })).status).toBe(400);
    expect((await search(member, { q: 'kickoff', types: 'notes' })).status).toBe(400);
    expect((await search(member, { q: '!!! ::: <>' })).status).toBe(200);
  });
});
