/**
 * A client that goes away in the middle of sending its request is no error of
 * ours: it is logged at debug, never as an unhandled error, and the server
 * carries on.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../src/lib/logger.js';
import { seeder, type SeededTenant } from './helpers/seed.js';
import { startTestServer, type TestServer } from './helpers/server.js';

const lines: { level: string; msg: string }[] = [];
let server: TestServer;
let tenant: SeededTenant;

beforeAll(async () => {
  const log = createLogger('debug', {}, { write: (line: string) => void lines.push(JSON.parse(line) as { level: string; msg: string }) });
  server = await startTestServer({ log });
  tenant = await seeder(server).tenant();
});
afterAll(async () => {
  await server?.stop();
});

/** Sends the head of a POST promising `declared` bytes, a few of them, then hangs up. */
async function abandon(path: string, declared: number): Promise<void> {
  const { port } = new URL(server.url);
  const socket = net.connect(Number(port), '127.0.0.1');
  await new Promise((resolve) => socket.once('connect', resolve));
  socket.write(
    `POST ${path} HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${tenant.key}\r\nContent-Type: application/json\r\nContent-Length: ${declared}\r\n\r\n{"content":`,
  );
  await new Promise((resolve) => setTimeout(resolve, 100));
  socket.destroy();
  await new Promise((resolve) => setTimeout(resolve, 200));
}

describe('a client that goes away mid-request', () => {
  it('is logged at debug, not as an error, on REST and GraphQL, and the server carries on', async () => {
    lines.length = 0;
    await abandon(`/tenants/${tenant.id}/notes`, 1000);
    await abandon('/graphql', 1000);
    expect(lines.filter((line) => line.level === 'error' || line.level === 'fatal')).toEqual([]);
    expect(lines.some((line) => line.level === 'debug' && line.msg === 'the client went away before the request was read')).toBe(true);
    expect((await tenant.api.get(`/tenants/${tenant.id}/notes`)).status).toBe(200);
  });
});
