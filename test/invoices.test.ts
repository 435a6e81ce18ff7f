/**
 * Invoices over REST and GraphQL against a real server with its workers: typed
 * in, uploaded as multipart (type by content, duplicates, limits), streamed
 * back, deleted with their file; OCR of generated invoices (a PNG, a scanned
 * PDF, a PDF with a text layer) by the real tesseract.js, and files it cannot
 * read failing cleanly.
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Invoice, Notification } from './generated/openapi/types.gen.js';
import { eventually } from './helpers/eventually.js';
import type { ApiResponse } from './helpers/http.js';
import { encryptedPdf, invoiceForm, invoicePng, scannedPdf, textPdf } from './helpers/invoices.js';
import { startIdentityProvider, type IdentityProvider } from './helpers/oidc.js';
import { seedTeam, seeder, type SeededMember, type Team } from './helpers/seed.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { createLogger } from '../src/lib/logger.js';

let provider: IdentityProvider;
let server: TestServer;
let team: Team;

beforeAll(async () => {
  provider = await startIdentityProvider();
  server = await startTestServer({ env: provider.env });
  team = await seedTeam(server, provider);
});
afterAll(async () => {
  await server?.stop();
  await provider?.close();
});

type Caller = { key: string } | SeededMember;

function credentials(caller: Caller): Record<string, string> {
  return 'cookie' in caller ? { cookie: caller.cookie, origin: server.url } : { authorization: `Bearer ${caller.key}` };
}

async function upload(caller: Caller, tenantId: string, form: FormData): Promise<ApiResponse<Invoice & { detail?: string; errors?: { path: string }[] }>> {
  const response = await fetch(`${server.url}/tenants/${tenantId}/invoices/upload`, { method: 'POST', headers: credentials(caller), body: form });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined, text } as ApiResponse<
    Invoice & { detail?: string; errors?: { path: string }[] }
  >;
}

/** The invoice once OCR has finished with it (done or failed). */
async function afterOcr(caller: Caller, tenantId: string, id: string, timeoutMs = 15_000): Promise<Invoice> {
  return eventually(async () => {
    const response = await fetch(`${server.url}/tenants/${tenantId}/invoices/${id}`, { headers: credentials(caller) });
    const invoice = (await response.json()) as Invoice;
    expect(['done', 'failed']).toContain(invoice.ocrStatus);
    return invoice;
  }, timeoutMs);
}

const storedFile = (sha256: string) => path.join(server.app.config.dataDir, 'files', 'sha256', sha256.slice(0, 2), sha256);

