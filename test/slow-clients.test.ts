/**
 * Slow and stalled clients (slow-loris) cannot hold a connection: headers
 * must arrive within HEADERS_TIMEOUT_MS, and a body that stops arriving for
 * BODY_IDLE_TIMEOUT_MS is answered 408 (problem+json) and its connection
 * closed, on REST and GraphQL alike. A body that keeps moving may take longer
 * than that in total: a 20 MiB upload sent in pieces still arrives. The limits
 * are shortened here through the environment.
 */
import { createHash } from 'node:crypto';
import type http from 'node:http';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createHttpServer } from '../src/http/server.js';
import { fields } from '../src/lib/dto.js';
import { uploadLimit } from '../src/rest/body.js';
import { nativeRoute, tagged } from '../src/rest/route.js';
import { createRestApi } from '../src/rest/router.js';
import { seeder, type SeededTenant } from './helpers/seed.js';
import { startTestServer, type TestServer } from './helpers/server.js';

const headersTimeoutMs = 1_000;
const bodyIdleTimeoutMs = 1_000;
/** What a limit may be late by: Node checks headers every quarter of the limit, we check bodies the same; plus a busy test machine. */
const slack = 1_500;

let server: TestServer;
let tenant: SeededTenant;
/** The same HTTP server and app, with an upload row added (Tally itself has no upload route yet). */
let uploads: http.Server;
let uploadsPort: number;

beforeAll(async () => {
  server = await startTestServer({
    env: { HEADERS_TIMEOUT_MS: String(headersTimeoutMs), BODY_IDLE_TIMEOUT_MS: String(bodyIdleTimeoutMs), REQUEST_TIMEOUT_MS: '60000' },
  });
  tenant = await seeder(server).tenant();

  const rows = [
    nativeRoute({
      controller: 'invoice',
      action: 'testSlowUpload',
      method: 'POST',
      path: '/tenants/{tenantId}/uploads',
      summary: 'Upload a file',
      description: 'Hashes what it receives.',
      access: ['create', 'Invoice'],
      parameters: z.strictObject({ tenantId: fields.id('Tenant id') }),
      body: {
        kind: 'multipart',
        fileField: 'file',
        fileDescription: 'Any file',
        fields: z.strictObject({}),
        async stage(file) {
          const hash = createHash('sha256');
          let bytes = 0;
          for await (const chunk of file.stream) {
            bytes += (chunk as Buffer).length;
            hash.update(chunk as Buffer);
          }
          return { bytes, sha256: hash.digest('hex') };
        },
      },
      responses: { '201': { description: 'Stored', schema: { type: 'object' } } },
      async handler({ upload }) {
        return { status: 201, headers: { 'content-type': 'application/json' }, body: JSON.stringify(upload) };
      },
    }),
  ];
  const rest = createRestApi({
    schema: server.app.schema,
    table: tagged({ name: 'Uploads', description: 'Rows made for this test' }, rows),
    log: server.app.log,
    platform: server.app.platform,
    gate: server.app.gate,
    contextFor: server.app.contextFor,
    publicPrefixes: [],
  });
  const { config } = server.app;
  uploads = createHttpServer(
    { ...server.app, rest },
    { requestTimeoutMs: config.requestTimeoutMs, headersTimeoutMs: config.headersTimeoutMs, bodyIdleTimeoutMs: config.bodyIdleTimeoutMs },
  );
  await new Promise<void>((resolve) => uploads.listen(0, '127.0.0.1', resolve));
  uploadsPort = (uploads.address() as net.AddressInfo).port;
});
afterAll(async () => {
  uploads?.closeAllConnections();
  await new Promise((resolve) => uploads?.close(resolve));
  await server?.stop();
});

interface RawConnection {
  socket: net.Socket;
  /** Everything the server sent. */
  received: () => string;
  /** Resolves with the milliseconds from connect to close, or 'still open' after `limitMs`. */
  closed: (limitMs: number) => Promise<number | 'still open'>;
}

async function connect(port = Number(new URL(server.url).port)): Promise<RawConnection> {
  const socket = net.connect(port, '127.0.0.1');
  await new Promise((resolve) => socket.once('connect', resolve));
  const opened = Date.now();
  let received = '';
  socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
  // The server may close while we still write; that is what we test for.
  socket.on('error', () => undefined);
  const whenClosed = new Promise<number>((resolve) => socket.once('close', () => resolve(Date.now() - opened)));
  return {
    socket,
    received: () => received,
    async closed(limitMs) {
      let timer: NodeJS.Timeout | undefined;
      const result = await Promise.race([whenClosed, new Promise<'still open'>((resolve) => (timer = setTimeout(() => resolve('still open'), limitMs)))]);
      clearTimeout(timer);
      if (result === 'still open') socket.destroy();
      return result;
    },
  };
}

