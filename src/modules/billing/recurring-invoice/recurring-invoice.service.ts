/**
 * Recurring invoices: plans that make a client invoice every month, quarter or year, with fixed lines and
 * optionally the period's time (the work in recurring-invoice.work.ts makes them). Owners, admins and API
 * keys manage them; managers read them. A plan shows when its next invoice is made (`nextRunDate`, null
 * once it has ended); changing the schedule keeps the periods already invoiced and goes on after the last.
 */
import type { z } from 'zod';
import type { TenantAccess } from '../../../auth/tenant-access.js';
import type { Db, Tx } from '../../../db/client.js';
import type { Reads } from '../../../db/replicas.js';
import { tenantPage } from '../../../db/list.js';
import { shapesResult } from '../../../db/query.js';
import { recordEvent, withDays, type EventType } from '../../../events/outbox.js';
import type { RecurringInvoice } from '../../../generated/prisma/client.js';
import { dayColumn, dayText, optionalDayColumn } from '../../../lib/day.js';
import { notFound, validationFailed, type FieldError } from '../../../lib/errors.js';
import { assertInvoiceMoney } from '../client-invoice/client-invoice.columns.js';
import type { ManualLine } from '../client-invoice/client-invoice.dto.js';
import type { CreateRecurringInvoiceDto, ListRecurringInvoicesArgs, RecurringInvoiceQuery, UpdateRecurringInvoiceDto } from './recurring-invoice.dto.js';
import { periodAfter, type Schedule } from './recurring-invoice.periods.js';

/** A plan's schedule, from its row. */
export const scheduleOf = (plan: RecurringInvoice): Schedule => ({
  interval: plan.interval,
  dayOfPeriod: plan.dayOfPeriod,
  startDate: dayText(plan.startDate),
  endDate: plan.endDate && dayText(plan.endDate),
});

/** The columns of the next period to invoice after `lastStart` (null: none yet). */
export function nextColumns(schedule: Schedule, lastStart: string | null) {
  const next = periodAfter(schedule, lastStart);
  return { nextPeriodStart: next && dayColumn(next.start), nextRunDate: next && dayColumn(next.runDate) };
}

/** Every rule a plan's settings break, named by field. */
function scheduleErrors(plan: Schedule & { autoIssue: boolean; autoSend: boolean }): FieldError[] {
  return [
    ...(plan.endDate !== null && plan.endDate < plan.startDate ? [{ path: 'endDate', message: 'must not be before startDate' }] : []),
    ...(plan.autoSend && !plan.autoIssue ? [{ path: 'autoSend', message: 'needs autoIssue: only an issued invoice is sent' }] : []),
  ];
}

