import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Note, Problem } from './generated/openapi/types.gen.js';
import { seeder, type SeededTenant } from './helpers/seed.js';
import type { Json } from './helpers/http.js';
import { startTestServer, type TestServer } from './helpers/server.js';

let server: TestServer;
let alpha: SeededTenant;

beforeAll(async () => {
  server = await startTestServer();
  alpha = await seeder(server).tenant();
});
afterAll(async () => {
  await server?.stop();
});

const notesPath = (tenantId: string): string => `/tenants/${tenantId}/notes`;

async function eventsOf(subjectId: string): Promise<string[]> {
  const events = await server.app.db.event.findMany({ where: { subjectId }, orderBy: { id: 'asc' } });
  return events.map((event) => event.type);
}

describe('notes over REST', () => {
  it('creates, reads, lists, updates and deletes a note, writing an event for each change', async () => {
    const created = await alpha.api.post<Note>(notesPath(alpha.tenant.id), { content: 'hi' });
    expect(created.status).toBe(201);
    expect(created.headers.get('content-type')).toMatch(/^application\/json/);
    expect(created.body).toMatchObject({ content: 'hi', tenantId: alpha.tenant.id, tenantUserId: null });
    expect(Object.keys(created.body).sort()).toEqual(['content', 'createdAt', 'id', 'tenantId', 'tenantUserId', 'updatedAt']);
    expect(new Date(created.body.createdAt).toISOString()).toBe(created.body.createdAt);
    const id = created.body.id;

    const fetched = await alpha.api.get<Note>(`${notesPath(alpha.tenant.id)}/${id}`);
    expect(fetched.status).toBe(200);
    expect(fetched.body).toEqual(created.body);

    const listed = await alpha.api.get<Note[]>(notesPath(alpha.tenant.id));
    expect(listed.status).toBe(200);
    expect(listed.body.map((note) => note.id)).toContain(id);

    const updated = await alpha.api.patch<Note>(`${notesPath(alpha.tenant.id)}/${id}`, { content: 'hello' });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ id, content: 'hello' });

    const deleted = await alpha.api.delete(`${notesPath(alpha.tenant.id)}/${id}`);
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');
    expect((await alpha.api.get<Problem>(`${notesPath(alpha.tenant.id)}/${id}`)).status).toBe(404);

    expect(await eventsOf(id)).toEqual(['note.created', 'note.updated', 'note.deleted']);
    const createdEvent = await server.app.db.event.findFirstOrThrow({ where: { subjectId: id, type: 'note.created' } });
    expect(createdEvent).toMatchObject({ tenantId: alpha.tenant.id, actorType: 'api_key', actorId: alpha.apiKeyId });
    expect(createdEvent.data).toEqual(created.body);
  });

  it('pages with limit and offset, newest first', async () => {
    const tenant = await seeder(server).tenant();
    const ids: string[] = [];
    for (const content of ['one', 'two', 'three', 'four', 'five']) {
      ids.push((await tenant.api.post<Note>(notesPath(tenant.tenant.id), { content })).body.id);
    }
    const newestFirst = [...ids].reverse();
    const firstPage = await tenant.api.get<Note[]>(notesPath(tenant.tenant.id), { query: { limit: 2 } });
    expect(firstPage.body.map((note) => note.id)).toEqual(newestFirst.slice(0, 2));
    const secondPage = await tenant.api.get<Note[]>(notesPath(tenant.tenant.id), { query: { limit: 2, offset: 2 } });
    expect(secondPage.body.map((note) => note.id)).toEqual(newestFirst.slice(2, 4));
    const all = await tenant.api.get<Note[]>(notesPath(tenant.tenant.id));
    expect(all.body).toHaveLength(5);
  });

  it('reads the instants it wrote whatever the process time zone (reads go through plain SQL, writes through Prisma)', async () => {
    const zone = process.env.TZ;
    // pg reads a `timestamp` column in the process's zone unless told otherwise; Prisma writes UTC.
    process.env.TZ = 'Pacific/Auckland';
    try {
      const created = await alpha.api.post<Note>(notesPath(alpha.tenant.id), { content: 'written in one zone' });
      const fetched = await alpha.api.get<Note>(`${notesPath(alpha.tenant.id)}/${created.body.id}`);
      const listed = await alpha.api.get<Note[]>(notesPath(alpha.tenant.id), { query: { limit: 1 } });
      expect(fetched.body.createdAt).toBe(created.body.createdAt);
      expect(listed.body[0]).toEqual(created.body);
    } finally {
      if (zone === undefined) delete process.env.TZ;
      else process.env.TZ = zone;
    }
  });
  it('answers an unknown note with a 404 problem', async () => {
    const response = await alpha.api.get<Problem>(`${notesPath(alpha.tenant.id)}/0199a1f0-0000-7000-8000-000000000000`);
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toBe('application/problem+json');
    expect(response.body).toMatchObject({ status: 404, code: 'NOT_FOUND', title: 'Not found', type: 'urn:tally:problem:not-found' });
    expect(response.body.requestId).toBe(response.headers.get('x-request-id'));
  });

  it('answers an unknown path with 404 and a wrong method with 405', async () => {
    const missing = await alpha.api.get<Problem>(`/tenants/${alpha.tenant.id}/nothing-here`);
    expect(missing.status).toBe(404);
    const wrongMethod = await alpha.api.request<Problem>('PUT', notesPath(alpha.tenant.id), { content: 'x' });
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('allow')).toBe('GET, POST');
  });
});

