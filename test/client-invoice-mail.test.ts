/**
 * Sending invoices by e-mail (issue 40): `send` with SMTP_URL set records a send and a worker mails it to
 * a real SMTP server on loopback (the `smtp-server` package, with a login), once; the received mail, read
 * by a MIME parser, carries the PDF and the XRechnung byte for byte as the API's downloads serve them, and
 * the invoice shows sentAt and sentTo. A job that runs again finds the send delivered and mails nothing; an
 * attempt the SMTP server refuses is noted and the next one delivers; a format the issued invoice lacks, or
 * a draft, is refused before anything is recorded.
 */
import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../src/lib/logger.js';
import type { ClientInvoice, Problem } from './generated/openapi/types.gen.js';
import { approvedEntry, billingTenant, publicClient, sellerProfile, xrechnungSeller } from './helpers/billing.js';
import { eventually } from './helpers/eventually.js';
import type { Json } from './helpers/http.js';
import { daysAgo } from './helpers/clock.js';
import { download } from './helpers/files.js';
import { startIdentityProvider, type IdentityProvider } from './helpers/oidc.js';
import { startTestServer, type TestServer } from './helpers/server.js';

let provider: IdentityProvider;
let server: TestServer;
let smtp: SMTPServer;
const received: { envelope: string[]; raw: Buffer }[] = [];
/** How many of the next messages the SMTP server refuses with a temporary error. */
let refuseNext = 0;

