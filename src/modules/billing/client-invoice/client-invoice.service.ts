import type { z } from 'zod';
import type { TenantAccess } from '../../../auth/tenant-access.js';
import type { Db, Tx } from '../../../db/client.js';
import type { Reads } from '../../../db/replicas.js';
import { tenantPage } from '../../../db/list.js';
import { shapesResult } from '../../../db/query.js';
import { recordEvent, withDays, type EventType } from '../../../events/outbox.js';
import { Prisma, type ClientInvoice } from '../../../generated/prisma/client.js';
import type { Clock } from '../../../lib/clock.js';
import { notFound, validationFailed } from '../../../lib/errors.js';
import { assertMoneyScale, minorUnitsOf } from '../../../lib/money.js';
import { billingProfileFor } from '../billing-profile/billing-profile.service.js';
import { createClientInvoiceArchive } from './client-invoice.archive.js';
import type { ClientInvoiceDocument } from './client-invoice.document.js';
import { toClientInvoiceDocument } from './client-invoice.document-of.js';
import { assertDraft, assertIssuable, assertIssued, buyerOf, sellerOf } from './client-invoice.issuable.js';
import { availableEInvoiceFormats } from './einvoice/writer.js';
import {
  clientInvoiceConflicts,
  type ClientInvoiceQuery,
  type CreateClientInvoiceDto,
  type ListClientInvoicesArgs,
  type PayClientInvoiceDto,
  type UpdateClientInvoiceDto,
} from './client-invoice.dto.js';
import { manualLinesOf, type LineValues } from './client-invoice.lines.js';
import { draftLines, releaseBilled } from './client-invoice.draft.js';
import {
  assertInvoiceMoney,
  checkedTotals,
  creditNoteColumns,
  discountColumns,
  discountOf,
  listFilter,
  partySnapshots,
  totalColumns,
} from './client-invoice.columns.js';
import { readClientInvoiceDocument } from './client-invoice.document-read.js';
import { type ListedClientInvoice, listClientInvoices, servesListQuery } from './client-invoice.list.js';
import { createNumberQueue, issueTransaction, nextNumber } from './client-invoice.numbering.js';
import { settingsFor } from '../../platform/tenant/tenant.settings.js';
import type { JobQueue } from '../../../events/jobs.js';
import type { Config } from '../../../config.js';
import { createSendStep } from './client-invoice.send.js';
import { findClient, insertLines, lockInvoice } from './client-invoice.rows.js';
import { addDays, dayColumn, dayText, optionalDayColumn } from '../../../lib/day.js';

const Decimal = Prisma.Decimal;

/** `create` inside the caller's transaction: a recurring invoice's run commits the draft with its period; `withTime: false` bills no time. */
export interface CreateWithin {
  tx: Tx;
  withTime: boolean;
}

/**
 * Client invoices: drafts made from a client's approved time (and manual
 * lines), issued with gapless numbers, sent, paid and voided by a credit
 * note. Owners, admins and API keys manage them; managers read them. An
 * entry or expense on a live invoice is read-only (409 ENTRY_INVOICED,
 * EXPENSE_INVOICED); deleting a draft or voiding an invoice releases it.
 */
/**
 * A draft bills a period's time line by line: ten thousand entries take seconds on a busy database, past Prisma's
 * 5 s default (whose expiry answers 503, nothing written). A minute, as a recurring invoice's run has.
 */
const draftTransaction = { maxWait: 10_000, timeout: 60_000 };

