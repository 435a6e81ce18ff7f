/**
 * Payment reminders and documents in the client's language (issue 40, parts 3 and 4): the billing profile's
 * and the client's `language` (the client's wins, frozen at issue), reminder levels on the billing profile, the
 * sweep raising an overdue invoice to the level it has reached once per level (again: none; two sweeps at
 * once: still once), the reminder PDF in the client's language with fee and open amount, kept byte for byte,
 * the events, and a payment stopping it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClientInvoice, Problem } from './generated/openapi/types.gen.js';
import { approvedEntry, billingTenant, type Billing, sellerProfile } from './helpers/billing.js';
import { daysAgo } from './helpers/clock.js';
import { eventually } from './helpers/eventually.js';
import { download, pdfText } from './helpers/files.js';
import { startIdentityProvider, type IdentityProvider } from './helpers/oidc.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { pinnedClock } from '../src/lib/clock.js';
import { createLogger } from '../src/lib/logger.js';
import { createPaymentReminderWork } from '../src/modules/billing/payment-reminder/payment-reminder.work.js';

let provider: IdentityProvider;
let server: TestServer;

beforeAll(async () => {
  provider = await startIdentityProvider();
  server = await startTestServer({ env: provider.env });
});
afterAll(async () => {
  await server?.stop();
  await provider?.close();
});

const log = createLogger('silent');
const squeezed = (text: string) => text.replace(/\s+/g, '');
/** A sweep whose clock reads noon UTC of `day`. */
const sweepOn = (day: string) => createPaymentReminderWork({ db: server.app.db, clock: pinnedClock({ reads: new Date(`${day}T12:00:00Z`), at: new Date() }) });
/** A sweep whose clock reads `instant`. */
const sweepAt = (instant: string) => createPaymentReminderWork({ db: server.app.db, clock: pinnedClock({ reads: new Date(instant), at: new Date() }) });
const dayAfter = (day: string, days: number) => new Date(Date.parse(`${day}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);

interface Reminder {
  id: string;
  level: number;
  feeAmount: string;
  openAmount: string;
  createdAt: string;
  sentAt: string | null;
}

/** An issued invoice of 2 h at 100.00 (19 %: 238.00 gross) with the given dates. */
async function issuedInvoice(b: Billing, issueDate: string, dueDate: string): Promise<ClientInvoice> {
  const [project] = b.projects as unknown as [{ id: string }];
  await approvedEntry(b, project.id, '2026-03-02T08:00:00Z', 120);
  const created = await b.api.post<ClientInvoice>(b.path, { clientId: b.clientId, periodFrom: '2026-03-01', periodTo: '2026-03-31', issueDate, dueDate });
  expect(created.status).toBe(201);
  const issued = await b.api.post<ClientInvoice>(`${b.path}/${created.body.id}/issue`);
  expect(issued.status).toBe(200);
  return issued.body;
}

const remindersOf = async (b: Billing, invoiceId: string) => {
  const answer = await b.api.get<Reminder[]>(`${b.path}/${invoiceId}/reminders`);
  expect(answer.status).toBe(200);
  return answer.body;
};

describe('languages', () => {
  it('takes BCP 47 tags of de, en and fr on the profile and the client, refusing others with 400 naming the field', async () => {
    const b = await billingTenant(server, provider);
    const t = b.tenant.id;
    const profile = await b.api.patch<{ language: string }>(`/tenants/${t}/billing-profile`, { language: 'de-at' });
    expect(profile.status).toBe(200);
    expect(profile.body.language).toBe('de-AT');
    const badProfile = await b.api.patch<Problem>(`/tenants/${t}/billing-profile`, { language: 'klingon' });
    expect(badProfile.status).toBe(400);
    expect((badProfile.body.errors ?? []).map((error) => error.path)).toContain('language');
    const badClient = await b.api.patch<Problem>(`/tenants/${t}/clients/${b.clientId}`, { language: 'xx' });
    expect(badClient.status).toBe(400);
    expect((badClient.body.errors ?? []).map((error) => error.path)).toContain('language');
    const client = await b.api.patch<{ language: string | null }>(`/tenants/${t}/clients/${b.clientId}`, { language: 'fr' });
    expect(client.status).toBe(200);
    expect(client.body.language).toBe('fr');
  });

  it('writes a German client’s invoice in German (Rechnung, 28.11.2026) and keeps it so after the client turns French', async () => {
    const b = await billingTenant(server, provider, { ...sellerProfile, language: 'en' }, { language: 'de' });
    const invoice = await issuedInvoice(b, '2026-11-28', '2026-12-12');
    const headers = { authorization: `Bearer ${b.tenant.key}` };
    const text = await pdfText((await download(server.url, `${b.path}/${invoice.id}/pdf`, {}, headers)).bytes);
    expect(text).toContain('Rechnung');
    expect(text).toContain('28.11.2026');
    expect((await b.api.patch(`/tenants/${b.tenant.id}/clients/${b.clientId}`, { language: 'fr' })).status).toBe(200);
    const xml = (await download(server.url, `${b.path}/${invoice.id}/e-invoice`, { format: 'cii' }, headers)).bytes.toString('utf8');
    expect(xml).toContain('Zahlbar innerhalb von 14 Tagen ohne Abzug.');
    expect(await pdfText((await download(server.url, `${b.path}/${invoice.id}/pdf`, {}, headers)).bytes)).toContain('Rechnung');
    // A new invoice to the now French client says Facture.
    const french = await issuedInvoice(b, '2026-11-28', '2026-12-12');
    expect(await pdfText((await download(server.url, `${b.path}/${french.id}/pdf`, {}, headers)).bytes)).toContain('Facture');
  });

  it('writes in the billing profile’s language when the client names none', async () => {
    const b = await billingTenant(server, provider, { ...sellerProfile, language: 'fr' });
    const invoice = await issuedInvoice(b, '2026-11-28', '2026-12-12');
    const text = await pdfText((await download(server.url, `${b.path}/${invoice.id}/pdf`, {}, { authorization: `Bearer ${b.tenant.key}` })).bytes);
    expect(text).toContain('Facture');
    expect(text).toContain('28/11/2026');
  });
});

describe('payment reminders', () => {
  it('has the default levels on the profile: 7 days without a fee, 21 days with 5.00; and takes others', async () => {
    const b = await billingTenant(server, provider);
    const profile = await b.api.get<{ reminderLevels: unknown }>(`/tenants/${b.tenant.id}/billing-profile`);
    expect(profile.body.reminderLevels).toEqual([
      { afterDays: 7, feeAmount: '0.00', currency: 'EUR', text: '' },
      { afterDays: 21, feeAmount: '5.00', currency: 'EUR', text: '' },
    ]);
    const bad = await b.api.patch<Problem>(`/tenants/${b.tenant.id}/billing-profile`, { reminderLevels: [{ afterDays: 7, feeAmount: '5.001' }] });
    expect(bad.status).toBe(400);
    expect((bad.body.errors ?? []).map((error) => error.path)).toContain('reminderLevels.0.feeAmount');
  });

  it('without SMTP, sending a reminder only marks it sent, and says so in its send', async () => {
    const b = await billingTenant(server, provider, sellerProfile, {});
    const invoice = await issuedInvoice(b, daysAgo(58), daysAgo(44));
    await server.workers!.work.paymentReminders.remindOverdue(log);
    const [reminder] = await remindersOf(b, invoice.id);
    const sent = await b.api.post<Reminder>(`${b.path}/${invoice.id}/reminders/${reminder?.id}/send`, {});
    expect(sent.status).toBe(200);
    expect(sent.body.sentAt).not.toBeNull();
    expect(await server.app.db.clientInvoiceSend.findMany({ where: { reminderId: reminder?.id }, select: { status: true } })).toEqual([
      { status: 'not_configured' },
    ]);
  });

  it('raises an invoice 44 days overdue to level 2 with its 5.00 fee, once; another sweep adds none; the PDF speaks German and is kept', async () => {
    const b = await billingTenant(server, provider, sellerProfile, { language: 'de' });
    const invoice = await issuedInvoice(b, daysAgo(58), daysAgo(44));
    await server.workers!.work.paymentReminders.remindOverdue(log);
    await server.workers!.work.paymentReminders.remindOverdue(log);
    const reminders = await remindersOf(b, invoice.id);
    expect(reminders.map(({ level, feeAmount, openAmount, sentAt }) => ({ level, feeAmount, openAmount, sentAt }))).toEqual([
      { level: 2, feeAmount: '5.00', openAmount: '238.00', sentAt: null },
    ]);
    const headers = { authorization: `Bearer ${b.tenant.key}` };
    const route = `${b.path}/${invoice.id}/reminders/${reminders[0]?.id}/pdf`;
    const first = await download(server.url, route, {}, headers);
    expect(first.response.status).toBe(200);
    expect(first.response.headers.get('content-type')).toBe('application/pdf');
    const text = squeezed(await pdfText(first.bytes));
    for (const expected of ['ZAHLUNGSERINNERUNG', '2. Mahnung', invoice.number ?? '', 'Mahngebühr5,00', 'OffenerBetrag238,00', 'Jetztfällig(EUR)243,00']) {
      expect(text).toContain(squeezed(expected));
    }
    // Kept: the same bytes later, whatever the profile says now.
    expect((await b.api.patch(`/tenants/${b.tenant.id}/billing-profile`, { legalName: 'Renamed GmbH', language: 'fr' })).status).toBe(200);
    expect((await b.api.patch(`/tenants/${b.tenant.id}/clients/${b.clientId}`, { language: 'fr' })).status).toBe(200);
    expect((await download(server.url, route, {}, headers)).bytes.equals(first.bytes)).toBe(true);
    const events = await server.app.db.event.findMany({
      where: { subjectId: invoice.id, type: { in: ['client_invoice.overdue', 'client_invoice.reminded'] } },
    });
    expect(events.map((event) => event.type).sort()).toEqual(['client_invoice.overdue', 'client_invoice.reminded']);
    const missing = await b.api.get<Problem>(`${b.path}/${invoice.id}/reminders/${invoice.id}/pdf`);
    expect(missing.status).toBe(404);
  });

  it('goes level by level as days pass, each level once even with two sweeps at once, and a payment stops it', async () => {
    const b = await billingTenant(server, provider);
    const due = daysAgo(-40);
    const invoice = await issuedInvoice(b, daysAgo(0), due);
    expect(await sweepOn(dayAfter(due, 3)).remindOverdue(log)).toBe(0);
    const [one, two] = [sweepOn(dayAfter(due, 10)), sweepOn(dayAfter(due, 10))];
    await Promise.all([one.remindOverdue(log), two.remindOverdue(log), one.remindOverdue(log)]);
    expect((await remindersOf(b, invoice.id)).map((reminder) => [reminder.level, reminder.feeAmount])).toEqual([[1, '0.00']]);
    await Promise.all([sweepOn(dayAfter(due, 25)).remindOverdue(log), sweepOn(dayAfter(due, 25)).remindOverdue(log)]);
    expect((await remindersOf(b, invoice.id)).map((reminder) => [reminder.level, reminder.feeAmount])).toEqual([
      [1, '0.00'],
      [2, '5.00'],
    ]);
    // Three levels now, and paid in part: the open amount follows; paid in full: no more.
    const levels = await b.api.patch(`/tenants/${b.tenant.id}/billing-profile`, {
      reminderLevels: [{ afterDays: 7 }, { afterDays: 21, feeAmount: '5.00' }, { afterDays: 35, feeAmount: '10.00', text: 'Letzte Mahnung.' }],
    });
    expect(levels.status, JSON.stringify(levels.body)).toBe(200);
    const paid = await b.api.post(`${b.path}/${invoice.id}/pay`, { amount: '38.00', paidAt: daysAgo(0) });
    expect(paid.status, JSON.stringify(paid.body)).toBe(200);
    await sweepOn(dayAfter(due, 36)).remindOverdue(log);
    const third = (await remindersOf(b, invoice.id)).at(-1);
    expect([third?.level, third?.feeAmount, third?.openAmount]).toEqual([3, '10.00', '200.00']);
    expect((await b.api.post(`${b.path}/${invoice.id}/pay`, { paidAt: daysAgo(0) })).status).toBe(200);
    await b.api.patch(`/tenants/${b.tenant.id}/billing-profile`, {
      reminderLevels: [{ afterDays: 7 }, { afterDays: 21 }, { afterDays: 35 }, { afterDays: 50 }],
    });
    expect(await sweepOn(dayAfter(due, 60)).remindOverdue(log)).toBe(0);
    const events = await server.app.db.event.findMany({
      where: { subjectId: invoice.id, type: { in: ['client_invoice.overdue', 'client_invoice.reminded'] } },
    });
    expect(events.filter((event) => event.type === 'client_invoice.overdue')).toHaveLength(1);
    expect(events.filter((event) => event.type === 'client_invoice.reminded')).toHaveLength(3);
  });
});

describe('days overdue', () => {
  it("are counted in the tenant's time zone: its due date has passed at its own midnight, not at UTC's", async () => {
    // Three tenants whose first level comes 7 days after the due date, each with an invoice due the same day.
    const zones = ['Pacific/Auckland', 'Europe/Berlin', 'Pacific/Honolulu'] as const;
    const due = daysAgo(-50);
    const invoices: Record<string, { b: Billing; id: string }> = {};
    for (const timezone of zones) {
      const b = await billingTenant(server, provider);
      expect((await b.api.patch(`/tenants/${b.tenant.id}`, { settings: { timezone } })).status).toBe(200);
      invoices[timezone] = { b, id: (await issuedInvoice(b, daysAgo(0), due)).id };
    }
    const levelsOf = async (timezone: string) => {
      const { b, id } = invoices[timezone] as { b: Billing; id: string };
      return (await remindersOf(b, id)).map((reminder) => reminder.level);
    };
    // 13:00 UTC six days after: the seventh day has begun in Auckland (UTC+12), not in Berlin or UTC.
    await sweepAt(`${dayAfter(due, 6)}T13:00:00Z`).remindOverdue(log);
    expect(await levelsOf('Pacific/Auckland')).toEqual([1]);
    expect(await levelsOf('Europe/Berlin')).toEqual([]);
    const auckland = await server.app.db.clientInvoiceReminder.findFirstOrThrow({ where: { clientInvoiceId: invoices['Pacific/Auckland']?.id } });
    expect(auckland.daysOverdue).toBe(7);
    // Its PDF is dated Auckland's day (the seventh after the due date, where UTC is still on the sixth), and says
    // nothing was paid without a minus sign.
    const { b: aucklandTenant, id: aucklandInvoice } = invoices['Pacific/Auckland'] as { b: Billing; id: string };
    const pdf = await download(
      server.url,
      `${aucklandTenant.path}/${aucklandInvoice}/reminders/${auckland.id}/pdf`,
      {},
      {
        authorization: `Bearer ${aucklandTenant.tenant.key}`,
      },
    );
    const [year, month, day] = dayAfter(due, 7).split('-');
    const text = squeezed(await pdfText(pdf.bytes));
    expect(text).toContain(`Date${day}/${month}/${year}`);
    expect(text).toContain('Paidsofar0.00');
    // 05:00 UTC seven days after: the seventh day in UTC and Berlin, still the sixth in Honolulu (UTC-10).
    await sweepAt(`${dayAfter(due, 7)}T05:00:00Z`).remindOverdue(log);
    expect(await levelsOf('Europe/Berlin')).toEqual([1]);
    expect(await levelsOf('Pacific/Honolulu')).toEqual([]);
    await sweepAt(`${dayAfter(due, 7)}T11:00:00Z`).remindOverdue(log);
    expect(await levelsOf('Pacific/Honolulu')).toEqual([1]);
  });
});

describe('the sweep as a job', () => {
  it('is scheduled daily and run once whenever a worker starts', async () => {
    const db = server.app.db;
    const schedules = await db.$queryRawUnsafe<{ cron: string }[]>(`SELECT cron FROM pgboss.schedule WHERE name = 'payment_reminder.sweep'`);
    expect(schedules.map((schedule) => schedule.cron)).toEqual(['15 6 * * *']);
    const states = await eventually(async () => {
      const jobs = await db.$queryRawUnsafe<{ state: string }[]>(`SELECT state::text FROM pgboss.job WHERE name = 'payment_reminder.sweep'`);
      expect(jobs.map((job) => job.state)).toContain('completed');
      return jobs;
    });
    expect(states.length).toBeGreaterThanOrEqual(1);
  });
});

describe('two worker processes', () => {
  it('sweeping at once write each level once', { timeout: 120_000 }, async () => {
    const second = await startTestServer({ databaseUrl: server.databaseUrl, env: provider.env });
    try {
      const b = await billingTenant(server, provider);
      const invoices = [];
      for (const days of [10, 30]) invoices.push(await issuedInvoice(b, daysAgo(days + 14), daysAgo(days)));
      const works = [server.workers?.work.paymentReminders, second.workers?.work.paymentReminders];
      await Promise.all([...works, ...works].map((work) => work?.remindOverdue(log)));
      const [tenDays, thirtyDays] = invoices as [ClientInvoice, ClientInvoice];
      expect((await remindersOf(b, tenDays.id)).map((reminder) => reminder.level)).toEqual([1]);
      expect((await remindersOf(b, thirtyDays.id)).map((reminder) => reminder.level)).toEqual([2]);
      const reminded = await server.app.db.event.count({ where: { type: 'client_invoice.reminded', subjectId: { in: [tenDays.id, thirtyDays.id] } } });
      expect(reminded).toBe(2);
    } finally {
      await second.stop();
    }
  });
});

describe('a reminder as a record', () => {
  it('refuses any change but sentAt in the database', async () => {
    const b = await billingTenant(server, provider);
    const invoice = await issuedInvoice(b, daysAgo(30), daysAgo(16));
    await sweepOn(daysAgo(0)).remindOverdue(log);
    const [reminder] = await remindersOf(b, invoice.id);
    const db = server.app.db;
    await expect(db.clientInvoiceReminder.update({ where: { id: reminder?.id }, data: { feeAmount: '1.00' } })).rejects.toThrow(/only sentAt may change/);
    await expect(db.clientInvoiceReminder.update({ where: { id: reminder?.id }, data: { content: Buffer.from('other') } })).rejects.toThrow(
      /only sentAt may change/,
    );
    await db.clientInvoiceReminder.update({ where: { id: reminder?.id }, data: { sentAt: new Date('2026-06-17T12:00:00Z') } });
    expect((await remindersOf(b, invoice.id))[0]?.sentAt).toBe('2026-06-17T12:00:00.000Z');
  });

  it('writes a PDF the sweep did not get to on its first read, and keeps that one', async () => {
    const b = await billingTenant(server, provider, sellerProfile, { language: 'fr' });
    const invoice = await issuedInvoice(b, daysAgo(30), daysAgo(16));
    // A reminder as a sweep leaves it when it stops between the reminder and its document.
    const [row] = await server.app.db.$queryRaw<{ id: string }[]>`
      INSERT INTO client_invoice_reminders (id, "tenantId", "clientInvoiceId", level, "daysOverdue", "feeAmount", "openAmount", currency, text, "fileName", "createdAt")
      VALUES (uuidv7()::text, ${b.tenant.id}, ${invoice.id}, 1, 16, 0, 238, 'EUR', 'Rappel amical.', 'r.pdf', now()) RETURNING id`;
    const headers = { authorization: `Bearer ${b.tenant.key}` };
    const route = `${b.path}/${invoice.id}/reminders/${row?.id}/pdf`;
    const first = await download(server.url, route, {}, headers);
    expect(first.response.status).toBe(200);
    const text = squeezed(await pdfText(first.bytes));
    for (const expected of ['RELANCE DE PAIEMENT', 'Relance n° 1', 'Rappel amical.', 'Reste à payer 238,00']) expect(text).toContain(squeezed(expected));
    expect((await download(server.url, route, {}, headers)).bytes.equals(first.bytes)).toBe(true);
    const kept = await server.app.db.clientInvoiceReminder.findUniqueOrThrow({ where: { id: row?.id } });
    expect(Buffer.from(kept.content ?? new Uint8Array()).equals(first.bytes)).toBe(true);
  });
});