const head = (path: string, headers: Record<string, string>): string =>
  `POST ${path} HTTP/1.1\r\nHost: localhost\r\n${Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('')}\r\n`;

/** The status line, the headers (lower-cased) and the JSON body of a raw HTTP/1.1 answer, chunked or not. */
function parseAnswer(raw: string): { statusLine: string; headers: string; body: unknown } {
  const [headPart = '', ...rest] = raw.split('\r\n\r\n');
  const headers = headPart.toLowerCase();
  let text = rest.join('\r\n\r\n');
  if (headers.includes('transfer-encoding: chunked')) {
    let body = '';
    for (let at = 0; at < text.length; ) {
      const lineEnd = text.indexOf('\r\n', at);
      const size = parseInt(text.slice(at, lineEnd), 16);
      if (!(size > 0)) break;
      body += text.slice(lineEnd + 2, lineEnd + 2 + size);
      at = lineEnd + 2 + size + 2;
    }
    text = body;
  }
  return { statusLine: headPart.split('\r\n')[0] ?? '', headers, body: text ? (JSON.parse(text) as unknown) : undefined };
}

/** Sends `head`, then 10 bytes of a body that promised 100, then nothing. */
async function stalledBody(path: string, headers: Record<string, string>, port?: number): Promise<{ heldMs: number | 'still open'; raw: string }> {
  const connection = await connect(port);
  connection.socket.write(head(path, { 'content-type': 'application/json', 'content-length': '100', ...headers }));
  connection.socket.write('{"content"');
  const heldMs = await connection.closed(bodyIdleTimeoutMs + slack + 2_000);
  return { heldMs, raw: connection.received() };
}

describe('a client that sends its headers slowly', () => {
  it('is answered 408 and cut off once HEADERS_TIMEOUT_MS has passed, however it trickles', async () => {
    const connection = await connect();
    connection.socket.write('POST /graphql HTTP/1.1\r\nHost: localhost\r\n');
    let line = 0;
    const trickle = setInterval(() => connection.socket.writable && connection.socket.write(`x-slow-${line++}: y\r\n`), 200);
    const heldMs = await connection.closed(headersTimeoutMs + slack + 5_000);
    clearInterval(trickle);
    expect(heldMs).not.toBe('still open');
    expect(heldMs).toBeGreaterThanOrEqual(headersTimeoutMs - 50);
    expect(heldMs).toBeLessThan(headersTimeoutMs + slack);
    expect(connection.received()).toMatch(/^HTTP\/1\.1 408/);
  });
});

