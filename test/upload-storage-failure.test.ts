/**
 * An upload whose file cannot be written (DATA_DIR unwritable: a full disk,
 * or the Docker image's user, who owns nothing in /app) is the server's
 * failure, a 500, and it is that request's alone: the process goes on
 * serving. Found by the production smoke, where such an upload ended
 * `tally serve` with an unhandled 'error' event of the upload's stream.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { invoiceForm, invoicePng } from './helpers/invoices.js';
import { seeder, type SeededTenant } from './helpers/seed.js';
import { startTestServer, type TestServer } from './helpers/server.js';

let scratch: string;
let server: TestServer;
let tenant: SeededTenant;

beforeAll(async () => {
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'tally-unwritable-'));
  // A directory cannot be made under a file, for root too (CI runs as root, whom permissions do not stop).
  fs.writeFileSync(path.join(scratch, 'a-file'), '');
  server = await startTestServer({ env: { DATA_DIR: path.join(scratch, 'a-file', 'data') } });
  tenant = await seeder(server).tenant();
});
afterAll(async () => {
  await server?.stop();
  if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
});

describe('an upload that cannot be stored', () => {
  it.each([
    ['imports', () => invoiceForm(Buffer.from('User,Email\nAda,ada@example.com\n'), 'export.csv', { source: 'toggl' }, 'text/csv')],
    ['invoices/upload', () => invoiceForm(invoicePng(), 'scan.png')],
  ])('POST %s is a 500 problem, and the server goes on serving', async (route, form) => {
    const response = await fetch(`${server.url}/tenants/${tenant.id}/${route}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tenant.key}` },
      body: form(),
    });
    expect(response.status).toBe(500);
    expect(response.headers.get('content-type')).toContain('application/problem+json');
    // The unhandled 'error' of the upload's stream ended the process on the next tick.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect((await fetch(`${server.url}/health`)).status).toBe(200);
  });
});