describe('OCR of generated invoices', () => {
  it('reads a PNG within 10 s: number, dates, currency, amounts; and tells the uploader', async () => {
    const started = Date.now();
    const uploaded = await upload(team.member, team.tenant.id, invoiceForm(invoicePng(), 'scan.png'));
    expect(uploaded.status, uploaded.text).toBe(201);
    expect(uploaded.body).toMatchObject({ source: 'upload', mimeType: 'image/png', ocrStatus: 'pending', uploadedById: team.member.id, fileName: 'scan.png' });
    const read = await afterOcr(team.member, team.tenant.id, uploaded.body.id, 10_000);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(read).toMatchObject({
      ocrStatus: 'done',
      number: 'INV-2026-0042',
      vendorName: 'ACME Supplies Ltd',
      issueDate: '2026-11-02',
      dueDate: '2026-12-02',
      currency: 'EUR',
      netAmount: '1037.44',
      taxAmount: '197.12',
      totalAmount: '1234.56',
      lastError: null,
    });
    expect(read.ocrText).toContain('INV-2026-0042');
    expect(read.ocrConfidence).toBeGreaterThan(60);
    const notifications = await eventually(async () => {
      const listed = await team.member.api.get<Notification[]>(`/tenants/${team.tenant.id}/notifications`);
      const mine = listed.body.filter((notification) => notification.type === 'invoice.ocr_completed');
      expect(mine).toHaveLength(1);
      return mine;
    });
    expect(notifications[0]?.data).toMatchObject({ invoiceId: uploaded.body.id });
    // The manager did not upload it and is not told.
    const managers = await team.manager.api.get<Notification[]>(`/tenants/${team.tenant.id}/notifications`);
    expect(managers.body.filter((notification) => notification.type.startsWith('invoice.'))).toEqual([]);
  });

  it('reads a scanned PDF (no text layer) by rendering its page', async () => {
    const uploaded = await upload(team.tenant, team.tenant.id, invoiceForm(await scannedPdf(), 'scanned.pdf'));
    expect(uploaded.status, uploaded.text).toBe(201);
    const read = await afterOcr(team.tenant, team.tenant.id, uploaded.body.id, 10_000);
    expect(read).toMatchObject({
      ocrStatus: 'done',
      mimeType: 'application/pdf',
      number: 'INV-2026-0042',
      issueDate: '2026-11-02',
      currency: 'EUR',
      totalAmount: '1234.56',
    });
    expect(read.ocrConfidence).toBeLessThan(100);
  });

  it('takes the text layer of a PDF that has one, and fills only the fields left empty', async () => {
    const uploaded = await upload(team.tenant, team.tenant.id, invoiceForm(await textPdf(), 'text.pdf', { number: 'MY-OWN-1', currency: 'usd' }));
    expect(uploaded.status, uploaded.text).toBe(201);
    expect(uploaded.body).toMatchObject({ number: 'MY-OWN-1', currency: 'USD' });
    const read = await afterOcr(team.tenant, team.tenant.id, uploaded.body.id);
    expect(read).toMatchObject({ ocrStatus: 'done', ocrConfidence: 100, number: 'MY-OWN-1', currency: 'USD', totalAmount: '1234.56', dueDate: '2026-12-02' });
  });

  it('fails cleanly on a broken, a password-protected and a too long PDF, and goes on working', async () => {
    const broken = Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(2000, 0x41)]);
    const cases = [
      { file: broken, name: 'broken.pdf', reason: /damaged or not a PDF/ },
      { file: encryptedPdf(), name: 'locked.pdf', reason: /password-protected/ },
      { file: await textPdf(['Page'], 21), name: 'long.pdf', reason: /21 pages/ },
    ];
    for (const { file, name, reason } of cases) {
      const uploaded = await upload(team.member, team.tenant.id, invoiceForm(file, name));
      expect(uploaded.status, uploaded.text).toBe(201);
      const read = await afterOcr(team.member, team.tenant.id, uploaded.body.id);
      expect(read.ocrStatus, name).toBe('failed');
      expect(read.lastError, name).toMatch(reason);
    }
    const failures = await eventually(async () => {
      const listed = await team.member.api.get<Notification[]>(`/tenants/${team.tenant.id}/notifications`);
      const failed = listed.body.filter((notification) => notification.type === 'invoice.ocr_failed');
      expect(failed).toHaveLength(3);
      return failed;
    });
    expect(failures).toHaveLength(3);
    // The worker is still there: the next file is read.
    const next = await upload(team.member, team.tenant.id, invoiceForm(invoicePng(['Other Vendor GmbH', 'Invoice R-77', 'Total 12.00 EUR']), 'next.png'));
    expect((await afterOcr(team.member, team.tenant.id, next.body.id)).ocrStatus).toBe('done');
  });

  it('marks an invoice failed when its OCR job is abandoned after the retries, never leaving it pending or running', async () => {
    for (const ocrStatus of ['running', 'pending'] as const) {
      const typed = await team.tenant.api.post<Invoice>(`/tenants/${team.tenant.id}/invoices`, { number: `ABANDONED-${ocrStatus}` });
      // What the dead-letter queue's worker does, on an invoice whose job kept failing (mid-read, or never claimed).
      await server.app.db.invoice.update({ where: { id: typed.body.id }, data: { ocrStatus, storageKey: `sha256/00/${'0'.repeat(64)}` } });
      await server.workers!.work.invoices.abandon(typed.body.id, createLogger('silent'));
      const after = await team.tenant.api.get<Invoice>(`/tenants/${team.tenant.id}/invoices/${typed.body.id}`);
      expect(after.body, ocrStatus).toMatchObject({ ocrStatus: 'failed', lastError: expect.stringMatching(/failed repeatedly/) });
    }
    // An invoice OCR is done with stays as it is.
    const done = await team.tenant.api.post<Invoice>(`/tenants/${team.tenant.id}/invoices`, { number: 'ABANDONED-done' });
    await server.app.db.invoice.update({ where: { id: done.body.id }, data: { ocrStatus: 'done', storageKey: `sha256/00/${'1'.repeat(64)}` } });
    await server.workers!.work.invoices.abandon(done.body.id, createLogger('silent'));
    expect((await team.tenant.api.get<Invoice>(`/tenants/${team.tenant.id}/invoices/${done.body.id}`)).body).toMatchObject({
      ocrStatus: 'done',
      lastError: null,
    });
  });

  it('runs again on request (202), keeping what was filled since, and finds the OCR text in search', async () => {
    const uploaded = await upload(team.tenant, team.tenant.id, invoiceForm(invoicePng(['Zeppelin Parts AG', 'Invoice ZP-9', 'Total 99.00 EUR']), 'zp.png'));
    await afterOcr(team.tenant, team.tenant.id, uploaded.body.id);
    const changed = await team.tenant.api.patch<Invoice>(`/tenants/${team.tenant.id}/invoices/${uploaded.body.id}`, {
      number: 'ZP-9-corrected',
      totalAmount: null,
    });
    expect(changed.status, changed.text).toBe(200);
    const again = await team.tenant.api.post<Invoice>(`/tenants/${team.tenant.id}/invoices/${uploaded.body.id}/ocr`);
    expect(again.status, again.text).toBe(202);
    expect(again.body.ocrStatus).toBe('pending');
    const read = await afterOcr(team.tenant, team.tenant.id, uploaded.body.id);
    expect(read).toMatchObject({ number: 'ZP-9-corrected', totalAmount: '99.00' });
    const found = await team.tenant.api.get<{ type: string; id: string }[]>(`/tenants/${team.tenant.id}/search`, {
      query: { q: 'zeppelin', types: 'invoices' },
    });
    expect(found.body.map((hit) => hit.id)).toContain(uploaded.body.id);
  });
});