export function createClientInvoiceService({
  db,
  reads,
  clock,
  jobs,
  config,
}: {
  db: Db;
  reads: Reads;
  clock: Clock;
  jobs: JobQueue;
  config: Pick<Config, 'smtpUrl' | 'mailFrom'>;
}) {
  /** Per tenant: the issues and voids waiting for a number in this process. */
  const inLine = createNumberQueue();
  const archive = createClientInvoiceArchive({ db });

  const reread = (tx: Tx, id: string, query: ClientInvoiceQuery, row: ClientInvoice) =>
    shapesResult(query) ? tx.clientInvoice.findUniqueOrThrow({ ...query, where: { id } }) : row;

  /** An invoice as its events carry it: its dates as days. */
  const daysOf = (invoice: ClientInvoice) => withDays(invoice, ['issueDate', 'dueDate', 'periodFrom', 'periodTo']);

  /** `client_invoice.issued` says which e-invoice formats the issued invoice (or credit note) can be fetched in. */
  async function recordIssued(tx: Tx, access: TenantAccess, invoice: ClientInvoice): Promise<void> {
    const eInvoiceFormats = availableEInvoiceFormats(await readClientInvoiceDocument(tx, access, invoice.id));
    await recordEvent(tx, access, { type: 'client_invoice.issued', subjectId: invoice.id, data: { ...daysOf(invoice), eInvoiceFormats } });
  }

  const send = createSendStep({
    db,
    clock,
    jobs,
    config,
    files: { keptFile: archive.keptFile, keepFile: archive.keepFile, document: (access, id) => readClientInvoiceDocument(db, access, id) },
    lockInvoice,
    assertIssued,
    reread: async (tx, id, query, row) => reread(tx, id, query, row),
  });

  async function record(tx: Tx, access: TenantAccess, type: EventType, invoice: ClientInvoice): Promise<void> {
    await recordEvent(tx, access, { type, subjectId: invoice.id, data: daysOf(invoice) });
  }

  return {
    /**
     * The tenant's client invoices, newest first, by status, client and issue date: one statement through `sql` for
     * every selection of the invoices' own fields, lines, payments, last send and credit note (client-invoice.list.ts
     * says why); Prisma for selections of the client or the voided invoice.
     */
    async list(access: TenantAccess, input: z.output<typeof ListClientInvoicesArgs>, query: ClientInvoiceQuery = {}): Promise<ClientInvoice[]> {
      const { limit, offset, tenantId: _tenant, ...filter } = input;
      return reads.run(access, ({ db, sql }) =>
        servesListQuery(query)
          ? listClientInvoices(sql, access, input)
          : db.clientInvoice.findMany({ ...query, ...tenantPage(access.scope('read', 'ClientInvoice'), { limit, offset }, listFilter(filter)) }),
      );
    },

    /** The same page as its rows with what the list prints of their relations (REST's plain read: client-invoice.plain.ts). */
    async listed(access: TenantAccess, input: z.output<typeof ListClientInvoicesArgs>): Promise<ListedClientInvoice[]> {
      return reads.run(access, ({ sql }) => listClientInvoices(sql, access, input));
    },

    /** One client invoice of the tenant. */
    async get(access: TenantAccess, id: string, query: ClientInvoiceQuery = {}): Promise<ClientInvoice> {
      const invoice = await db.clientInvoice.findFirst({ ...query, where: { id, ...access.scope('read', 'ClientInvoice') } });
      if (!invoice) throw notFound('ClientInvoice', id);
      return invoice;
    },

    /**
     * A draft from the client's approved, billable time in the period (one
     * line per group and rate) and its expenses, with manual lines and a
     * discount; its entries and expenses are claimed in the same transaction.
     * 409 NOTHING_TO_INVOICE when there is none of them; nothing is written then.
     */
    async create(
      access: TenantAccess,
      input: z.output<typeof CreateClientInvoiceDto>,
      query: ClientInvoiceQuery = {},
      within?: CreateWithin,
    ): Promise<ClientInvoice> {
      access.assert('create', 'ClientInvoice');
      if (input.periodTo < input.periodFrom) throw validationFailed([{ path: 'periodTo', message: 'must not be before periodFrom' }]);
      if (input.issueDate && input.dueDate && input.dueDate < input.issueDate)
        throw validationFailed([{ path: 'dueDate', message: 'must not be before issueDate' }]);
      const make = async (tx: Tx) => {
        const client = await findClient(tx, access, input.clientId);
        assertInvoiceMoney(client.currency, input);
        const digits = minorUnitsOf(client.currency);
        if (input.projectIds) {
          const owned = await tx.project.findMany({
            where: { id: { in: input.projectIds }, clientId: client.id, ...access.tenantWide('Project') },
            select: { id: true },
          });
          const known = new Set(owned.map((project) => project.id));
          const strangers = input.projectIds.flatMap((id, index) =>
            known.has(id) ? [] : [{ path: `projectIds.${index}`, message: 'is not a project of this client' }],
          );
          if (strangers.length > 0) throw validationFailed(strangers);
        }
        // One after the other: a transaction's statements share one connection.
        const profile = await billingProfileFor(tx, access);
        const settings = await settingsFor(tx, access);
        const invoice = await tx.clientInvoice.create({
          data: access.stamp({
            clientId: client.id,
            clientName: client.name,
            currency: client.currency,
            periodFrom: dayColumn(input.periodFrom),
            periodTo: dayColumn(input.periodTo),
            groupBy: input.groupBy,
            issueDate: optionalDayColumn(input.issueDate ?? null),
            dueDate: optionalDayColumn(input.dueDate ?? null),
            buyerReference: input.buyerReference ?? client.buyerReference,
            notes: input.notes ?? null,
            ...discountColumns(input.discount ?? null),
            createdById: access.tenantUserId,
          }),
        });
        // A recurring invoice without its period's time bills its fixed lines alone: no time, no expenses.
        const billed = within?.withTime === false ? { ...input, projectIds: [], includeExpenses: false } : input;
        const lines = await draftLines(tx, access, billed, { invoiceId: invoice.id, client, profile, timeZone: settings.timezone, digits });
        const totals = checkedTotals(lines, discountOf(discountColumns(input.discount ?? null)), digits);
        await insertLines(tx, invoice.id, lines);
        const created = await tx.clientInvoice.update({ where: { id: invoice.id }, data: totalColumns(totals, digits) });
        await record(tx, access, 'client_invoice.created', created);
        return reread(tx, invoice.id, query, created);
      };
      return within ? make(within.tx) : db.$transaction(make, draftTransaction);
    },

    /** Changes a draft: dates, reference, notes, its manual lines (replaced whole) and its discount. 409 INVOICE_ISSUED otherwise. */
    async update(access: TenantAccess, id: string, input: z.output<typeof UpdateClientInvoiceDto>, query: ClientInvoiceQuery = {}): Promise<ClientInvoice> {
      access.assert('update', 'ClientInvoice');
      return db.$transaction(async (tx) => {
        const existing = await lockInvoice(tx, access, id);
        assertDraft(existing);
        assertInvoiceMoney(existing.currency, input);
        const digits = minorUnitsOf(existing.currency);
        const issueDate = input.issueDate === undefined ? existing.issueDate && dayText(existing.issueDate) : input.issueDate;
        const dueDate = input.dueDate === undefined ? existing.dueDate && dayText(existing.dueDate) : input.dueDate;
        if (issueDate && dueDate && dueDate < issueDate) throw validationFailed([{ path: 'dueDate', message: 'must not be before issueDate' }]);
        const current = await tx.clientInvoiceLine.findMany({ where: { clientInvoiceId: id }, orderBy: { position: 'asc' } });
        const timeLinesKept = current.filter((line) => line.source !== 'manual');
        let lines: LineValues[] = current;
        if (input.lines !== undefined) {
          const profile = await billingProfileFor(tx, access);
          const client = await findClient(tx, access, existing.clientId);
          lines = [...timeLinesKept, ...manualLinesOf(input.lines, profile, client, timeLinesKept.length, digits)];
          if (lines.length === 0) throw validationFailed([{ path: 'lines', message: 'must leave the invoice at least one line' }]);
        }
        const discount = input.discount === undefined ? discountOf(existing) : discountOf(discountColumns(input.discount));
        const totals = checkedTotals(lines, discount, digits);
        if (input.lines !== undefined) {
          await tx.clientInvoiceLine.deleteMany({ where: { clientInvoiceId: id, source: 'manual' } });
          const added = lines.filter((line) => line.source === 'manual');
          await insertLines(tx, id, added);
        }
        const updated = await tx.clientInvoice.update({
          where: { id },
          data: {
            issueDate: optionalDayColumn(input.issueDate),
            dueDate: optionalDayColumn(input.dueDate),
            ...(input.buyerReference === undefined ? {} : { buyerReference: input.buyerReference }),
            ...(input.notes === undefined ? {} : { notes: input.notes }),
            ...(input.discount === undefined ? {} : discountColumns(input.discount)),
            ...totalColumns(totals, digits),
          },
        });
        await record(tx, access, 'client_invoice.updated', updated);
        return reread(tx, id, query, updated);
      });
    },

    /** Deletes a draft (its lines go with it, its entries and expenses are released). */
    async remove(access: TenantAccess, id: string, query: ClientInvoiceQuery = {}): Promise<ClientInvoice> {
      access.assert('delete', 'ClientInvoice');
      return db.$transaction(async (tx) => {
        const existing = await lockInvoice(tx, access, id);
        assertDraft(existing);
        const shaped = shapesResult(query) ? await tx.clientInvoice.findUniqueOrThrow({ ...query, where: { id } }) : existing;
        await releaseBilled(tx, access, id);
        await tx.clientInvoice.delete({ where: { id } });
        await record(tx, access, 'client_invoice.deleted', existing);
        return shaped;
      });
    },

    /**
     * Issues a draft: the next number of the tenant's counter (row-locked
     * until commit, so issuers in any process wait in line and a failed issue
     * gives its number back), the issue and due dates, and the seller and
     * buyer as they are now, once they have what its files will need (409
     * BILLING_PROFILE_INCOMPLETE or CLIENT_INCOMPLETE naming every missing
     * field: client-invoice.issuable.ts).
     */
    async issue(access: TenantAccess, id: string, query: ClientInvoiceQuery = {}): Promise<ClientInvoice> {
      access.assert('update', 'ClientInvoice');
      return inLine(access.tenantId, () =>
        db.$transaction(async (tx) => {
          const existing = await lockInvoice(tx, access, id);
          assertDraft(existing);
          const profile = await billingProfileFor(tx, access);
          const settings = await settingsFor(tx, access);
          const client = await findClient(tx, access, existing.clientId);
          // A draft made before the client had a buyer reference takes the client's now.
          const buyerReference = existing.buyerReference ?? client.buyerReference;
          // What the files will need is read from the parties and the tax breakdown (the lines' categories): no more to load.
          const prospect = toClientInvoiceDocument({
            invoice: { ...existing, buyerReference },
            lines: [],
            paymentTermsDays: profile.paymentTermsDays,
            seller: sellerOf(profile),
            buyer: buyerOf(client, profile),
          });
          assertIssuable(prospect, client.einvoiceFormat);
          const issueDate = existing.issueDate ? dayText(existing.issueDate) : clock.today(settings.timezone);
          const dueDate = existing.dueDate ? dayText(existing.dueDate) : addDays(issueDate, profile.paymentTermsDays);
          const number = await nextNumber(tx, access, profile.numberPattern, issueDate);
          const issued = await tx.clientInvoice.update({
            where: { id },
            data: {
              status: 'issued',
              ...number,
              issueDate: dayColumn(issueDate),
              dueDate: dayColumn(dueDate),
              buyerReference,
              ...partySnapshots(profile, client),
              issuedAt: clock.now(),
            },
          });
          await recordIssued(tx, access, issued);
          return reread(tx, id, query, issued);
        }, issueTransaction),
      );
    },

    /** Sends an issued invoice by e-mail from a worker (SMTP configured), or only marks it sent (client-invoice.send.ts). */
    send: (...args: Parameters<typeof send>) => send(...args),

    /** Records a payment: all that is due unless `amount` is less; the invoice is paid when nothing is due. */
    async pay(access: TenantAccess, id: string, input: z.output<typeof PayClientInvoiceDto>, query: ClientInvoiceQuery = {}): Promise<ClientInvoice> {
      access.assert('update', 'ClientInvoice');
      return db.$transaction(async (tx) => {
        const existing = await lockInvoice(tx, access, id);
        assertIssued(existing, 'paid');
        if (existing.type === 'credit_note') throw clientInvoiceConflicts.refuse('CREDIT_NOTE', 'A credit note is not paid');
        if (existing.status === 'paid' || existing.due.lte(0))
          throw clientInvoiceConflicts.refuse('INVOICE_PAID', `The invoice ${existing.number} is paid in full`);
        // A payment is in the invoice's currency: 10.005 on an invoice in EUR would leave half a cent due for ever.
        assertMoneyScale(existing.currency, { amount: input.amount });
        const amount = input.amount === undefined ? existing.due : new Decimal(input.amount);
        if (amount.lte(0)) throw validationFailed([{ path: 'amount', message: 'must be above 0' }]);
        if (amount.gt(existing.due))
          throw validationFailed([{ path: 'amount', message: `must not exceed what is due (${existing.due.toFixed(minorUnitsOf(existing.currency))})` }]);
        const payment = await tx.clientInvoicePayment.create({ data: { clientInvoiceId: id, paidAt: dayColumn(input.paidAt), amount } });
        const paid = existing.paid.add(amount);
        const due = existing.gross.sub(paid);
        const updated = await tx.clientInvoice.update({
          where: { id },
          data: { paid, due, ...(due.isZero() ? { status: 'paid', paidAt: dayColumn(input.paidAt) } : {}) },
        });
        // The payment itself, beside the invoice it changed: the feed is the trail of every payment, partial ones too.
        await recordEvent(tx, access, {
          type: 'client_invoice.paid',
          subjectId: id,
          data: { ...updated, payment: { id: payment.id, paidAt: dayText(payment.paidAt), amount: payment.amount } },
        });
        return reread(tx, id, query, updated);
      });
    },

    /**
     * Voids an issued invoice: a credit note with the same lines takes the
     * next number, the invoice becomes void and its entries and expenses are
     * released (they may be invoiced again). Returns the voided invoice (its
     * `creditNote` is the new one).
     */
    async void(access: TenantAccess, id: string, query: ClientInvoiceQuery = {}): Promise<ClientInvoice> {
      access.assert('update', 'ClientInvoice');
      return inLine(access.tenantId, () =>
        db.$transaction(async (tx) => {
          const existing = await lockInvoice(tx, access, id);
          if (existing.type === 'credit_note') throw clientInvoiceConflicts.refuse('CREDIT_NOTE', 'A credit note is not voided');
          assertIssued(existing, 'voided');
          // One after the other: a transaction's statements share one connection.
          const profile = await billingProfileFor(tx, access);
          const settings = await settingsFor(tx, access);
          const lines = await tx.clientInvoiceLine.findMany({ where: { clientInvoiceId: id }, orderBy: { position: 'asc' } });
          const issueDate = clock.today(settings.timezone);
          const number = await nextNumber(tx, access, profile.numberPattern, issueDate);
          const now = clock.now();
          const draftCreditNote = await tx.clientInvoice.create({
            data: creditNoteColumns(existing, { number, issueDate, now, createdById: access.tenantUserId }),
          });
          await insertLines(tx, draftCreditNote.id, lines);
          const creditNote = await tx.clientInvoice.update({ where: { id: draftCreditNote.id }, data: { status: 'issued' } });
          await releaseBilled(tx, access, id);
          const voided = await tx.clientInvoice.update({ where: { id }, data: { status: 'void', voidedAt: now } });
          await record(tx, access, 'client_invoice.created', creditNote);
          await recordIssued(tx, access, creditNote);
          await record(tx, access, 'client_invoice.voided', voided);
          return reread(tx, id, query, voided);
        }, issueTransaction),
      );
    },

    /** One invoice of the tenant as the files that leave Tally are written from (PDF, Factur-X, EN 16931 XML). */
    async document(access: TenantAccess, id: string): Promise<ClientInvoiceDocument> {
      return readClientInvoiceDocument(db, access, id);
    },

    /** The file an issued invoice or credit note was first served as, kept byte for byte (null while none is). */
    keptFile: archive.keptFile,

    /** Keeps the file of an issued document unless one is kept already; returns the kept one. */
    keepFile: archive.keepFile,
  };
}

export type ClientInvoiceService = ReturnType<typeof createClientInvoiceService>;
