/**
 * Mailbox syncs against a real IMAP server (Dovecot on loopback, see
 * test/helpers/imap.ts) and a real server with its workers: first and
 * incremental runs, overlapping runs, a UIDVALIDITY change, a wrong
 * password, a message without attachments, the sender filter, the schedule,
 * e-invoice attachments read from their XML, and the password kept
 * write-only and encrypted.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Invoice, Notification, Sync } from './generated/openapi/types.gen.js';
import { testClock } from './helpers/clock.js';
import { eventually } from './helpers/eventually.js';
import { ensureImapServer, freshImapUser, imapClient, imapHost, imapPassword, imapPort, mailMessage } from './helpers/imap.js';
import { example, pdfWithEmbedded } from './helpers/einvoices.js';
import { invoicePng, textPdf } from './helpers/invoices.js';
import { startIdentityProvider, type IdentityProvider } from './helpers/oidc.js';
import { seedTeam, seeder, type Team } from './helpers/seed.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { createLogger } from '../src/lib/logger.js';

let provider: IdentityProvider;
let server: TestServer;
let team: Team;

beforeAll(async () => {
  ensureImapServer();
  provider = await startIdentityProvider();
  // The IMAP server is on loopback: private addresses are allowed here (and refused in the last test).
  server = await startTestServer({ env: { ...provider.env, WEBHOOK_ALLOW_PRIVATE_URLS: 'true' } });
  team = await seedTeam(server, provider);
});
afterAll(async () => {
  await server?.stop();
  await provider?.close();
});

const pdfAttachment = async (label: string) => ({
  fileName: `${label}.pdf`,
  contentType: 'application/pdf',
  content: await textPdf([`Vendor ${label}`, `Invoice ${label}`, 'Total 10.00 EUR']),
});
const pngAttachment = (label: string) => ({ fileName: `${label}.png`, contentType: 'image/png', content: invoicePng([`Vendor ${label}`, `Invoice ${label}`]) });

/** A mailbox of its own with `messages` in `folder`. */
async function mailboxWith(messages: Buffer[], folder = 'INBOX'): Promise<string> {
  const user = freshImapUser();
  const client = await imapClient(user);
  try {
    if (folder !== 'INBOX') await client.mailboxCreate(folder);
    for (const message of messages) await client.append(folder, message);
  } finally {
    await client.logout();
  }
  return user;
}

async function append(user: string, message: Buffer, folder = 'INBOX'): Promise<void> {
  const client = await imapClient(user);
  try {
    await client.append(folder, message);
  } finally {
    await client.logout();
  }
}

async function createSync(user: string, extra: Record<string, unknown> = {}): Promise<Sync> {
  const created = await team.tenant.api.post<Sync>(`/tenants/${team.tenant.id}/syncs`, {
    name: 'Invoices inbox',
    host: imapHost,
    port: imapPort,
    secure: false,
    username: user,
    password: imapPassword,
    ...extra,
  });
  expect(created.status, created.text).toBe(201);
  return created.body;
}

/** Asks for a run and waits until it has ended (lastSyncedAt moved on). */
async function runSync(sync: Sync): Promise<Sync> {
  const before = (await team.tenant.api.get<Sync>(`/tenants/${team.tenant.id}/syncs/${sync.id}`)).body.lastSyncedAt;
  const asked = await team.tenant.api.post<Sync>(`/tenants/${team.tenant.id}/syncs/${sync.id}/run`);
  expect(asked.status, asked.text).toBe(202);
  return eventually(async () => {
    const current = (await team.tenant.api.get<Sync>(`/tenants/${team.tenant.id}/syncs/${sync.id}`)).body;
    expect(current.status).not.toBe('running');
    expect(current.lastSyncedAt).not.toBe(before);
    expect(current.lastSyncedAt).not.toBeNull();
    return current;
  }, 20_000);
}

async function invoicesOf(sync: Sync): Promise<Invoice[]> {
  const listed = await team.tenant.api.get<Invoice[]>(`/tenants/${team.tenant.id}/invoices`, { query: { limit: 200 } });
  return listed.body.filter((invoice) => invoice.syncId === sync.id);
}

