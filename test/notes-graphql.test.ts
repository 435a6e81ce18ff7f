import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Note } from './generated/openapi/types.gen.js';
import { seeder, type SeededTenant } from './helpers/seed.js';
import { startTestServer, type TestServer } from './helpers/server.js';

let server: TestServer;
let tenant: SeededTenant;

beforeAll(async () => {
  server = await startTestServer();
  tenant = await seeder(server).tenant();
});
afterAll(async () => {
  await server?.stop();
});

const noteFields = 'id content tenantId tenantUserId createdAt updatedAt';

describe('notes over GraphQL', () => {
  it('creates, reads, lists, updates and deletes a note', async () => {
    const created = await tenant.api.graphql<{ createNote: Note }>(
      `mutation ($tenantId: ID!, $input: CreateNoteDto!) { createNote(tenantId: $tenantId, input: $input) { ${noteFields} } }`,
      { tenantId: tenant.tenant.id, input: { content: 'from graphql' } },
    );
    expect(created.status).toBe(200);
    expect(created.body.errors).toBeUndefined();
    const note = created.body.data?.createNote as Note;
    expect(note).toMatchObject({ content: 'from graphql', tenantId: tenant.tenant.id });

    const read = await tenant.api.graphql<{ note: Note; notes: Note[] }>(
      `query ($tenantId: ID!, $id: ID!) { note(tenantId: $tenantId, id: $id) { id content } notes(tenantId: $tenantId, limit: 10) { id } }`,
      { tenantId: tenant.tenant.id, id: note.id },
    );
    expect(read.body.data?.note).toEqual({ id: note.id, content: 'from graphql' });
    expect(read.body.data?.notes.map((item) => item.id)).toContain(note.id);

    const updated = await tenant.api.graphql<{ updateNote: Note }>(
      'mutation ($tenantId: ID!, $id: ID!) { updateNote(tenantId: $tenantId, id: $id, input: { content: "changed" }) { content } }',
      { tenantId: tenant.tenant.id, id: note.id },
    );
    expect(updated.body.data?.updateNote.content).toBe('changed');

    const deleted = await tenant.api.graphql<{ deleteNote: Note }>('mutation ($tenantId: ID!, $id: ID!) { deleteNote(tenantId: $tenantId, id: $id) { id } }', {
      tenantId: tenant.tenant.id,
      id: note.id,
    });
    expect(deleted.body.data?.deleteNote.id).toBe(note.id);
    const types = (await server.app.db.event.findMany({ where: { subjectId: note.id }, orderBy: { id: 'asc' } })).map((event) => event.type);
    expect(types).toEqual(['note.created', 'note.updated', 'note.deleted']);
  });

  it('sees the notes written over REST, and REST sees those written over GraphQL', async () => {
    const viaRest = await tenant.api.post<Note>(`/tenants/${tenant.tenant.id}/notes`, { content: 'written over REST' });
    const viaGraphql = await tenant.api.graphql<{ note: Note }>('query ($tenantId: ID!, $id: ID!) { note(tenantId: $tenantId, id: $id) { content } }', {
      tenantId: tenant.tenant.id,
      id: viaRest.body.id,
    });
    expect(viaGraphql.body.data?.note.content).toBe('written over REST');
  });

  it('pages through a Relay connection, newest first', async () => {
    const own = await seeder(server).tenant();
    const ids: string[] = [];
    for (const content of ['a', 'b', 'c']) {
      ids.push((await own.api.post<Note>(`/tenants/${own.tenant.id}/notes`, { content })).body.id);
    }
    type Page = { notesConnection: { edges: { cursor: string; node: { id: string } }[]; pageInfo: { hasNextPage: boolean; endCursor: string } } };
    const query = `query ($tenantId: ID!, $after: String) {
      notesConnection(tenantId: $tenantId, first: 2, after: $after) { edges { cursor node { id } } pageInfo { hasNextPage endCursor } }
    }`;
    const first = await own.api.graphql<Page>(query, { tenantId: own.tenant.id });
    const firstPage = first.body.data?.notesConnection;
    expect(firstPage?.edges.map((edge) => edge.node.id)).toEqual([ids[2], ids[1]]);
    expect(firstPage?.pageInfo.hasNextPage).toBe(true);
    const second = await own.api.graphql<Page>(query, { tenantId: own.tenant.id, after: firstPage?.pageInfo.endCursor });
    expect(second.body.data?.notesConnection.edges.map((edge) => edge.node.id)).toEqual([ids[0]]);
    expect(second.body.data?.notesConnection.pageInfo.hasNextPage).toBe(false);
  });

  it('reports errors with the contract codes in extensions', async () => {
    const invalid = await tenant.api.graphql('mutation ($tenantId: ID!) { createNote(tenantId: $tenantId, input: { content: "   " }) { id } }', {
      tenantId: tenant.tenant.id,
    });
    expect(invalid.body.errors?.[0]?.extensions).toMatchObject({
      code: 'VALIDATION_FAILED',
      errors: [{ path: 'content', message: 'must not be blank' }],
    });

    const missing = await tenant.api.graphql('query ($tenantId: ID!) { note(tenantId: $tenantId, id: "0199a1f0-0000-7000-8000-000000000000") { id } }', {
      tenantId: tenant.tenant.id,
    });
    expect(missing.body.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');

    const unknownField = await tenant.api.graphql(
      'mutation ($tenantId: ID!) { createNote(tenantId: $tenantId, input: { content: "x", pinned: true }) { id } }',
      { tenantId: tenant.tenant.id },
    );
    expect(unknownField.body.errors?.[0]?.message).toMatch(/pinned/);
    expect(unknownField.body.data).toBeUndefined();
  });

  it('refuses documents with more than 30 aliases before running them', async () => {
    const aliases = (count: number) => Array.from({ length: count }, (_, index) => `a${index}: __typename`).join(' ');
    expect((await tenant.api.graphql(`{ ${aliases(30)} }`)).body.errors).toBeUndefined();
    const tooMany = await tenant.api.graphql(`{ ${aliases(31)} }`);
    expect(tooMany.body.errors?.[0]?.message).toBe('The document uses 31 aliases; the limit is 30');
  });

  it('refuses batched requests', async () => {
    const response = await tenant.api.request('POST', '/graphql', [{ query: '{ __typename }' }, { query: '{ __typename }' }]);
    expect(response.status).toBeGreaterThanOrEqual(400);
    expect(response.status).toBeLessThan(500);
  });

  it('refuses a body over 1 MiB with 413 and the contract code, declared or streamed', async () => {
    const huge = JSON.stringify({ query: `{ __typename }`, variables: { padding: 'x'.repeat(1024 * 1024 + 10) } });
    const declared = await tenant.api.request<{ errors?: { extensions?: { code?: string } }[] }>('POST', '/graphql', huge);
    expect(declared.status).toBe(413);
    expect(declared.body.errors?.[0]?.extensions?.code).toBe('PAYLOAD_TOO_LARGE');

    const streamed = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tenant.key}`, 'content-type': 'application/json' },
      body: new Blob([huge]).stream(),
      duplex: 'half',
    } as RequestInit);
    expect(streamed.status).toBe(413);
  });
});
