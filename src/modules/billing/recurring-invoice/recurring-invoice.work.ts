/**
 * The recurring-invoice work: every plan whose next invoice is due (its `nextRunDate` has come, in its
 * tenant's time zone, by the injected clock) makes that period's invoice, and the next, until none is due:
 * missed days and a worker that was down are caught up.
 *
 * Exactly once per period: a period's invoice is made in the transaction that inserts the period's row
 * (`recurring_invoice_runs`, primary key (plan, periodStart), insert-if-absent) and moves the plan on to
 * its next period, with the plan's row locked (`SKIP LOCKED`: a second worker goes on to other plans). Two
 * workers, a job that runs again, a restart half way: a period's row exists exactly when its invoice does.
 * Issuing and sending (autoIssue, autoSend) follow after that commit, through the client-invoice service,
 * as the tenant's `recurring-invoices` system actor; one that fails (a profile that cannot issue, a client
 * without an e-mail) is logged and leaves the invoice a draft (or issued) for people to finish.
 */
import { systemActor } from '../../../auth/actor.js';
import { systemAccess, type TenantAccess } from '../../../auth/tenant-access.js';
import type { Tx } from '../../../db/client.js';
import type { RecurringInvoice } from '../../../generated/prisma/client.js';
import { addDays, dayColumn, dayText } from '../../../lib/day.js';
import { AppError } from '../../../lib/errors.js';
import type { Logger } from '../../../lib/logger.js';
import type { WorkDependencies } from '../../module.js';
import { settingsFor } from '../../platform/tenant/tenant.settings.js';
import type { ManualLine } from '../client-invoice/client-invoice.dto.js';
import { periodAfter, type Period } from './recurring-invoice.periods.js';
import { nextColumns, scheduleOf } from './recurring-invoice.service.js';

/** Plans read per page while looking for due ones. */
const pageSize = 500;
/** Plans worked at once by one run. */
const lanes = 4;
/** The zone where a day begins first (UTC+14): no tenant's today is later than its today. */
const earliestZone = 'Pacific/Kiritimati';

/** How long a worker finishing a made invoice (issuing, sending) holds it before another may take it over. */
const finishLeaseMs = 10 * 60_000;

interface Made {
  access: TenantAccess;
  plan: RecurringInvoice;
  invoiceId: string | null;
  periodStart: Date;
}