export function createRecurringInvoiceService({ db, reads }: { db: Db; reads: Reads }) {
  const daysOf = (plan: RecurringInvoice) => withDays(plan, ['startDate', 'endDate', 'nextPeriodStart', 'nextRunDate']);
  const record = (tx: Tx, access: TenantAccess, type: EventType, plan: RecurringInvoice) =>
    recordEvent(tx, access, { type, subjectId: plan.id, data: daysOf(plan) });
  const reread = (tx: Tx, id: string, query: RecurringInvoiceQuery, row: RecurringInvoice) =>
    shapesResult(query) ? tx.recurringInvoice.findUniqueOrThrow({ ...query, where: { id } }) : row;

  async function clientCurrency(tx: Tx, access: TenantAccess, clientId: string): Promise<string> {
    const client = await tx.client.findFirst({ where: { id: clientId, ...access.tenantWide('Client') }, select: { currency: true } });
    if (!client) throw validationFailed([{ path: 'clientId', message: 'is not a client of this tenant' }]);
    return client.currency;
  }

  async function lockPlan(tx: Tx, access: TenantAccess, id: string): Promise<RecurringInvoice> {
    const values: unknown[] = [id];
    const changeable = access.sqlScope('update', 'RecurringInvoice', 'ri', (value) => `$${values.push(value)}`);
    const locked = await tx.$queryRawUnsafe<{ id: string }[]>(
      `SELECT ri.id FROM recurring_invoices ri WHERE ri.id = $1 AND ${changeable} FOR UPDATE`,
      ...values,
    );
    if (locked.length === 0) throw notFound('RecurringInvoice', id);
    return tx.recurringInvoice.findUniqueOrThrow({ where: { id } });
  }

  return {
    /** The tenant's recurring invoices, newest first, optionally of one client. */
    async list(
      access: TenantAccess,
      { limit, offset, tenantId: _tenant, clientId }: z.output<typeof ListRecurringInvoicesArgs>,
      query: RecurringInvoiceQuery = {},
    ): Promise<RecurringInvoice[]> {
      return reads.run(access, ({ db }) =>
        db.recurringInvoice.findMany({
          ...query,
          ...tenantPage(access.scope('read', 'RecurringInvoice'), { limit, offset }, clientId ? { clientId } : {}),
        }),
      );
    },

    async get(access: TenantAccess, id: string, query: RecurringInvoiceQuery = {}): Promise<RecurringInvoice> {
      const plan = await db.recurringInvoice.findFirst({ ...query, where: { id, ...access.scope('read', 'RecurringInvoice') } });
      if (!plan) throw notFound('RecurringInvoice', id);
      return plan;
    },

    /** A plan; its first period begins on startDate (a past one: the periods since are made on the work's next run). */
    async create(access: TenantAccess, input: z.output<typeof CreateRecurringInvoiceDto>, query: RecurringInvoiceQuery = {}): Promise<RecurringInvoice> {
      access.assert('create', 'RecurringInvoice');
      const schedule: Schedule = { interval: input.interval, dayOfPeriod: input.dayOfPeriod, startDate: input.startDate, endDate: input.endDate ?? null };
      const errors = scheduleErrors({ ...schedule, autoIssue: input.autoIssue, autoSend: input.autoSend });
      if (errors.length > 0) throw validationFailed(errors);
      return db.$transaction(async (tx) => {
        assertInvoiceMoney(await clientCurrency(tx, access, input.clientId), { lines: input.lines });
        const plan = await tx.recurringInvoice.create({
          data: access.stamp({
            clientId: input.clientId,
            lines: input.lines,
            interval: input.interval,
            dayOfPeriod: input.dayOfPeriod,
            startDate: dayColumn(input.startDate),
            endDate: optionalDayColumn(input.endDate ?? null),
            includeTime: input.includeTime,
            autoIssue: input.autoIssue,
            autoSend: input.autoSend,
            ...nextColumns(schedule, null),
            createdById: access.tenantUserId,
          }),
        });
        await record(tx, access, 'recurring_invoice.created', plan);
        return reread(tx, plan.id, query, plan);
      });
    },

    /** Changes a plan; its next period is the first of the new schedule after the last one invoiced. */
    async update(
      access: TenantAccess,
      id: string,
      input: z.output<typeof UpdateRecurringInvoiceDto>,
      query: RecurringInvoiceQuery = {},
    ): Promise<RecurringInvoice> {
      access.assert('update', 'RecurringInvoice');
      return db.$transaction(async (tx) => {
        const existing = await lockPlan(tx, access, id);
        const before = scheduleOf(existing);
        const schedule: Schedule = {
          interval: input.interval ?? before.interval,
          dayOfPeriod: input.dayOfPeriod ?? before.dayOfPeriod,
          startDate: input.startDate ?? before.startDate,
          endDate: input.endDate === undefined ? before.endDate : input.endDate,
        };
        const autoIssue = input.autoIssue ?? existing.autoIssue;
        const autoSend = input.autoSend ?? existing.autoSend;
        const errors = scheduleErrors({ ...schedule, autoIssue, autoSend });
        if (errors.length > 0) throw validationFailed(errors);
        if (input.lines) assertInvoiceMoney(await clientCurrency(tx, access, existing.clientId), { lines: input.lines });
        const last = await tx.recurringInvoiceRun.findFirst({
          where: { recurringInvoiceId: id },
          orderBy: { periodStart: 'desc' },
          select: { periodStart: true },
        });
        const updated = await tx.recurringInvoice.update({
          where: { id },
          data: {
            ...(input.lines ? { lines: input.lines as ManualLine[] } : {}),
            interval: schedule.interval,
            dayOfPeriod: schedule.dayOfPeriod,
            startDate: dayColumn(schedule.startDate),
            endDate: optionalDayColumn(schedule.endDate),
            ...(input.includeTime === undefined ? {} : { includeTime: input.includeTime }),
            autoIssue,
            autoSend,
            ...nextColumns(schedule, last ? dayText(last.periodStart) : null),
          },
        });
        await record(tx, access, 'recurring_invoice.updated', updated);
        return reread(tx, id, query, updated);
      });
    },

    /** Deletes a plan; the invoices it made stay. */
    async remove(access: TenantAccess, id: string, query: RecurringInvoiceQuery = {}): Promise<RecurringInvoice> {
      access.assert('delete', 'RecurringInvoice');
      return db.$transaction(async (tx) => {
        const existing = await lockPlan(tx, access, id);
        const shaped = shapesResult(query) ? await tx.recurringInvoice.findUniqueOrThrow({ ...query, where: { id } }) : existing;
        await tx.recurringInvoice.delete({ where: { id } });
        await record(tx, access, 'recurring_invoice.deleted', existing);
        return shaped;
      });
    },
  };
}

export type RecurringInvoiceService = ReturnType<typeof createRecurringInvoiceService>;