describe('uploads', () => {
  it('tell the type by content: a text file named .png is 415, and so is a declared image/png', async () => {
    const answer = await upload(team.tenant, team.tenant.id, invoiceForm(Buffer.from('just some words, not an image'), 'fake.png', {}, 'image/png'));
    expect(answer.status).toBe(415);
    expect(answer.headers.get('content-type')).toContain('application/problem+json');
    expect(answer.body.detail).toMatch(/PDF, PNG, JPEG, TIFF or WebP/);
    // Nothing was kept: no invoice, nothing staged.
    const staging = path.join(server.app.config.dataDir, 'files', 'staging');
    expect(fs.existsSync(staging) ? fs.readdirSync(staging) : []).toEqual([]);
  });

  it('refuse the same file twice in a tenant (409 naming the first), but not in another tenant', async () => {
    const file = invoicePng(['Twice Ltd', 'Invoice T-1']);
    const first = await upload(team.tenant, team.tenant.id, invoiceForm(file, 'a.png'));
    expect(first.status, first.text).toBe(201);
    const second = await upload(team.member, team.tenant.id, invoiceForm(file, 'b.png'));
    expect(second.status).toBe(409);
    expect(second.body).toMatchObject({ code: 'CONFLICT', reason: 'DUPLICATE_FILE' });
    expect(second.body.detail).toContain(first.body.id);
    expect(second.headers.get('location')).toBe(`/tenants/${team.tenant.id}/invoices/${first.body.id}`);
    const other = await seeder(server).tenant();
    const elsewhere = await upload(other, other.id, invoiceForm(file, 'c.png'));
    expect(elsewhere.status, elsewhere.text).toBe(201);

    // One stored copy; deleting one invoice keeps the file the other still has, deleting both removes it.
    const sha256 = first.body.sha256 as string;
    expect(fs.existsSync(storedFile(sha256))).toBe(true);
    expect((await team.tenant.api.delete(`/tenants/${team.tenant.id}/invoices/${first.body.id}`)).status).toBe(204);
    expect(fs.existsSync(storedFile(sha256))).toBe(true);
    const stillThere = await fetch(`${server.url}/tenants/${other.id}/invoices/${elsewhere.body.id}/file`, { headers: credentials(other) });
    expect(Buffer.from(await stillThere.arrayBuffer()).equals(file)).toBe(true);
    expect((await other.api.delete(`/tenants/${other.id}/invoices/${elsewhere.body.id}`)).status).toBe(204);
    expect(fs.existsSync(storedFile(sha256))).toBe(false);
  });

  it('stream the file back with its type and a safe Content-Disposition', async () => {
    const file = invoicePng(['Download Test']);
    const uploaded = await upload(team.member, team.tenant.id, invoiceForm(file, '../../etc/Rechnung März.png'));
    expect(uploaded.status, uploaded.text).toBe(201);
    expect(uploaded.body.fileName).toBe('Rechnung März.png');
    const response = await fetch(`${server.url}/tenants/${team.tenant.id}/invoices/${uploaded.body.id}/file`, { headers: credentials(team.member) });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('image/png');
    expect(response.headers.get('content-disposition')).toBe(`attachment; filename="Rechnung M_rz.png"; filename*=UTF-8''Rechnung%20M%C3%A4rz.png`);
    expect(Buffer.from(await response.arrayBuffer()).equals(file)).toBe(true);
    // An invoice typed in by hand has no file.
    const typed = await team.tenant.api.post<Invoice>(`/tenants/${team.tenant.id}/invoices`, { number: 'H-1' });
    expect((await team.tenant.api.get(`/tenants/${team.tenant.id}/invoices/${typed.body.id}/file`)).status).toBe(404);
  });

  it('answer a form without a file, a bad field, or an over-long declared body with the right problem', async () => {
    const form = new FormData();
    form.append('number', 'X');
    expect((await upload(team.tenant, team.tenant.id, form)).status).toBe(400);
    const badDate = await upload(team.tenant, team.tenant.id, invoiceForm(invoicePng(['Bad date']), 'x.png', { issueDate: '2026-13-45' }));
    expect(badDate.status).toBe(400);
    expect(badDate.body.errors?.map((error) => error.path)).toEqual(['issueDate']);
    // Declares 30 MiB and sends none of it: refused from the headers, before any byte is read.
    const tooLarge = await new Promise<number>((resolve, reject) => {
      const request = http.request(`${server.url}/tenants/${team.tenant.id}/invoices/upload`, {
        method: 'POST',
        headers: { ...credentials(team.tenant), 'content-type': 'multipart/form-data; boundary=x', 'content-length': String(30 * 1024 * 1024) },
      });
      request.on('response', (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
        request.destroy();
      });
      request.on('error', reject);
      request.flushHeaders();
    });
    expect(tooLarge).toBe(413);
    const staging = path.join(server.app.config.dataDir, 'files', 'staging');
    expect(fs.existsSync(staging) ? fs.readdirSync(staging) : []).toEqual([]);
  });
});