export function createRecurringInvoiceWork({ db, clock, services }: Pick<WorkDependencies, 'db' | 'clock' | 'services'>) {
  const { clientInvoices } = services;

  /** The period's draft, in `tx`; null when there is nothing to bill (no lines, no time), which is rolled back to a savepoint. */
  async function makeInvoice(tx: Tx, access: TenantAccess, plan: RecurringInvoice, period: Period): Promise<string | null> {
    await tx.$executeRaw`SAVEPOINT recurring_invoice`;
    try {
      const invoice = await clientInvoices.create(
        access,
        {
          clientId: plan.clientId,
          periodFrom: period.start,
          periodTo: period.end,
          groupBy: 'project',
          // A plan that bills its period's time bills the period's approved expenses with it; a fixed fee neither.
          includeExpenses: plan.includeTime,
          expenseGrouping: 'category',
          lines: plan.lines as unknown as ManualLine[],
          // Issued on its run date, whenever a worker gets to it (a caught-up period keeps its own date).
          ...(plan.autoIssue ? { issueDate: period.runDate } : {}),
        },
        {},
        { tx, withTime: plan.includeTime },
      );
      return invoice.id;
    } catch (error) {
      if (!(error instanceof AppError && error.reason === 'NOTHING_TO_INVOICE')) throw error;
      await tx.$executeRaw`ROLLBACK TO SAVEPOINT recurring_invoice`;
      return null;
    }
  }

  /** Makes the plan's next period's invoice if it is due; null when none is (or another worker holds the plan). */
  async function makeNext(id: string): Promise<Made | null> {
    return db.$transaction(
      async (tx) => {
        const locked = await tx.$queryRaw<{ id: string }[]>`SELECT id FROM recurring_invoices WHERE id = ${id} FOR UPDATE SKIP LOCKED`;
        if (locked.length === 0) return null;
        const plan = await tx.recurringInvoice.findUniqueOrThrow({ where: { id }, include: { tenant: true } });
        if (plan.nextRunDate === null || plan.nextPeriodStart === null) return null;
        const access = systemAccess(plan.tenant, systemActor('recurring-invoices'));
        const { timezone } = await settingsFor(tx, access);
        if (dayText(plan.nextRunDate) > clock.today(timezone)) return null;
        const schedule = scheduleOf(plan);
        const start = dayText(plan.nextPeriodStart);
        // The period that begins on the plan's next start (the first to begin after the day before it).
        const period = periodAfter(schedule, addDays(start, -1));
        const inserted = await tx.$queryRaw<{ periodStart: Date }[]>`
          INSERT INTO recurring_invoice_runs ("recurringInvoiceId", "periodStart") VALUES (${id}, ${dayColumn(start)})
          ON CONFLICT DO NOTHING RETURNING "periodStart"`;
        let invoiceId: string | null = null;
        if (inserted.length > 0 && period !== null) {
          invoiceId = await makeInvoice(tx, access, plan, period);
          if (invoiceId !== null) {
            await tx.recurringInvoiceRun.update({
              where: { recurringInvoiceId_periodStart: { recurringInvoiceId: id, periodStart: dayColumn(start) } },
              data: { clientInvoiceId: invoiceId },
            });
          }
        }
        await tx.recurringInvoice.update({ where: { id }, data: nextColumns(schedule, start) });
        return { access, plan, invoiceId, periodStart: dayColumn(start) };
      },
      { maxWait: 10_000, timeout: 60_000 },
    );
  }

  /**
   * Issues and sends a made invoice as its plan says, once: the caller holds the run's lease. Done, the run is
   * finished; refused (a profile that cannot issue, a client without an e-mail), the lease is let go and a
   * later run tries again, the invoice meanwhile a draft (or issued) that people may finish themselves.
   */
  async function finish({ access, plan, invoiceId, periodStart }: Made, log: Logger): Promise<void> {
    if (invoiceId === null) return;
    const run = { recurringInvoiceId_periodStart: { recurringInvoiceId: plan.id, periodStart } };
    try {
      const invoice = await db.clientInvoice.findUnique({ where: { id: invoiceId }, select: { status: true, _count: { select: { sends: true } } } });
      if (invoice && plan.autoIssue && invoice.status === 'draft') await clientInvoices.issue(access, invoiceId);
      if (invoice && plan.autoIssue && plan.autoSend && invoice._count.sends === 0) await clientInvoices.send(access, invoiceId, { attach: ['pdf'] });
      await db.recurringInvoiceRun.update({ where: run, data: { finishedAt: clock.now(), finishLeaseUntil: null } });
    } catch (error) {
      await db.recurringInvoiceRun.update({ where: run, data: { finishLeaseUntil: null } });
      log.warn(
        { err: error, recurringInvoiceId: plan.id, clientInvoiceId: invoiceId },
        'a recurring invoice was made but could not be issued or sent; a later run tries again',
      );
    }
  }

  /** Finishes what was made and not finished (a worker died in between, or issuing was refused), taking each run's lease. */
  async function finishLeftOver(log: Logger): Promise<void> {
    const now = clock.now();
    const free = { finishedAt: null, clientInvoiceId: { not: null }, OR: [{ finishLeaseUntil: null }, { finishLeaseUntil: { lt: now } }] };
    const runs = await db.recurringInvoiceRun.findMany({ where: free, include: { plan: { include: { tenant: true } } }, take: pageSize });
    for (const run of runs) {
      const key = { recurringInvoiceId: run.recurringInvoiceId, periodStart: run.periodStart };
      const { count } = await db.recurringInvoiceRun.updateMany({
        where: { ...key, ...free },
        data: { finishLeaseUntil: new Date(now.getTime() + finishLeaseMs) },
      });
      if (count === 0) continue;
      const access = systemAccess(run.plan.tenant, systemActor('recurring-invoices'));
      await finish({ access, plan: run.plan, invoiceId: run.clientInvoiceId, periodStart: run.periodStart }, log);
    }
  }

  /** Makes every due period of one plan; returns how many invoices it made. */
  async function runPlan(id: string, log: Logger): Promise<number> {
    let made = 0;
    try {
      for (let next = await makeNext(id); next !== null; next = await makeNext(id)) {
        if (next.invoiceId !== null) made += 1;
        await finish(next, log);
      }
    } catch (error) {
      // One plan that cannot be made (its client gone, a bad line) does not hold up the others; the next run tries again.
      log.error({ err: error, recurringInvoiceId: id }, 'a recurring invoice could not be made');
    }
    return made;
  }

  return {
    /** Makes every due period's invoice of every plan; returns how many invoices were made. */
    async runDue(log: Logger): Promise<number> {
      await finishLeftOver(log);
      const horizon = dayColumn(clock.today(earliestZone));
      let made = 0;
      let after = '';
      for (;;) {
        const page = await db.recurringInvoice.findMany({
          where: { nextRunDate: { lte: horizon }, id: { gt: after } },
          select: { id: true },
          orderBy: { id: 'asc' },
          take: pageSize,
        });
        // A few plans at once: each is its own transaction on its own row (issuing waits in the tenant's number line anyway).
        let next = 0;
        const lane = async () => {
          for (let index = next++; index < page.length; index = next++) {
            const count = await runPlan((page[index] as { id: string }).id, log);
            made += count;
          }
        };
        await Promise.all(Array.from({ length: lanes }, lane));
        if (page.length < pageSize) break;
        after = (page[page.length - 1] as { id: string }).id;
      }
      if (made > 0) log.info({ made }, 'recurring invoices made');
      return made;
    },
  };
}

export type RecurringInvoiceWork = ReturnType<typeof createRecurringInvoiceWork>;