beforeAll(async () => {
  smtp = new SMTPServer({
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    onAuth(auth, _session, callback) {
      if (auth.username === 'tally' && auth.password === 'secret') callback(null, { user: 'tally' });
      else callback(new Error('Invalid username or password'));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        if (refuseNext > 0) {
          refuseNext -= 1;
          callback(Object.assign(new Error('Try again later'), { responseCode: 451 }));
          return;
        }
        received.push({ envelope: session.envelope.rcptTo.map((rcpt) => rcpt.address), raw: Buffer.concat(chunks) });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  const { port } = smtp.server.address() as AddressInfo;
  provider = await startIdentityProvider();
  server = await startTestServer({
    env: { ...provider.env, SMTP_URL: `smtp://tally:secret@127.0.0.1:${port}`, MAIL_FROM: 'Tally Test <billing@tally-test.example>' },
  });
});
afterAll(async () => {
  await server?.stop();
  await provider?.close();
  await new Promise<void>((resolve) => (smtp ? smtp.close(resolve) : resolve()));
});

/** An issued invoice of a tenant that has every format, and its id. */
async function issuedInvoice(profile: Json = xrechnungSeller, client: Json = publicClient) {
  const b = await billingTenant(server, provider, profile, { ...client, invoiceEmail: 'ap@buyer.example' });
  await approvedEntry(b, (b.projects[0] as { id: string }).id, '2026-03-02T08:00:00Z', 120);
  const created = await b.api.post<ClientInvoice>(b.path, { clientId: b.clientId, periodFrom: '2026-03-01', periodTo: '2026-03-31' });
  expect(created.status).toBe(201);
  const issued = await b.api.post<ClientInvoice>(`${b.path}/${created.body.id}/issue`);
  expect(issued.status).toBe(200);
  return { b, invoice: issued.body };
}

const mailsWith = async (messageId: string): Promise<ParsedMail[]> => {
  const parsed = await Promise.all(received.map((mail) => simpleParser(mail.raw)));
  return parsed.filter((mail) => mail.messageId === messageId);
};

describe('sending an invoice by e-mail', () => {
  it('mails it once from a worker, with the PDF and the XRechnung byte for byte as downloaded; sentAt and sentTo follow', { timeout: 120_000 }, async () => {
    const { b, invoice } = await issuedInvoice();
    const headers = { authorization: `Bearer ${b.tenant.key}` };
    const answer = await b.api.post<ClientInvoice>(`${b.path}/${invoice.id}/send`, {
      cc: ['boss@buyer.example'],
      message: 'Thank you for your business.',
      attach: ['pdf', 'xrechnung-cii'],
    });
    expect(answer.status).toBe(200);
    // Queued: the worker mails it; until the SMTP server accepts it, the invoice is issued, not sent.
    expect(answer.body.lastSend).toMatchObject({ status: 'queued', to: ['ap@buyer.example'], cc: ['boss@buyer.example'], attach: ['pdf', 'xrechnung-cii'] });
    const messageId = answer.body.lastSend?.messageId as string;

    const sent = await eventually(async () => {
      const now = await b.api.get<ClientInvoice>(`${b.path}/${invoice.id}`);
      expect(now.body.lastSend?.status).toBe('delivered');
      return now.body;
    }, 30_000);
    expect(sent.status).toBe('sent');
    expect(sent.sentAt).not.toBeNull();
    expect(sent.sentTo).toEqual(['ap@buyer.example', 'boss@buyer.example']);

    const mails = await mailsWith(messageId);
    expect(mails).toHaveLength(1);
    const mail = mails[0] as ParsedMail;
    expect(mail.subject).toBe(`Invoice ${invoice.number} from Tally Test GmbH`);
    expect(mail.text?.trim()).toBe('Thank you for your business.');
    expect(mail.from?.text).toContain('billing@tally-test.example');
    const pdf = await download(server.url, `${b.path}/${invoice.id}/pdf`, {}, headers);
    const xml = await download(server.url, `${b.path}/${invoice.id}/e-invoice`, { format: 'xrechnung-cii' }, headers);
    expect(mail.attachments.map((attachment) => attachment.contentType)).toEqual(['application/pdf', 'application/xml']);
    expect(mail.attachments[0]?.content.equals(pdf.bytes)).toBe(true);
    expect(mail.attachments[1]?.content.equals(xml.bytes)).toBe(true);
    expect(mail.attachments[0]?.filename).toBe(pdf.response.headers.get('content-disposition')?.match(/filename="([^"]+)"/)?.[1]);

    // The job again (a retry, a second worker after an expiry), twice at once: the send is delivered, nothing more is mailed.
    const work = server.workers?.work.clientInvoices;
    const sendId = answer.body.lastSend?.id as string;
    await Promise.all([work?.deliver(sendId, createLogger('silent')), work?.deliver(sendId, createLogger('silent'))]);
    expect(await mailsWith(messageId)).toHaveLength(1);
    const event = await server.app.db.event.findMany({ where: { type: 'client_invoice.sent', subjectId: invoice.id } });
    expect(event).toHaveLength(1);
  });

  it(
    'mails a payment reminder once with its PDF byte for byte as downloaded; the reminder shows sentAt, the invoice stays as it was',
    { timeout: 120_000 },
    async () => {
      const b = await billingTenant(server, provider, sellerProfile, { ...publicClient, invoiceEmail: 'ap@buyer.example' });
      await approvedEntry(b, (b.projects[0] as { id: string }).id, '2026-03-02T08:00:00Z', 120);
      const created = await b.api.post<ClientInvoice>(b.path, {
        clientId: b.clientId,
        periodFrom: '2026-03-01',
        periodTo: '2026-03-31',
        issueDate: daysAgo(58),
        dueDate: daysAgo(44),
      });
      const invoice = (await b.api.post<ClientInvoice>(`${b.path}/${created.body.id}/issue`)).body;
      await server.workers?.work.paymentReminders.remindOverdue(createLogger('silent'));
      const [reminder] = (await b.api.get<{ id: string; level: number; sentAt: string | null }[]>(`${b.path}/${invoice.id}/reminders`)).body;
      expect(reminder).toMatchObject({ level: 2, sentAt: null });
      const route = `${b.path}/${invoice.id}/reminders/${reminder?.id}`;
      const answer = await b.api.post<{ id: string; sentAt: string | null }>(`${route}/send`);
      expect(answer.status).toBe(200);
      expect(answer.body.sentAt).toBeNull();
      const sent = await eventually(async () => {
        const [now] = (await b.api.get<{ sentAt: string | null }[]>(`${b.path}/${invoice.id}/reminders`)).body;
        expect(now?.sentAt).not.toBeNull();
        return now;
      }, 30_000);
      expect(sent?.sentAt).not.toBeNull();
      const send = await server.app.db.clientInvoiceSend.findFirstOrThrow({ where: { reminderId: reminder?.id } });
      expect(send).toMatchObject({ status: 'delivered', to: ['ap@buyer.example'] });
      const mails = await mailsWith(send.messageId);
      expect(mails).toHaveLength(1);
      expect(mails[0]?.subject).toBe(`Payment reminder 2: invoice ${invoice.number} from Tally Test GmbH`);
      const pdf = await download(server.url, `${route}/pdf`, {}, { authorization: `Bearer ${b.tenant.key}` });
      expect(mails[0]?.attachments.map((attachment) => attachment.contentType)).toEqual(['application/pdf']);
      expect(mails[0]?.attachments[0]?.content.equals(pdf.bytes)).toBe(true);
      // The job again: delivered already, nothing more is mailed; the invoice itself was not sent.
      await server.workers?.work.clientInvoices.deliver(send.id, createLogger('silent'));
      expect(await mailsWith(send.messageId)).toHaveLength(1);
      expect((await b.api.get<ClientInvoice>(`${b.path}/${invoice.id}`)).body).toMatchObject({ status: 'issued', sentAt: null });
      // Another invoice's reminder, or none, is 404.
      expect((await b.api.post(`${b.path}/${invoice.id}/reminders/${created.body.id}/send`)).status).toBe(404);
    },
  );

  it("writes the subject and the default text in the invoice's language, the client's", { timeout: 120_000 }, async () => {
    const { b, invoice } = await issuedInvoice(xrechnungSeller, { ...publicClient, language: 'de' });
    const answer = await b.api.post<ClientInvoice>(`${b.path}/${invoice.id}/send`, { attach: ['pdf'] });
    expect(answer.status).toBe(200);
    await eventually(async () => {
      expect((await b.api.get<ClientInvoice>(`${b.path}/${invoice.id}`)).body.lastSend?.status).toBe('delivered');
    }, 30_000);
    const [mail] = await mailsWith(answer.body.lastSend?.messageId as string);
    expect(mail?.subject).toBe(`Rechnung ${invoice.number} von Tally Test GmbH`);
    expect(mail?.text?.trim()).toBe(`Anbei erhalten Sie die Rechnung ${invoice.number} von Tally Test GmbH.`);
  });

  it('notes an attempt the SMTP server refuses and delivers on the next, once', { timeout: 120_000 }, async () => {
    const { b, invoice } = await issuedInvoice();
    const work = server.workers?.work.clientInvoices;
    if (!work) throw new Error('the test server runs workers');
    refuseNext = 1;
    const answer = await b.api.post<ClientInvoice>(`${b.path}/${invoice.id}/send`, { attach: ['pdf'] });
    expect(answer.status).toBe(200);
    const sendId = answer.body.lastSend?.id as string;
    const messageId = answer.body.lastSend?.messageId as string;
    // The worker's first attempt meets the refusal and pg-boss retries it later; the test's own attempt delivers now.
    await eventually(async () => {
      const row = await server.app.db.clientInvoiceSend.findUniqueOrThrow({ where: { id: sendId } });
      expect(row.lastError).toMatch(/451|Try again later/);
      expect(row.status).toBe('queued');
    }, 30_000);
    await work.deliver(sendId, createLogger('silent'));
    const row = await server.app.db.clientInvoiceSend.findUniqueOrThrow({ where: { id: sendId } });
    expect(row).toMatchObject({ status: 'delivered', lastError: null, attempts: 2 });
    // pg-boss's retry of the failed job finds it delivered.
    await work.deliver(sendId, createLogger('silent'));
    expect(await mailsWith(messageId)).toHaveLength(1);
    const now = await b.api.get<ClientInvoice>(`${b.path}/${invoice.id}`);
    expect(now.body).toMatchObject({ status: 'sent', sentTo: ['ap@buyer.example'] });
    // A delivered send stays delivered when its dead letter comes late.
    await work.abandon(sendId, createLogger('silent'));
    expect((await server.app.db.clientInvoiceSend.findUniqueOrThrow({ where: { id: sendId } })).status).toBe('delivered');
  });

  it('marks a send failed once its retries are spent, and mails nothing for it after', { timeout: 120_000 }, async () => {
    const { b, invoice } = await issuedInvoice();
    const work = server.workers?.work.clientInvoices;
    if (!work) throw new Error('the test server runs workers');
    // Every attempt refused until the dead letter marks it failed.
    refuseNext = 1_000;
    try {
      const answer = await b.api.post<ClientInvoice>(`${b.path}/${invoice.id}/send`, {});
      const sendId = answer.body.lastSend?.id as string;
      await eventually(async () => {
        expect((await server.app.db.clientInvoiceSend.findUniqueOrThrow({ where: { id: sendId } })).lastError).not.toBeNull();
      }, 30_000);
      await work.abandon(sendId, createLogger('silent'));
      refuseNext = 0;
      await work.deliver(sendId, createLogger('silent'));
      expect(await mailsWith(answer.body.lastSend?.messageId as string)).toHaveLength(0);
      const now = await b.api.get<ClientInvoice>(`${b.path}/${invoice.id}`);
      expect(now.body).toMatchObject({ status: 'issued', sentAt: null, lastSend: { status: 'failed' } });
    } finally {
      refuseNext = 0;
    }
  });

  it('refuses a draft, an unknown format and a format the issued invoice lacks, recording nothing', { timeout: 120_000 }, async () => {
    // No Leitweg-ID nor electronic addresses: no XRechnung.
    const { b, invoice } = await issuedInvoice(sellerProfile, {});
    const lacking = await b.api.post<Problem>(`${b.path}/${invoice.id}/send`, { attach: ['pdf', 'xrechnung-ubl'] });
    expect(lacking.status).toBe(409);
    expect(lacking.body.reason).toBe('EINVOICE_INCOMPLETE');
    const unknown = await b.api.post<Problem>(`${b.path}/${invoice.id}/send`, { attach: ['docx'] });
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors?.map((error) => error.path)).toEqual(['attach.0']);
    const draft = await b.api.post<ClientInvoice>(b.path, {
      clientId: b.clientId,
      periodFrom: '2026-04-01',
      periodTo: '2026-04-30',
      lines: [{ description: 'Fee', quantity: '1', unitPrice: '10.00' }],
    });
    const early = await b.api.post<Problem>(`${b.path}/${draft.body.id}/send`, {});
    expect(early.status).toBe(409);
    expect(early.body.reason).toBe('INVOICE_NOT_ISSUED');
    expect(await server.app.db.clientInvoiceSend.count({ where: { clientInvoiceId: { in: [invoice.id, draft.body.id] } } })).toBe(0);
  });
});
