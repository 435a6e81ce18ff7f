/**
 * The reminder sweep (workers only): every issued or sent invoice with money open past its due date is raised
 * to the highest reminder level it has reached, each level at most once. Each invoice is settled in its own
 * transaction that locks its row first, so two sweeps at once (two workers) take turns on it and the second finds
 * the level written (the unique (invoice, level) key stands behind that too); a payment in the meantime is seen
 * under the lock, and stops it. The reminders' PDFs are written after them, from what each row froze, and kept.
 */
import { systemActor } from '../../../auth/actor.js';
import type { Db, Tx } from '../../../db/client.js';
import { recordEvent } from '../../../events/outbox.js';
import { daysBetweenColumns, dayColumn, dayText } from '../../../lib/day.js';
import type { Logger } from '../../../lib/logger.js';
import { fixedDecimal, minorUnitsOf } from '../../../lib/money.js';
import type { Clock } from '../../../lib/clock.js';
import { levelReached, type ReminderLevel, reminderLevelsOf } from '../billing-profile/billing-profile.reminders.js';
import { timezoneOf } from '../../platform/tenant/tenant.settings.js';
import { keptReminderPdf } from './payment-reminder.file.js';

const actor = systemActor('payment-reminders');

interface Candidate {
  id: string;
  tenantId: string;
  /** `YYYY-MM-DD`. */
  dueDate: string;
  /** The tenant's settings, for its time zone. */
  settings: unknown;
  levels: unknown;
  reminded: number | null;
}

/** The reminder file's name: `reminder-2-invoice-2026-0042.pdf`. */
export const reminderFileName = (level: number, number: string | null): string =>
  `reminder-${level}-invoice-${(number ?? 'draft').replace(/[^A-Za-z0-9._-]+/g, '-')}.pdf`;

export function createPaymentReminderWork({ db, clock }: { db: Db; clock: Clock }) {
  /** Writes level `level` of invoice `id` unless it is paid or the level is written; the new reminder's id, if it wrote one. */
  async function remind(tx: Tx, id: string, level: number, levels: readonly ReminderLevel[], today: string): Promise<string | null> {
    // The lock orders sweeps on this invoice; what it reads is the invoice as it stands now (a payment included).
    await tx.$queryRaw`SELECT id FROM client_invoices WHERE id = ${id} FOR UPDATE`;
    const invoice = await tx.clientInvoice.findUniqueOrThrow({
      where: { id },
      include: { lines: { orderBy: { position: 'asc' } }, creditNoteFor: { select: { number: true, issueDate: true } } },
    });
    if ((invoice.status !== 'issued' && invoice.status !== 'sent') || invoice.due.lte(0) || !invoice.dueDate) return null;
    const written = await tx.clientInvoiceReminder.findMany({ where: { clientInvoiceId: id }, select: { level: true } });
    if (written.some((reminder) => reminder.level >= level)) return null;
    const definition = levels[level - 1] as ReminderLevel;
    const digits = minorUnitsOf(invoice.currency);
    const fee = fixedDecimal(definition.feeAmount, digits);
    const open = fixedDecimal(invoice.due, digits);
    const daysOverdue = daysBetweenColumns(invoice.dueDate, dayColumn(today));
    const claimed = await tx.$queryRaw<{ id: string }[]>`
      INSERT INTO client_invoice_reminders (id, "tenantId", "clientInvoiceId", level, "daysOverdue", "feeAmount", "openAmount", currency, text, "fileName", "createdAt")
      VALUES (uuidv7()::text, ${invoice.tenantId}, ${id}, ${level}, ${daysOverdue}, ${fee}::numeric, ${open}::numeric, ${invoice.currency},
              ${definition.text}, ${reminderFileName(level, invoice.number)}, ${clock.now()})
      ON CONFLICT ("clientInvoiceId", level) DO NOTHING
      RETURNING id`;
    const reminder = claimed[0];
    if (!reminder) return null;
    const origin = { tenantId: invoice.tenantId, actor };
    const facts = { number: invoice.number, dueDate: dayText(invoice.dueDate), daysOverdue, openAmount: open, currency: invoice.currency };
    // The first reminder is when the invoice is first seen overdue: `overdue` once per invoice, `reminded` once per level.
    if (written.length === 0) await recordEvent(tx, origin, { type: 'client_invoice.overdue', subjectId: id, data: facts });
    await recordEvent(tx, origin, { type: 'client_invoice.reminded', subjectId: id, data: { ...facts, reminderId: reminder.id, level, feeAmount: fee } });
    return reminder.id;
  }

  /** Raises every overdue invoice to the level it has reached; the ids of the reminders it wrote (their PDFs not yet). */
  async function claimOverdue(): Promise<string[]> {
    // An invoice is overdue once its due date has passed in its tenant's time zone (the day its tenant's people
    // and clients live in), not in UTC. The statement takes every invoice due before the latest today on Earth
    // (UTC+14); each tenant's own today decides.
    const latestToday = clock.today('Pacific/Kiritimati');
    const candidates = await db.$queryRaw<Candidate[]>`
      SELECT i.id, i."tenantId", to_char(i."dueDate", 'YYYY-MM-DD') AS "dueDate", t.settings, p."reminderLevels" AS levels,
             (SELECT max(r.level) FROM client_invoice_reminders r WHERE r."clientInvoiceId" = i.id) AS reminded
        FROM client_invoices i
        JOIN tenants t ON t.id = i."tenantId"
        LEFT JOIN billing_profiles p ON p."tenantId" = i."tenantId"
       WHERE i.status IN ('issued', 'sent') AND i.type = 'invoice' AND i."dueDate" < ${latestToday}::date AND i.due > 0
       ORDER BY i."dueDate", i.id`;
    const written: string[] = [];
    for (const candidate of candidates) {
      const today = clock.today(timezoneOf(candidate));
      if (candidate.dueDate >= today) continue;
      const levels = reminderLevelsOf(candidate.levels);
      const level = levelReached(levels, daysBetweenColumns(dayColumn(candidate.dueDate), dayColumn(today)));
      if (level === 0 || (candidate.reminded ?? 0) >= level) continue;
      const id = await db.$transaction((tx) => remind(tx, candidate.id, level, levels, today));
      if (id) written.push(id);
    }
    return written;
  }

  /** Writes the PDFs of reminders `ids`, from what each row froze (the invoices' locks are not held meanwhile). */
  async function writeDocuments(ids: readonly string[]): Promise<void> {
    for (const id of ids) await keptReminderPdf(db, id);
  }

  return {
    claimOverdue,
    writeDocuments,

    /** Raises every overdue invoice to the level it has reached, then writes the new reminders' PDFs; how many it wrote. */
    async remindOverdue(log: Logger): Promise<number> {
      const written = await claimOverdue();
      await writeDocuments(written);
      if (written.length > 0) log.info({ written: written.length }, 'payment reminders written');
      return written.length;
    },
  };
}

export type PaymentReminderWork = ReturnType<typeof createPaymentReminderWork>;
