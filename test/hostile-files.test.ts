/**
 * Hostile files against Tally run as it is deployed: an API process and a
 * worker process (`tally serve --role api|worker`), measured from outside
 * through /proc: each process's resident memory when idle (after a normal
 * upload or mail has loaded what it needs), then its peak (VmHWM, reset
 * before each file) while it takes a bomb. No upload and no mail may grow
 * either by 100 MB.
 *
 * The bombs are made here (test/helpers/bombs.ts): a 4 MiB PDF whose
 * embedded factur-x.xml inflates to 4 GiB (in the EmbeddedFiles tree and
 * /AF, or in /AF only), a PDF of 400,000 objects (pdf-lib would build
 * them all: the worker's budget stops it), XML nested 700,000 deep, the billion laughs, 1.3
 * million elements in 5 MiB, and XML over the limit. Through the upload
 * route each is a 400 naming `file`; mailed to a synced mailbox each is
 * skipped, and the sync goes on.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Invoice, Sync } from './generated/openapi/types.gen.js';
import { billionLaughs, ciiStart, deepXml, pdfBomb, pdfOfManyObjects, pdfWithCompressedAttachment, wideXml, zlibBomb } from './helpers/bombs.js';
import { example, pdfWithEmbedded } from './helpers/einvoices.js';
import { eventually } from './helpers/eventually.js';
import { apiClient, type ApiClient } from './helpers/http.js';
import { ensureImapServer, freshImapUser, imapClient, imapHost, imapPassword, imapPort, mailMessage, type Attachment } from './helpers/imap.js';
import { invoiceForm } from './helpers/invoices.js';
import { startTallyProcess, type TallyProcess } from './helpers/processes.js';
import { seeder, type SeededTenant } from './helpers/seed.js';
import { startTestServer, type TestServer } from './helpers/server.js';

const mebibyte = 1024 * 1024;
/** What one upload or mail may add to a process's resident memory. */
const allowedGrowthMb = 100;
/** The bomb: 4 GiB once inflated (TEST_BOMB_BYTES makes it smaller, to measure code that inflates it whole). */
const bombBytes = Number(process.env.TEST_BOMB_BYTES ?? 4 * 1024 * mebibyte);

let seeding: TestServer;
let api: TallyProcess;
let worker: TallyProcess;
let tenant: SeededTenant;
let client: ApiClient;

beforeAll(async () => {
  ensureImapServer();
  // Seeds the tenant; runs no jobs (ROLE=api), so the worker process is the only one that reads mail.
  seeding = await startTestServer({ env: { ROLE: 'api' } });
  tenant = await seeder(seeding).tenant();
  const env = { WEBHOOK_ALLOW_PRIVATE_URLS: 'true' };
  [api, worker] = await Promise.all([startTallyProcess('api', seeding.databaseUrl, env), startTallyProcess('worker', seeding.databaseUrl, env)]);
  client = apiClient(api.url, { apiKey: tenant.key });
}, 120_000);
afterAll(async () => {
  await Promise.all([api?.stop(), worker?.stop()]);
  await seeding?.stop();
});

/** Kilobytes of a /proc/<pid>/status line, in MB. */
function statusMb(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1]) / 1024;
}

/** The process's resident memory before `act` and its peak during it (the peak reset first: clear_refs 5). */
async function measured(process: TallyProcess, label: string, act: () => Promise<void>): Promise<{ idle: number; peak: number }> {
  const pid = process.command.child.pid as number;
  const idle = statusMb(pid, 'VmRSS');
  fs.writeFileSync(`/proc/${pid}/clear_refs`, '5');
  await act();
  const peak = statusMb(pid, 'VmHWM');
  // The figures the report and docs/performance.md quote.
  console.info(`${process.role} ${label}: idle ${idle.toFixed(0)} MB, peak ${peak.toFixed(0)} MB, +${(peak - idle).toFixed(0)} MB`);
  return { idle, peak };
}

async function upload(file: Buffer, fileName: string, type: string) {
  const response = await fetch(`${api.url}/tenants/${tenant.id}/invoices/upload`, {
    method: 'POST',
    headers: { authorization: `Bearer ${tenant.key}` },
    body: invoiceForm(file, fileName, {}, type),
  });
  return { status: response.status, body: (await response.json()) as Invoice & { errors?: { path: string; message: string }[] } };
}

/** Each bomb: a name, the file, its type, and what the 400 says. */
async function bombs(): Promise<{ label: string; attachment: Attachment; says: RegExp }[]> {
  const bomb = await pdfBomb(bombBytes);
  const afOnly = await pdfWithCompressedAttachment(zlibBomb(ciiStart, bombBytes), { only: 'AF' });
  const xml = (label: string, content: Buffer, says: RegExp) => ({
    label,
    attachment: { fileName: `${label}.xml`, contentType: 'application/xml', content },
    says,
  });
  return [
    { label: 'PDF bomb', attachment: { fileName: 'bomb.pdf', contentType: 'application/pdf', content: bomb }, says: /factur-x\.xml.*over 5242880 bytes/ },
    { label: 'PDF bomb in /AF only', attachment: { fileName: 'af.pdf', contentType: 'application/pdf', content: afOnly }, says: /over 5242880 bytes/ },
    {
      label: 'PDF of 400,000 objects',
      attachment: { fileName: 'objects.pdf', contentType: 'application/pdf', content: pdfOfManyObjects(400_000) },
      says: /needs more (memory|time) to open/,
    },
    xml('deep-nesting', deepXml(700_000), /deeper than 64 levels/),
    xml('billion-laughs', billionLaughs(), /DOCTYPE/),
    xml('wide', wideXml(5 * mebibyte - 1024), /more than 100000 elements/),
    xml('too-large', wideXml(19 * mebibyte), /an XML invoice may have 5242880/),
  ];
}