describe('a body that stops arriving', () => {
  it('on REST: 408 problem+json REQUEST_TIMEOUT after BODY_IDLE_TIMEOUT_MS, and the connection is closed', async () => {
    const { heldMs, raw } = await stalledBody(`/tenants/${tenant.id}/notes`, { authorization: `Bearer ${tenant.key}` });
    expect(heldMs).not.toBe('still open');
    expect(heldMs).toBeGreaterThanOrEqual(bodyIdleTimeoutMs - 50);
    expect(heldMs).toBeLessThan(bodyIdleTimeoutMs + slack);
    const answer = parseAnswer(raw);
    expect(answer.statusLine).toBe('HTTP/1.1 408 Request Timeout');
    expect(answer.headers).toContain('content-type: application/problem+json');
    expect(answer.headers).toContain('connection: close');
    expect(answer.body).toMatchObject({ status: 408, code: 'REQUEST_TIMEOUT' });
  });

  it('on GraphQL: the same', async () => {
    const { heldMs, raw } = await stalledBody('/graphql', { authorization: `Bearer ${tenant.key}` });
    expect(heldMs).not.toBe('still open');
    expect(heldMs).toBeLessThan(bodyIdleTimeoutMs + slack);
    expect(parseAnswer(raw)).toMatchObject({ statusLine: 'HTTP/1.1 408 Request Timeout', body: { code: 'REQUEST_TIMEOUT' } });
  });

  it('after an answer that did not need the body (401): the connection is closed all the same', async () => {
    const { heldMs, raw } = await stalledBody(`/tenants/${tenant.id}/notes`, {});
    expect(raw).toMatch(/^HTTP\/1\.1 401/);
    expect(heldMs).not.toBe('still open');
    expect(heldMs).toBeLessThan(bodyIdleTimeoutMs + slack);
  });

  it('in the middle of an upload: 408, and the connection is closed', async () => {
    const boundary = 'slow-boundary';
    const connection = await connect(uploadsPort);
    connection.socket.write(
      head(`/tenants/${tenant.id}/uploads`, {
        authorization: `Bearer ${tenant.key}`,
        'content-type': `multipart/form-data; boundary=${boundary}`,
        'content-length': String(1024 * 1024),
      }),
    );
    connection.socket.write(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.pdf"\r\nContent-Type: application/pdf\r\n\r\n`);
    connection.socket.write(Buffer.alloc(64 * 1024, 1));
    const heldMs = await connection.closed(bodyIdleTimeoutMs + slack + 2_000);
    expect(heldMs).not.toBe('still open');
    expect(heldMs).toBeLessThan(bodyIdleTimeoutMs + slack);
    expect(parseAnswer(connection.received()).body).toMatchObject({ code: 'REQUEST_TIMEOUT' });
  });
});

describe('clients that keep sending', () => {
  it('are served normally after the slow ones were cut off', async () => {
    const created = await tenant.api.post(`/tenants/${tenant.id}/notes`, { content: 'after the slow ones' });
    expect(created.status).toBe(201);
    expect((await tenant.api.get(`/tenants/${tenant.id}/notes`)).status).toBe(200);
  });

  it('may take longer than BODY_IDLE_TIMEOUT_MS in all for a body that keeps moving', async () => {
    const body = JSON.stringify({ content: 'x'.repeat(4_000) });
    const connection = await connect();
    connection.socket.write(
      head(`/tenants/${tenant.id}/notes`, { authorization: `Bearer ${tenant.key}`, 'content-type': 'application/json', 'content-length': String(body.length) }),
    );
    const pieces = 10;
    const size = Math.ceil(body.length / pieces);
    const started = Date.now();
    for (let piece = 0; piece < pieces; piece += 1) {
      connection.socket.write(body.slice(piece * size, (piece + 1) * size));
      await new Promise((resolve) => setTimeout(resolve, bodyIdleTimeoutMs / 4));
    }
    while (!connection.received().includes('\r\n\r\n') && Date.now() - started < 10_000) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(Date.now() - started).toBeGreaterThan(2 * bodyIdleTimeoutMs);
    expect(connection.received()).toMatch(/^HTTP\/1\.1 201/);
    connection.socket.destroy();
  });

  it('upload 20 MiB in pieces with pauses, for longer in all than BODY_IDLE_TIMEOUT_MS', async () => {
    const boundary = 'steady-boundary';
    const content = Buffer.alloc(uploadLimit, 7);
    const opening = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.pdf"\r\nContent-Type: application/pdf\r\n\r\n`;
    const closing = `\r\n--${boundary}--\r\n`;
    const connection = await connect(uploadsPort);
    connection.socket.write(
      head(`/tenants/${tenant.id}/uploads`, {
        authorization: `Bearer ${tenant.key}`,
        'content-type': `multipart/form-data; boundary=${boundary}`,
        'content-length': String(Buffer.byteLength(opening) + content.length + Buffer.byteLength(closing)),
      }),
    );
    connection.socket.write(opening);
    const started = Date.now();
    const piece = 1024 * 1024;
    for (let offset = 0; offset < content.length; offset += piece) {
      if (!connection.socket.write(content.subarray(offset, offset + piece))) await new Promise((resolve) => connection.socket.once('drain', resolve));
      await new Promise((resolve) => setTimeout(resolve, 150));
    }
    connection.socket.write(closing);
    while (!connection.received().endsWith('\r\n0\r\n\r\n') && Date.now() - started < 30_000) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(Date.now() - started).toBeGreaterThan(2 * bodyIdleTimeoutMs);
    const answer = parseAnswer(connection.received());
    expect(answer.statusLine).toBe('HTTP/1.1 201 Created');
    expect(answer.body).toEqual({ fields: {}, file: { bytes: uploadLimit, sha256: createHash('sha256').update(content).digest('hex') } });
    connection.socket.destroy();
  });
});
