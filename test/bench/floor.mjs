// The floor of `npm run bench`: the same work as Tally's routes under test,
// written by hand on node:http and pg, as fast as plain code gets. Tally's
// figures are reported as ratios to this server's, measured in the same run
// on the same database. Plain JavaScript, run as its own process.
//
//   GET  /tenants/{tenantId}/notes?limit=&offset=   the key check, then one page of notes, newest first
//   GET  /tenants/{tenantId}/notes/{noteId}         the key check, then one note
//   POST /tenants/{tenantId}/notes                  the key check, then the note and its event in one transaction
import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import pg from 'pg';

// Instants are timestamptz (`2026-11-25 14:40:43.729+00`), read by Date's own ISO parser, as the floor read
// them before they had a zone: pg's parser (regular expressions) costs several times as much.
pg.types.setTypeParser(1184, (text) => new Date(text.replace(' ', 'T').replace(/([+-]\d{2})$/, '$1:00')));

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.POOL_SIZE ?? 10) });

/** UUIDv7: a millisecond timestamp, then randomness (RFC 9562). */
function uuidv7() {
  const bytes = randomBytes(16);
  const now = BigInt(Date.now());
  for (let index = 0; index < 6; index += 1) bytes[index] = Number((now >> BigInt(8 * (5 - index))) & 0xffn);
  bytes[6] = (bytes[6] & 0x0f) | 0x70;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

function send(response, status, body) {
  const text = body === undefined ? '' : JSON.stringify(body);
  response.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  response.end(text);
}

/** The key, looked up by its SHA-256 with its tenant in one statement. */
async function admitted(request, tenantId) {
  const header = request.headers.authorization ?? '';
  if (!header.startsWith('Bearer svc_')) return false;
  const hash = createHash('sha256').update(header.slice('Bearer '.length)).digest('hex');
  const { rows } = await pool.query(
    'SELECT k."tenantId", k."revokedAt", k."expiresAt", t.status FROM api_keys k JOIN tenants t ON t.id = k."tenantId" WHERE k."keyHash" = $1',
    [hash],
  );
  const key = rows[0];
  return key !== undefined && key.revokedAt === null && key.expiresAt > new Date() && key.tenantId === tenantId && key.status === 'active';
}

const columns = 'id, "tenantId", "tenantUserId", content, "createdAt", "updatedAt"';

async function readBody(request) {
  const chunks = [];
  for await (const chunk of request) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}

async function handle(request, response) {
  const url = new URL(request.url, 'http://localhost');
  if (url.pathname === '/health') return send(response, 200, { status: 'ok' });
  const match = /^\/tenants\/([^/]+)\/notes(?:\/([^/]+))?$/.exec(url.pathname);
  if (!match) return send(response, 404, { code: 'NOT_FOUND' });
  const [, tenantId, noteId] = match;
  if (!(await admitted(request, tenantId))) return send(response, 401, { code: 'UNAUTHENTICATED' });
  if (request.method === 'GET' && noteId === undefined) {
    const limit = Number(url.searchParams.get('limit') ?? 50);
    const offset = Number(url.searchParams.get('offset') ?? 0);
    if (!Number.isInteger(limit) || limit < 1 || limit > 200 || !Number.isInteger(offset) || offset < 0) {
      return send(response, 400, { code: 'VALIDATION_FAILED' });
    }
    const { rows } = await pool.query(`SELECT ${columns} FROM notes WHERE "tenantId" = $1 ORDER BY "createdAt" DESC, id DESC LIMIT $2 OFFSET $3`, [
      tenantId,
      limit,
      offset,
    ]);
    return send(response, 200, rows);
  }
  if (request.method === 'GET') {
    const { rows } = await pool.query(`SELECT ${columns} FROM notes WHERE id = $1 AND "tenantId" = $2`, [noteId, tenantId]);
    return rows[0] ? send(response, 200, rows[0]) : send(response, 404, { code: 'NOT_FOUND' });
  }
  if (request.method === 'POST' && noteId === undefined) {
    let body;
    try {
      body = JSON.parse(await readBody(request));
    } catch {
      return send(response, 400, { code: 'BAD_REQUEST' });
    }
    const content = body?.content;
    if (typeof content !== 'string' || content.trim() === '' || content.length > 10_000 || Object.keys(body).length !== 1) {
      return send(response, 400, { code: 'VALIDATION_FAILED' });
    }
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      const { rows } = await client.query(
        `INSERT INTO notes (id, "tenantId", "tenantUserId", content, "updatedAt") VALUES ($1, $2, NULL, $3, now()) RETURNING ${columns}`,
        [uuidv7(), tenantId, content],
      );
      const note = rows[0];
      await client.query('INSERT INTO events (id, "tenantId", type, "actorType", "actorId", "subjectId", data) VALUES ($1, $2, $3, $4, NULL, $5, $6)', [
        uuidv7(),
        tenantId,
        'note.created',
        'api_key',
        note.id,
        JSON.stringify(note),
      ]);
      await client.query('COMMIT');
      return send(response, 201, note);
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }
  return send(response, 405, { code: 'METHOD_NOT_ALLOWED' });
}

const server = http.createServer((request, response) => {
  handle(request, response).catch((error) => {
    process.stderr.write(`floor: ${error.stack}\n`);
    if (!response.headersSent) send(response, 500, { code: 'INTERNAL' });
  });
});
server.keepAliveTimeout = 5000;
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  process.stdout.write(`listening ${server.address().port}\n`);
});
process.on('SIGTERM', () => server.close(() => pool.end().then(() => process.exit(0))));