describe('invoices by hand, and who sees what', () => {
  it('validate fields by name, and filter by status, project and issue date', async () => {
    const bad = await team.tenant.api.post<{ errors: { path: string }[] }>(`/tenants/${team.tenant.id}/invoices`, { currency: 'EURO', totalAmount: 'lots' });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((error) => error.path).sort()).toEqual(['currency', 'totalAmount']);
    const project = await team.tenant.api.post<{ id: string }>(`/tenants/${team.tenant.id}/projects`, { name: 'Invoice project' });
    const booked = await team.tenant.api.post<Invoice>(`/tenants/${team.tenant.id}/invoices`, {
      number: 'F-1',
      issueDate: '2026-10-15',
      totalAmount: 10,
      currency: 'eur',
      projectId: project.body.id,
    });
    expect(booked.status, booked.text).toBe(201);
    expect(booked.body).toMatchObject({ source: 'manual', ocrStatus: 'none', totalAmount: '10.00', currency: 'EUR', status: 'open' });
    await team.tenant.api.post(`/tenants/${team.tenant.id}/invoices`, { number: 'F-2', issueDate: '2026-09-01', status: 'paid' });
    const byProject = await team.tenant.api.get<Invoice[]>(`/tenants/${team.tenant.id}/invoices`, { query: { projectId: project.body.id } });
    expect(byProject.body.map((invoice) => invoice.number)).toEqual(['F-1']);
    const october = await team.tenant.api.get<Invoice[]>(`/tenants/${team.tenant.id}/invoices`, { query: { from: '2026-10-01', to: '2026-10-31' } });
    expect(october.body.map((invoice) => invoice.number)).toEqual(['F-1']);
    const paid = await team.tenant.api.get<Invoice[]>(`/tenants/${team.tenant.id}/invoices`, { query: { status: 'paid' } });
    expect(paid.body.map((invoice) => invoice.number)).toEqual(['F-2']);
    const approved = await team.manager.api.patch<Invoice>(`/tenants/${team.tenant.id}/invoices/${booked.body.id}`, { status: 'approved', projectId: null });
    expect(approved.status, approved.text).toBe(200);
    expect(approved.body).toMatchObject({ status: 'approved', projectId: null });
  });

  it('are a member’s own: another member’s is a 404, changing or deleting is refused; managers see all', async () => {
    const mine = await upload(team.member, team.tenant.id, invoiceForm(invoicePng(['Mine Only']), 'mine.png'));
    expect(mine.status, mine.text).toBe(201);
    const colleagues = await team.colleague.api.get<Invoice[]>(`/tenants/${team.tenant.id}/invoices`);
    expect(colleagues.body.map((invoice) => invoice.id)).not.toContain(mine.body.id);
    expect((await team.colleague.api.get(`/tenants/${team.tenant.id}/invoices/${mine.body.id}`)).status).toBe(404);
    expect((await team.colleague.api.get(`/tenants/${team.tenant.id}/invoices/${mine.body.id}/file`)).status).toBe(404);
    const own = await team.member.api.get<Invoice[]>(`/tenants/${team.tenant.id}/invoices`);
    expect(own.body.every((invoice) => invoice.uploadedById === team.member.id)).toBe(true);
    expect((await team.member.api.patch(`/tenants/${team.tenant.id}/invoices/${mine.body.id}`, { number: 'X' })).status).toBe(403);
    expect((await team.member.api.delete(`/tenants/${team.tenant.id}/invoices/${mine.body.id}`)).status).toBe(403);
    const managers = await team.manager.api.get<Invoice[]>(`/tenants/${team.tenant.id}/invoices`, { query: { limit: 100 } });
    expect(managers.body.map((invoice) => invoice.id)).toContain(mine.body.id);
    const other = await seeder(server).tenant();
    expect((await other.api.get(`/tenants/${other.id}/invoices/${mine.body.id}`)).status).toBe(404);
  });

  it('are the same resource over GraphQL, with their project resolved', async () => {
    const answer = await team.tenant.api.post<{ data: { invoices: { number: string | null; project: { name: string } | null }[] } }>('/graphql', {
      query: 'query ($t: ID!) { invoices(tenantId: $t, status: approved) { number project { name } } }',
      variables: { t: team.tenant.id },
    });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body.data.invoices.map((invoice) => invoice.number)).toContain('F-1');
  });
});
