/**
 * Recurring invoices (issue 40): plans over REST with their next run date and every bad input named; and
 * the work that makes their invoices, exactly once per period: two workers running every day of a simulated
 * quarter on a clock of their own (one of them restarted half way, both down for some days), with periods
 * missed before they began caught up, make each period's invoice once, issued on its run date and sent
 * when asked. A worker that starts makes what is due without waiting for the schedule.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Clock } from '../src/lib/clock.js';
import { addDays, dayColumn, dayText } from '../src/lib/day.js';
import { createLogger } from '../src/lib/logger.js';
import { localDate } from '../src/lib/time.js';
import { createRecurringInvoiceWork } from '../src/modules/billing/recurring-invoice/recurring-invoice.work.js';
import type { Problem, RecurringInvoice } from './generated/openapi/types.gen.js';
import { approvedEntry, billingTenant, type Billing, sellerProfile } from './helpers/billing.js';
import { daysAgo } from './helpers/clock.js';
import { eventually } from './helpers/eventually.js';
import { startIdentityProvider, type IdentityProvider } from './helpers/oidc.js';
import { startTestServer, type TestServer } from './helpers/server.js';

let provider: IdentityProvider;
let server: TestServer;

beforeAll(async () => {
  provider = await startIdentityProvider();
  // No workers of its own: the test runs the work on a clock it moves itself (a worker role joins in the last test).
  server = await startTestServer({ env: { ...provider.env, ROLE: 'api' } });
});
afterAll(async () => {
  await server?.stop();
  await provider?.close();
});

const fee = { description: 'Retainer', quantity: '1', unitPrice: '100.00' };
const plansOf = (b: Billing) => `/tenants/${b.tenant.id}/recurring-invoices`;

/** The invoices a plan made: their service periods, oldest first. */
async function invoicesOf(planId: string) {
  const runs = await server.app.db.recurringInvoiceRun.findMany({
    where: { recurringInvoiceId: planId },
    include: { invoice: true },
    orderBy: { periodStart: 'asc' },
  });
  return runs.map((run) => ({ periodStart: dayText(run.periodStart), invoice: run.invoice }));
}