describe('a mailbox sync', () => {
  it('imports two messages with invoice attachments once: a second run adds none', async () => {
    const first = '<first@vendor.test>';
    const user = await mailboxWith([
      mailMessage({ from: 'billing@vendor.test', subject: 'Invoice 1', messageId: first, attachments: [await pdfAttachment('A-1')] }),
      mailMessage({ from: 'billing@vendor.test', subject: 'Invoice 2', attachments: [pngAttachment('A-2')] }),
    ]);
    const sync = await createSync(user);
    expect(sync).toMatchObject({ status: 'idle', mailbox: 'INBOX', enabled: true, intervalMinutes: 15, lastUid: null });
    expect(sync).not.toHaveProperty('password');
    expect(sync).not.toHaveProperty('passwordEncrypted');

    const ran = await runSync(sync);
    expect(ran).toMatchObject({ status: 'idle', lastError: null, lastUid: '2' });
    expect(ran.uidValidity).toMatch(/^\d+$/);
    const imported = await invoicesOf(sync);
    expect(imported).toHaveLength(2);
    expect(imported.map((invoice) => invoice.source)).toEqual(['email', 'email']);
    expect(imported.map((invoice) => invoice.fileName).sort()).toEqual(['A-1.pdf', 'A-2.png']);
    expect(imported.find((invoice) => invoice.fileName === 'A-1.pdf')?.emailMessageId).toBe(first);
    // OCR was queued for each, and runs.
    await eventually(async () => expect((await invoicesOf(sync)).map((invoice) => invoice.ocrStatus)).toEqual(['done', 'done']), 20_000);

    await runSync(sync);
    expect(await invoicesOf(sync)).toHaveLength(2);
  });

  it('reads only what is new on the next run, skips a message without attachments, and filters by sender', async () => {
    const user = await mailboxWith([mailMessage({ from: 'billing@vendor.test', subject: 'Old', attachments: [pngAttachment('B-1')] })]);
    const sync = await createSync(user, { fromFilter: 'vendor.test' });
    await runSync(sync);
    expect(await invoicesOf(sync)).toHaveLength(1);

    await append(user, mailMessage({ from: 'friend@elsewhere.test', subject: 'Not an invoice', attachments: [pngAttachment('B-spam')] }));
    await append(user, mailMessage({ from: 'billing@vendor.test', subject: 'Just words' }));
    await append(user, mailMessage({ from: 'billing@vendor.test', subject: 'New', attachments: [await pdfAttachment('B-2')] }));
    const ran = await runSync(sync);
    expect(ran.lastUid).toBe('4');
    expect((await invoicesOf(sync)).map((invoice) => invoice.fileName).sort()).toEqual(['B-1.png', 'B-2.pdf']);
  });

  it('reads e-invoice attachments from their XML (CII, UBL, Factur-X) with no OCR, and skips XML that is no invoice', async () => {
    const user = await mailboxWith([
      mailMessage({
        from: 'billing@vendor.test',
        subject: 'E-invoices',
        attachments: [
          { fileName: 'CII_example1.xml', contentType: 'application/xml', content: example('CII_example1.xml') },
          { fileName: 'credit.xml', contentType: 'text/xml', content: example('ubl-tc434-creditnote1.xml') },
          { fileName: 'factur-x.pdf', contentType: 'application/pdf', content: await pdfWithEmbedded(example('CII_business_example_01.xml')) },
          { fileName: 'order.xml', contentType: 'application/xml', content: Buffer.from('<?xml version="1.0"?><order><id>7</id></order>') },
        ],
      }),
    ]);
    const sync = await createSync(user);
    const ran = await runSync(sync);
    expect(ran).toMatchObject({ status: 'idle', lastError: null, lastUid: '1' });
    const imported = (await invoicesOf(sync)) as (Invoice & { eInvoiceFormat: string | null; lines: unknown[] })[];
    const byFile = Object.fromEntries(imported.map((invoice) => [invoice.fileName, invoice]));
    expect(Object.keys(byFile).sort()).toEqual(['CII_example1.xml', 'credit.xml', 'factur-x.pdf']);
    expect(byFile['CII_example1.xml']).toMatchObject({ source: 'email', eInvoiceFormat: 'cii', ocrStatus: 'none', number: '12115118', totalAmount: '250.33' });
    expect(byFile['credit.xml']).toMatchObject({ eInvoiceFormat: 'ubl', ocrStatus: 'none', type: 'credit_note', totalAmount: '100.11' });
    expect(byFile['factur-x.pdf']).toMatchObject({ eInvoiceFormat: 'facturx', ocrStatus: 'none', number: 'TOSL108', totalAmount: '1801.78' });
    expect(byFile['CII_example1.xml']?.lines).toHaveLength(20);
  });

  it('makes one invoice of a PDF and the XML that states it, read from the XML with the PDF as its file', async () => {
    const invoicePdf = await pdfAttachment('P-1');
    const user = await mailboxWith([
      // The only PDF and the only XML e-invoice of their mail.
      mailMessage({
        from: 'billing@vendor.test',
        subject: 'Invoice 12115118',
        attachments: [
          { ...invoicePdf, fileName: 'scan.pdf' },
          { fileName: 'invoice.xml', contentType: 'application/xml', content: example('CII_example1.xml') },
        ],
      }),
      // Two of each: paired by name (the same stem, or the XML's number in the PDF's name).
      mailMessage({
        from: 'billing@vendor.test',
        subject: 'Two invoices',
        attachments: [
          { ...(await pdfAttachment('P-2')), fileName: 'TOSL108.pdf' },
          { ...(await pdfAttachment('P-3')), fileName: 'credit.pdf' },
          { fileName: 'credit.xml', contentType: 'application/xml', content: example('ubl-tc434-creditnote1.xml') },
          { fileName: 'cii-business.xml', contentType: 'application/xml', content: example('CII_business_example_01.xml') },
        ],
      }),
    ]);
    const sync = await createSync(user);
    expect(await runSync(sync)).toMatchObject({ status: 'idle', lastError: null });
    const imported = (await invoicesOf(sync)) as (Invoice & { eInvoiceFormat: string | null; lines: unknown[] })[];
    const byFile = Object.fromEntries(imported.map((invoice) => [invoice.fileName, invoice]));
    expect(Object.keys(byFile).sort()).toEqual(['TOSL108.pdf', 'credit.pdf', 'scan.pdf']);
    expect(byFile['scan.pdf']).toMatchObject({
      mimeType: 'application/pdf',
      eInvoiceFormat: 'cii',
      ocrStatus: 'none',
      number: '12115118',
      totalAmount: '250.33',
    });
    expect(byFile['scan.pdf']?.lines).toHaveLength(20);
    expect(byFile['TOSL108.pdf']).toMatchObject({ eInvoiceFormat: 'cii', number: 'TOSL108', totalAmount: '1801.78' });
    expect(byFile['credit.pdf']).toMatchObject({ eInvoiceFormat: 'ubl', type: 'credit_note', totalAmount: '100.11' });
    // The PDF is the invoice's file.
    const file = await fetch(`${server.url}/tenants/${team.tenant.id}/invoices/${byFile['scan.pdf']?.id}/file`, {
      headers: { authorization: `Bearer ${team.tenant.key}` },
    });
    expect(Buffer.from(await file.arrayBuffer()).equals(invoicePdf.content)).toBe(true);
  });

  it('imports each message once when runs overlap', async () => {
    const user = await mailboxWith(
      await Promise.all(
        [1, 2, 3].map(async (n) => mailMessage({ from: 'billing@vendor.test', subject: `Overlap ${n}`, attachments: [await pdfAttachment(`C-${n}`)] })),
      ),
    );
    const sync = await createSync(user);
    const log = createLogger('silent');
    // Three runs at once, straight from the work object (a worker would refuse the second job), and one through REST.
    const work = server.workers!.work.syncs;
    await Promise.all([work.run(sync.id, log), work.run(sync.id, log), work.run(sync.id, log), runSync(sync)]);
    await eventually(async () => expect((await team.tenant.api.get<Sync>(`/tenants/${team.tenant.id}/syncs/${sync.id}`)).body.status).toBe('idle'));
    expect((await invoicesOf(sync)).map((invoice) => invoice.fileName).sort()).toEqual(['C-1.pdf', 'C-2.pdf', 'C-3.pdf']);
  });

  it('starts over when UIDVALIDITY changes, importing nothing twice', async () => {
    const folder = 'Invoices';
    const old = [mailMessage({ from: 'billing@vendor.test', subject: 'D-1', attachments: [pngAttachment('D-1')] })];
    const user = await mailboxWith(old, folder);
    const sync = await createSync(user, { mailbox: folder });
    const first = await runSync(sync);
    expect(await invoicesOf(sync)).toHaveLength(1);

    // The mailbox is made anew (a server migration does this): new UIDVALIDITY, UIDs from 1 again.
    const client = await imapClient(user);
    await client.mailboxDelete(folder);
    await client.mailboxCreate(folder);
    await client.append(folder, old[0] as Buffer);
    await client.append(folder, mailMessage({ from: 'billing@vendor.test', subject: 'D-2', attachments: [pngAttachment('D-2')] }));
    await client.logout();

    const second = await runSync(sync);
    expect(second.uidValidity).not.toBe(first.uidValidity);
    expect(second).toMatchObject({ status: 'idle', lastUid: '2' });
    expect((await invoicesOf(sync)).map((invoice) => invoice.fileName).sort()).toEqual(['D-1.png', 'D-2.png']);
  });

  it('records a wrong password as an error, and tells the admins', async () => {
    const user = await mailboxWith([]);
    const sync = await createSync(user, { password: 'not-the-password', name: 'Wrong password' });
    const ran = await runSync(sync);
    expect(ran.status).toBe('error');
    expect(ran.lastError).toMatch(/refused the username or password/);
    const told = await eventually(async () => {
      const listed = await team.admin.api.get<Notification[]>(`/tenants/${team.tenant.id}/notifications`);
      const failed = listed.body.filter((notification) => notification.type === 'sync.failed' && notification.data?.syncId === sync.id);
      expect(failed).toHaveLength(1);
      return failed;
    });
    expect(told[0]?.body).toContain('Wrong password');
    const members = await team.member.api.get<Notification[]>(`/tenants/${team.tenant.id}/notifications`);
    expect(members.body.filter((notification) => notification.type === 'sync.failed')).toEqual([]);
    // A corrected password works on the next run.
    expect((await team.tenant.api.patch(`/tenants/${team.tenant.id}/syncs/${sync.id}`, { password: imapPassword })).status).toBe(200);
    expect((await runSync(sync)).status).toBe('idle');
  });

  it('runs on its schedule when its interval has passed', async () => {
    const user = await mailboxWith([mailMessage({ from: 'billing@vendor.test', subject: 'Scheduled', attachments: [pngAttachment('E-1')] })]);
    const sync = await createSync(user, { intervalMinutes: 5 });
    // What the every-minute tick does; the sync has never run, so it is due.
    await server.workers!.work.syncs.queueDue(createLogger('silent'));
    await eventually(async () => expect(await invoicesOf(sync)).toHaveLength(1), 20_000);
    // Just ran: not due again for five minutes, by the clock the workers run on.
    await eventually(async () => expect((await team.tenant.api.get<Sync>(`/tenants/${team.tenant.id}/syncs/${sync.id}`)).body.status).toBe('idle'));
    const database = new pg.Client({ connectionString: server.databaseUrl });
    await database.connect();
    try {
      const due = await database.query(
        `SELECT count(*)::int AS n FROM syncs WHERE id = $1 AND "lastSyncedAt" <= $2::timestamptz - "intervalMinutes" * interval '1 minute'`,
        [sync.id, testClock.now()],
      );
      expect(due.rows[0].n).toBe(0);
      const dueLater = await database.query(
        `SELECT count(*)::int AS n FROM syncs WHERE id = $1 AND "lastSyncedAt" <= $2::timestamptz - "intervalMinutes" * interval '1 minute'`,
        [sync.id, new Date(testClock.now().getTime() + 5 * 60_000)],
      );
      expect(dueLater.rows[0].n).toBe(1);
    } finally {
      await database.end();
    }
  });

  it('keeps the password encrypted and write-only, for owners and admins only', async () => {
    const sync = await createSync(freshImapUser(), { password: 'hunter2-very-secret' });
    const database = new pg.Client({ connectionString: server.databaseUrl });
    await database.connect();
    try {
      const stored = await database.query('SELECT "passwordEncrypted" FROM syncs WHERE id = $1', [sync.id]);
      expect(stored.rows[0].passwordEncrypted).not.toContain('hunter2');
    } finally {
      await database.end();
    }
    const graphql = await team.admin.api.graphql<{ syncs: Record<string, unknown>[] }>('query ($t: ID!) { syncs(tenantId: $t) { id username } }', {
      t: team.tenant.id,
    });
    expect(graphql.body.data?.syncs.map((each) => each.id)).toContain(sync.id);
    expect(JSON.stringify((await team.admin.api.get(`/tenants/${team.tenant.id}/syncs/${sync.id}`)).body)).not.toContain('hunter2');
    expect((await team.manager.api.get(`/tenants/${team.tenant.id}/syncs`)).status).toBe(403);
    const other = await seeder(server).tenant();
    expect((await other.api.get(`/tenants/${other.id}/syncs/${sync.id}`)).status).toBe(404);
  });

  it('refuses a server on a private address unless allowed', async () => {
    const strict = await startTestServer({ databaseUrl: server.databaseUrl, env: { ROLE: 'api' } });
    try {
      const tenant = await seeder(strict).tenant();
      for (const host of ['127.0.0.1', 'localhost', '10.0.0.1', '[::1]', '169.254.169.254']) {
        const refused = await tenant.api.post<{ errors: { path: string }[] }>(`/tenants/${tenant.id}/syncs`, { name: 'x', host, username: 'u', password: 'p' });
        expect(refused.status, host).toBe(400);
        expect(
          refused.body.errors.map((error) => error.path),
          host,
        ).toEqual(['host']);
      }
    } finally {
      await strict.stop();
    }
  });
});