describe('bad input gets a clear answer and loses nothing', () => {
  async function expectNoWrite(run: () => Promise<void>): Promise<void> {
    const [notesBefore, eventsBefore] = await Promise.all([server.app.db.note.count(), server.app.db.event.count()]);
    await run();
    const [notesAfter, eventsAfter] = await Promise.all([server.app.db.note.count(), server.app.db.event.count()]);
    expect({ notes: notesAfter, events: eventsAfter }).toEqual({ notes: notesBefore, events: eventsBefore });
  }

  const postRaw = (body: string, headers: Record<string, string> = { 'content-type': 'application/json' }) =>
    alpha.api.request<Problem>('POST', notesPath(alpha.tenant.id), body, { headers });

  it('refuses malformed JSON with 400', async () => {
    await expectNoWrite(async () => {
      const response = await postRaw('{"content": "unterminated');
      expect(response.status).toBe(400);
      expect(response.body.code).toBe('BAD_REQUEST');
      expect(response.body.detail).toMatch(/not valid JSON/);
    });
  });

  it.each([
    ['missing', {}, 'is required'],
    ['empty', { content: '' }, 'must not be empty'],
    ['blank', { content: '   ' }, 'must not be blank'],
    ['too long', { content: 'x'.repeat(10_001) }, 'must be at most 10000 characters'],
    ['not a string', { content: 42 }, 'must be a string'],
  ])('refuses %s content with 400 naming the field', async (_case, body, message) => {
    await expectNoWrite(async () => {
      const response = await alpha.api.post<Problem>(notesPath(alpha.tenant.id), body);
      expect(response.status).toBe(400);
      expect(response.body.code).toBe('VALIDATION_FAILED');
      expect(response.body.errors).toEqual([{ path: 'content', message }]);
    });
  });

  it('accepts content of exactly 10000 characters', async () => {
    const response = await alpha.api.post<Note>(notesPath(alpha.tenant.id), { content: 'x'.repeat(10_000) });
    expect(response.status).toBe(201);
    expect(response.body.content).toHaveLength(10_000);
  });

  it('refuses unknown body fields instead of ignoring them', async () => {
    await expectNoWrite(async () => {
      const response = await alpha.api.post<Problem>(notesPath(alpha.tenant.id), { content: 'ok', pinned: true });
      expect(response.status).toBe(400);
      expect(response.body.errors).toEqual([{ path: 'pinned', message: 'is not a known field' }]);
    });
  });

  it('refuses a wrapped body: the DTO is the body itself', async () => {
    const response = await alpha.api.post<Problem>(notesPath(alpha.tenant.id), { input: { content: 'hi' } });
    expect(response.status).toBe(400);
    expect(response.body.errors).toEqual(
      expect.arrayContaining([
        { path: 'content', message: 'is required' },
        { path: 'input', message: 'is not a known field' },
      ]),
    );
  });

  it('refuses a body that is not an object', async () => {
    for (const body of ['[]', '"text"', 'null', '7']) {
      const response = await postRaw(body);
      expect(response.status).toBe(400);
      expect(response.body.code).toBe('VALIDATION_FAILED');
    }
  });

  it('refuses a missing body with 400', async () => {
    const response = await postRaw('');
    expect(response.status).toBe(400);
    expect(response.body.detail).toMatch(/needs a JSON body \(CreateNoteDto\)/);
  });

  it('refuses a body that is not JSON with 415', async () => {
    await expectNoWrite(async () => {
      const response = await postRaw('content=hi', { 'content-type': 'application/x-www-form-urlencoded' });
      expect(response.status).toBe(415);
      expect(response.body.code).toBe('UNSUPPORTED_MEDIA_TYPE');
    });
  });

  it('refuses a body over 1 MiB with 413, without reading it all', async () => {
    await expectNoWrite(async () => {
      const response = await alpha.api.post<Problem>(notesPath(alpha.tenant.id), { content: 'x'.repeat(1024 * 1024 + 10) });
      expect(response.status).toBe(413);
      expect(response.body.code).toBe('PAYLOAD_TOO_LARGE');
      expect(response.headers.get('connection')).toBe('close');
    });
  });

  it('refuses out-of-range and unknown query parameters, naming each', async () => {
    const response = await alpha.api.get<Problem>(notesPath(alpha.tenant.id), { query: { limit: 500, offset: -1, sort: 'x' } });
    expect(response.status).toBe(400);
    expect(response.body.errors).toEqual(
      expect.arrayContaining([
        { path: 'sort', message: 'is not a known query parameter' },
        { path: 'limit', message: 'must be at most 200' },
        { path: 'offset', message: 'must be at least 0' },
      ]),
    );
    const notANumber = await alpha.api.get<Problem>(notesPath(alpha.tenant.id), { query: { limit: 'ten' } });
    expect(notANumber.body.errors).toEqual([{ path: 'limit', message: 'must be a number' }]);
  });

  it('refuses a body on an update of a note that does not exist with 404, not 500', async () => {
    const response = await alpha.api.patch<Problem>(`${notesPath(alpha.tenant.id)}/does-not-exist`, { content: 'x' });
    expect(response.status).toBe(404);
  });

  it('never answers bad input with a 500', async () => {
    const attempts: [string, string, unknown][] = [
      ['POST', notesPath(alpha.tenant.id), '{"content":"\\ud800"}'],
      ['PATCH', `${notesPath(alpha.tenant.id)}/%E0%A4%A`, { content: 'x' }],
      ['GET', `${notesPath(alpha.tenant.id)}?limit=1e400`, undefined],
      ['DELETE', `${notesPath(alpha.tenant.id)}/${'x'.repeat(300)}`, undefined],
      ['POST', notesPath(alpha.tenant.id), { content: { nested: true } }],
    ];
    for (const [method, path, body] of attempts) {
      const response = await alpha.api.request<Json>(method, path, body);
      expect(response.status, `${method} ${path}`).toBeLessThan(500);
    }
  });
});