describe('recurring invoices', () => {
  it('creates, lists, changes and deletes a plan, showing its next run date, and names every bad input', async () => {
    const b = await billingTenant(server, provider);
    const path = plansOf(b);
    const created = await b.api.post<RecurringInvoice>(path, {
      clientId: b.clientId,
      lines: [fee],
      interval: 'quarter',
      dayOfPeriod: 10,
      startDate: '2026-07-01',
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ interval: 'quarter', dayOfPeriod: 10, nextPeriodStart: '2026-07-01', nextRunDate: '2026-07-10', autoIssue: false });
    expect(created.body.lines).toEqual([{ description: 'Retainer', currency: 'EUR', quantity: '1', unit: 'C62', unitPrice: '100.00', taxRate: null }]);
    const event = await server.app.db.event.findFirst({ where: { type: 'recurring_invoice.created', subjectId: created.body.id } });
    expect(event).not.toBeNull();

    // A day of the period past its end is its last day: the 40th of a month is its 31st (or 30th...).
    const monthly = await b.api.patch<RecurringInvoice>(`${path}/${created.body.id}`, { interval: 'month', dayOfPeriod: 40, startDate: '2026-09-01' });
    expect(monthly.status).toBe(200);
    expect(monthly.body).toMatchObject({ nextPeriodStart: '2026-09-01', nextRunDate: '2026-09-30' });
    const ended = await b.api.patch<RecurringInvoice>(`${path}/${created.body.id}`, { endDate: '2026-08-31', startDate: '2026-06-01' });
    expect(ended.body).toMatchObject({ nextPeriodStart: '2026-06-01', endDate: '2026-08-31' });

    const list = await b.api.get<RecurringInvoice[]>(`${path}?clientId=${b.clientId}`);
    expect(list.body.map((plan) => plan.id)).toEqual([created.body.id]);

    const bad = await b.api.post<Problem>(path, {
      clientId: b.clientId,
      lines: [{ ...fee, unitPrice: '1.005' }],
      interval: 'week',
      startDate: '2026-07-01',
      endDate: '2026-06-01',
      autoSend: true,
    });
    expect(bad.status).toBe(400);
    expect(bad.body.errors?.map((error) => error.path)).toContain('interval');
    const rules = await b.api.post<Problem>(path, {
      clientId: b.clientId,
      lines: [fee],
      interval: 'month',
      startDate: '2026-07-01',
      endDate: '2026-06-01',
      autoSend: true,
    });
    expect(rules.status).toBe(400);
    expect(rules.body.errors?.map((error) => error.path).sort()).toEqual(['autoSend', 'endDate']);
    const cents = await b.api.post<Problem>(path, {
      clientId: b.clientId,
      lines: [{ ...fee, unitPrice: '1.005' }],
      interval: 'month',
      startDate: '2026-07-01',
    });
    expect(cents.status).toBe(400);
    expect(cents.body.errors?.map((error) => error.path)).toEqual(['lines.0.unitPrice']);
    // Members do not see plans; managers read them but do not write.
    expect((await b.member.api.get(path)).status).toBe(403);

    expect((await b.api.delete(`${path}/${created.body.id}`)).status).toBe(204);
    expect((await b.api.get(`${path}/${created.body.id}`)).status).toBe(404);
  });

  it(
    'makes each period once with two workers over a simulated quarter, a restart and missed days, catching up what was missed',
    { timeout: 300_000 },
    async () => {
      const b = await billingTenant(server, provider);
      const path = plansOf(b);
      const plan = async (body: Record<string, unknown>) => {
        const answer = await b.api.post<RecurringInvoice>(path, { clientId: b.clientId, lines: [fee], ...body });
        expect(answer.status).toBe(201);
        return answer.body;
      };
      const monthly = await plan({ interval: 'month', startDate: '2026-07-01', autoIssue: true, autoSend: true });
      // Began in May: May and June are caught up on the first day the workers run.
      const late = await plan({ interval: 'month', dayOfPeriod: 15, startDate: '2026-05-01' });
      const quarterly = await plan({ interval: 'quarter', dayOfPeriod: 5, startDate: '2026-07-01', endDate: '2026-08-31' });

      let today = '2026-07-01';
      const clock: Clock = { now: () => new Date(`${today}T12:00:00Z`), today: (zone) => localDate(new Date(`${today}T12:00:00Z`), zone) };
      const log = createLogger('silent');
      const worker = () => createRecurringInvoiceWork({ db: server.app.db, clock, services: server.app.services });
      const workers = [worker(), worker()];
      for (; today <= '2026-09-30'; today = addDays(today, 1)) {
        // Both down from the 14th to the 20th of August: the 15th's invoice waits for the 21st.
        if (today >= '2026-08-14' && today <= '2026-08-20') continue;
        // A restart: the second worker comes back as a new process would.
        if (today === '2026-08-10') workers[1] = worker();
        await Promise.all(workers.map((work) => work.runDue(log)));
      }

      const made = await invoicesOf(monthly.id);
      expect(made.map((run) => run.periodStart)).toEqual(['2026-07-01', '2026-08-01', '2026-09-01']);
      expect(made.map((run) => [run.invoice?.status, run.invoice?.issueDate && dayText(run.invoice.issueDate)])).toEqual([
        ['sent', '2026-07-01'],
        ['sent', '2026-08-01'],
        ['sent', '2026-09-01'],
      ]);
      expect(made.map((run) => run.invoice?.gross.toFixed(2))).toEqual(['119.00', '119.00', '119.00']);
      expect((await invoicesOf(late.id)).map((run) => [run.periodStart, run.invoice?.status, run.invoice && dayText(run.invoice.periodTo)])).toEqual([
        ['2026-05-01', 'draft', '2026-05-31'],
        ['2026-06-01', 'draft', '2026-06-30'],
        ['2026-07-01', 'draft', '2026-07-31'],
        ['2026-08-01', 'draft', '2026-08-31'],
        ['2026-09-01', 'draft', '2026-09-30'],
      ]);
      expect((await invoicesOf(quarterly.id)).map((run) => run.periodStart)).toEqual(['2026-07-01']);
      // Once each, whatever the workers did: nine invoices of the client in all, numbered without gaps.
      const invoices = await server.app.db.clientInvoice.findMany({ where: { clientId: b.clientId }, orderBy: { number: 'asc' } });
      expect(invoices).toHaveLength(9);
      expect(invoices.filter((invoice) => invoice.number !== null).map((invoice) => invoice.numberSequence)).toEqual([1, 2, 3]);
      const shown = await b.api.get<RecurringInvoice>(`${path}/${monthly.id}`);
      expect(shown.body).toMatchObject({ nextPeriodStart: '2026-10-01', nextRunDate: '2026-10-01' });
      expect((await b.api.get<RecurringInvoice>(`${path}/${quarterly.id}`)).body).toMatchObject({ nextPeriodStart: null, nextRunDate: null });
      // Deleting a plan keeps its invoices.
      expect((await b.api.delete(`${path}/${late.id}`)).status).toBe(204);
      expect(await server.app.db.clientInvoice.count({ where: { clientId: b.clientId } })).toBe(9);
    },
  );

  it("bills each period's approved time with includeTime, and passes a period with nothing to bill", { timeout: 120_000 }, async () => {
    const b = await billingTenant(server, provider);
    await approvedEntry(b, (b.projects[0] as { id: string }).id, '2026-03-02T08:00:00Z', 120);
    // Time only, in arrears: made on each month's last day.
    const created = await b.api.post<RecurringInvoice>(plansOf(b), {
      clientId: b.clientId,
      interval: 'month',
      dayOfPeriod: 31,
      startDate: '2026-03-01',
      includeTime: true,
    });
    expect(created.status).toBe(201);
    expect(created.body.nextRunDate).toBe('2026-03-31');
    const clock: Clock = { now: () => new Date('2026-05-01T12:00:00Z'), today: (zone) => localDate(new Date('2026-05-01T12:00:00Z'), zone) };
    const work = createRecurringInvoiceWork({ db: server.app.db, clock, services: server.app.services });
    expect(await work.runDue(createLogger('silent'))).toBe(1);
    expect(await work.runDue(createLogger('silent'))).toBe(0);
    const runs = await invoicesOf(created.body.id);
    // March billed its two hours; April had nothing, and is done all the same.
    expect(runs.map((run) => [run.periodStart, run.invoice?.lineNet.toFixed(2) ?? null])).toEqual([
      ['2026-03-01', '200.00'],
      ['2026-04-01', null],
    ]);
    expect((await b.api.get<RecurringInvoice>(`${plansOf(b)}/${created.body.id}`)).body).toMatchObject({
      nextPeriodStart: '2026-05-01',
      nextRunDate: '2026-05-31',
    });
  });

  it('issues later what it could not issue when it was made (or when its worker died), once', { timeout: 120_000 }, async () => {
    // A profile without the seller's address: issuing is refused until it has one.
    const b = await billingTenant(server, provider, { legalName: 'Half a profile GmbH', defaultTaxRate: '19.00' });
    const created = await b.api.post<RecurringInvoice>(plansOf(b), {
      clientId: b.clientId,
      lines: [fee],
      interval: 'month',
      startDate: '2026-03-01',
      autoIssue: true,
    });
    expect(created.status).toBe(201);
    let now = '2026-03-01T12:00:00Z';
    const clock: Clock = { now: () => new Date(now), today: (zone) => localDate(new Date(now), zone) };
    const work = createRecurringInvoiceWork({ db: server.app.db, clock, services: server.app.services });
    const log = createLogger('silent');
    expect(await work.runDue(log)).toBe(1);
    const [made] = await invoicesOf(created.body.id);
    expect(made?.invoice?.status).toBe('draft');
    const run = { recurringInvoiceId: created.body.id, periodStart: dayColumn('2026-03-01') };
    expect(await server.app.db.recurringInvoiceRun.findUniqueOrThrow({ where: { recurringInvoiceId_periodStart: run } })).toMatchObject({
      finishedAt: null,
      finishLeaseUntil: null,
    });

    expect((await b.api.patch(`/tenants/${b.tenant.id}/billing-profile`, sellerProfile)).status).toBe(200);
    // A worker that died finishing it holds it for ten minutes: nobody else issues it meanwhile.
    await server.app.db.recurringInvoiceRun.update({
      where: { recurringInvoiceId_periodStart: run },
      data: { finishLeaseUntil: new Date('2026-03-01T12:10:00Z') },
    });
    now = '2026-03-01T12:05:00Z';
    await Promise.all([work.runDue(log), work.runDue(log)]);
    expect((await invoicesOf(created.body.id))[0]?.invoice?.status).toBe('draft');
    now = '2026-03-01T12:11:00Z';
    await Promise.all([work.runDue(log), work.runDue(log)]);
    const [issued] = await invoicesOf(created.body.id);
    expect(issued?.invoice).toMatchObject({ status: 'issued', numberSequence: 1 });
    expect(issued?.invoice?.issueDate).toEqual(dayColumn('2026-03-01'));
    expect((await server.app.db.recurringInvoiceRun.findUniqueOrThrow({ where: { recurringInvoiceId_periodStart: run } })).finishedAt).not.toBeNull();
  });

  it('makes what is due as soon as a worker starts, without waiting for the schedule', { timeout: 120_000 }, async () => {
    const b = await billingTenant(server, provider);
    const created = await b.api.post<RecurringInvoice>(plansOf(b), {
      clientId: b.clientId,
      lines: [fee],
      interval: 'month',
      startDate: daysAgo(3, 'Europe/Berlin'),
    });
    expect(created.status).toBe(201);
    const worker = await startTestServer({ databaseUrl: server.databaseUrl, env: { ...provider.env, ROLE: 'worker' } });
    try {
      const runs = await eventually(async () => {
        const found = await invoicesOf(created.body.id);
        expect(found).toHaveLength(1);
        return found;
      }, 60_000);
      expect(runs[0]?.invoice?.periodFrom).toEqual(dayColumn(daysAgo(3, 'Europe/Berlin')));
    } finally {
      await worker.stop();
    }
  });
});