describe('a hostile file', () => {
  it('uploaded, is a 400 naming file, and grows the API process by less than 100 MB', async () => {
    // Idle means warm: an e-invoice and a Factur-X PDF read once, so what they load is in the baseline.
    expect((await upload(example('CII_example1.xml'), 'warm.xml', 'application/xml')).status).toBe(201);
    expect((await upload(await pdfWithEmbedded(example('CII_business_example_01.xml')), 'warm.pdf', 'application/pdf')).status).toBe(201);
    const results = [];
    for (const { label, attachment, says } of await bombs()) {
      let answer: Awaited<ReturnType<typeof upload>> | undefined;
      const memory = await measured(api, `upload ${label} (${(attachment.content.length / mebibyte).toFixed(1)} MiB)`, async () => {
        answer = await upload(attachment.content, attachment.fileName, attachment.contentType);
      });
      results.push({ label, says, answer, ...memory });
    }
    // Every figure first (they are the report), then what each must be.
    for (const { label, says, answer, idle, peak } of results) {
      expect(answer?.status, label).toBe(400);
      expect(
        answer?.body.errors?.map((error) => error.path),
        label,
      ).toEqual(['file']);
      expect(answer?.body.errors?.[0]?.message, label).toMatch(says);
      expect(peak - idle, label).toBeLessThan(allowedGrowthMb);
    }
    const stored = await client.get<Invoice[]>(`/tenants/${tenant.id}/invoices`, { query: { limit: 100 } });
    expect(stored.body.map((invoice) => invoice.fileName).sort()).toEqual(['warm.pdf', 'warm.xml']);
  }, 120_000);

  it('mailed to a synced mailbox, is skipped, and grows the worker process by less than 100 MB', async () => {
    const user = freshImapUser();
    const mailbox = await imapClient(user);
    const sync = (
      await client.post<Sync>(`/tenants/${tenant.id}/syncs`, {
        name: 'Bombs',
        host: imapHost,
        port: imapPort,
        secure: false,
        username: user,
        password: imapPassword,
      })
    ).body;
    const run = async (): Promise<Sync> => {
      const before = (await client.get<Sync>(`/tenants/${tenant.id}/syncs/${sync.id}`)).body.lastSyncedAt;
      expect((await client.post(`/tenants/${tenant.id}/syncs/${sync.id}/run`)).status).toBe(202);
      return eventually(async () => {
        const current = (await client.get<Sync>(`/tenants/${tenant.id}/syncs/${sync.id}`)).body;
        expect(current.status).not.toBe('running');
        expect(current.lastSyncedAt).not.toBe(before);
        return current;
      }, 60_000);
    };
    try {
      // Warm: a mail with an e-invoice and a Factur-X PDF read once.
      await mailbox.append(
        'INBOX',
        mailMessage({
          from: 'billing@vendor.test',
          subject: 'Warm',
          attachments: [
            { fileName: 'warm.xml', contentType: 'application/xml', content: example('ubl-tc434-example1.xml') },
            { fileName: 'warm.pdf', contentType: 'application/pdf', content: await pdfWithEmbedded(example('XRechnung-O.xml')) },
          ],
        }),
      );
      expect((await run()).status).toBe('idle');
      const warm = (await client.get<Invoice[]>(`/tenants/${tenant.id}/invoices`, { query: { limit: 100 } })).body.filter((each) => each.syncId === sync.id);
      expect(warm.length).toBeGreaterThan(0);

      const results = [];
      for (const { label, attachment } of await bombs()) {
        await mailbox.append('INBOX', mailMessage({ from: 'mallory@attacker.test', subject: label, attachments: [attachment] }));
        let ran: Sync | undefined;
        const memory = await measured(worker, `mail ${label}`, async () => {
          ran = await run();
        });
        results.push({ label, ran, ...memory });
      }
      for (const { label, ran, idle, peak } of results) {
        expect(ran, label).toMatchObject({ status: 'idle', lastError: null });
        expect(peak - idle, label).toBeLessThan(allowedGrowthMb);
      }
      const imported = (await client.get<Invoice[]>(`/tenants/${tenant.id}/invoices`, { query: { limit: 100 } })).body.filter(
        (each) => each.syncId === sync.id,
      );
      expect(imported).toHaveLength(warm.length);
    } finally {
      await mailbox.logout();
    }
  }, 180_000);
});
