/**
 * The events outbox. A service writes the event in the
 * same transaction as the change it describes, so an event exists exactly
 * when its change was committed. Workers fan events out to webhooks and
 * notifications later.
 */
import type { SqlClient, Tx } from '../db/client.js';
import { actorReference, type Actor } from '../auth/actor.js';
import { Prisma } from '../generated/prisma/client.js';
import { decimalJson } from '../lib/money.js';
import { dayText } from '../lib/day.js';

export const eventTypes = [
  'entry.created',
  'entry.updated',
  'entry.deleted',
  'entry.submitted',
  'entry.approved',
  'entry.rejected',
  'entry.reopened',
  'timer.started',
  'timer.stopped',
  'project.created',
  'project.updated',
  'project.deleted',
  'project.budget_reached',
  'project_member.added',
  'project_member.updated',
  'project_member.removed',
  'client.created',
  'client.updated',
  'client.deleted',
  'task_list.created',
  'task_list.updated',
  'task_list.deleted',
  'task.created',
  'task.updated',
  'task.deleted',
  'task.completed',
  'task.assigned',
  'vehicle.created',
  'vehicle.updated',
  'vehicle.deleted',
  'note.created',
  'note.updated',
  'note.deleted',
  'invoice.created',
  'invoice.updated',
  'invoice.deleted',
  'invoice.ocr_completed',
  'invoice.ocr_failed',
  'user.added',
  'user.updated',
  'user.removed',
  'sync.completed',
  'sync.failed',
  'import.completed',
  'api_key.created',
  'api_key.revoked',
  'webhook.test',
  'client_invoice.created',
  'client_invoice.updated',
  'client_invoice.deleted',
  'client_invoice.issued',
  'client_invoice.sent',
  'client_invoice.paid',
  'client_invoice.voided',
  // Recurring invoices (CONTRACT.md section 11): the plans; each invoice they make is a client_invoice.created.
  'recurring_invoice.created',
  'recurring_invoice.updated',
  'recurring_invoice.deleted',
  // Payment reminders (CONTRACT.md section 11): first seen overdue (once per invoice), and each reminder level written.
  'client_invoice.overdue',
  'client_invoice.reminded',
  // Not in the contract's list: the seller's data invoices are issued with, in the audit trail.
  'billing_profile.updated',
  // Time off and working time (CONTRACT.md section 10).
  'work_schedule.created',
  'work_schedule.deleted',
  'holiday.created',
  'holiday.deleted',
  'absence_type.created',
  'absence_type.updated',
  'absence_type.deleted',
  'absence.requested',
  'absence.updated',
  'absence.deleted',
  'absence.approved',
  'absence.rejected',
  'absence.cancelled',
  'vacation.updated',
  'vacation.corrected',
  // Overtime paid out or forfeited (CONTRACT.md section 11, "Overtime").
  'time_balance.corrected',
  // A member's overtime account went above the tenant's balanceCapMinutes (once per crossing).
  'time_balance.cap_exceeded',
  'calendar_token.created',
  'calendar_token.revoked',
  // Expenses (CONTRACT.md section 11), approved like entries.
  'expense.created',
  'expense.updated',
  'expense.deleted',
  'expense.submitted',
  'expense.approved',
  'expense.rejected',
  // Working-time law (CONTRACT.md section 11): once per member, day and rule.
  'working_time.violation',
  // Not in the contract's list: the reason admins are notified when deliveries stop.
  'webhook.disabled',
] as const;
export type EventType = (typeof eventTypes)[number];

/**
 * The events of billing records (the billing profile, clients with their billing details, client invoices
 * and their payments): their audit trail, kept as long as an issued invoice is (8 years after the end of
 * the year), not only EVENT_RETENTION_DAYS.
 */
export const billingRecordEventTypes: readonly EventType[] = eventTypes.filter((type) => /^(billing_profile|client|client_invoice)\./.test(type));

/** Years after the end of its year an issued invoice, and a billing record's event, is kept (GoBD, UStG § 14b). */
export const billingRecordRetentionYears = 8;

/**
 * Where an event comes from: the tenant it belongs to and who caused it. A
 * service passes its TenantAccess; a worker that acts on bare ids passes the
 * record's tenant and its system actor, or its own `systemAccess`.
 */
export interface EventOrigin {
  readonly tenantId: string | null;
  readonly actor: Actor;
}

/** What happened: the change an event describes. */
export interface EventInput {
  type: EventType;
  subjectId?: string;
  /**
   * The resource as the API shows it; serialised to JSON here. Its money prints at the scale of its `currency`: a
   * record that keeps none is given one (a project's, a member's rates).
   */
  data: unknown;
}

/**
 * `record` with its date columns (PostgreSQL `date`: Prisma reads them as
 * midnight UTC) as the days the API shows, `2027-03-25`, so that an event
 * never says a day is an instant.
 */
export function withDays<T extends object, K extends keyof T>(record: T, columns: readonly K[]): Omit<T, K> & Record<K, string | null> {
  const days: Partial<Record<K, string | null>> = {};
  for (const column of columns) {
    const value = record[column];
    days[column] = value instanceof Date ? dayText(value) : null;
  }
  return { ...record, ...days } as Omit<T, K> & Record<K, string | null>;
}

/**
 * The event's data as JSON text, as the API shows it: dates become ISO strings, bigints strings, and decimals
 * strings at their scale (money with its record's currency's minor units, percents with 2 decimals: lib/money.ts).
 */
function jsonOf(value: unknown): string {
  return JSON.stringify(value, function (this: Record<string, unknown>, key, item: unknown) {
    if (typeof item === 'bigint') return item.toString();
    // Decimal's own toJSON has already made `item` text ("155.2"): the value in its holder is still the Decimal.
    const original = this[key];
    if (typeof item === 'string' && Prisma.Decimal.isDecimal(original)) return decimalJson(key, original, this.currency as string | null | undefined);
    return item;
  });
}

/** An event as its row stores it (`data` as JSON text). */
function eventRowOf(origin: EventOrigin, event: EventInput) {
  const actor = actorReference(origin.actor);
  return {
    tenantId: origin.tenantId,
    type: event.type,
    actorType: actor.type,
    actorId: actor.id,
    subjectId: event.subjectId ?? null,
    data: jsonOf(event.data),
  };
}

/*
 * Both writers are plain INSERTs rather than `tx.event.create`: every change
 * in Tally writes an event, and Prisma's create reads the row back and maps
 * it, which nobody here uses (a measurable share of a note's create: see
 * docs/performance.md), and needed the data as a parsed JSON value that it then
 * printed again. The id is a UUIDv7 as Prisma's default would make it.
 */

const insertEvent = `INSERT INTO events (id, "tenantId", type, "actorType", "actorId", "subjectId", data)
  VALUES (uuidv7()::text, $1, $2, $3::"ActorType", $4, $5, $6::jsonb)`;

/** Writes one event row from `origin` inside the caller's transaction: Prisma's, or one of `Sql.transaction`. */
export async function recordEvent(tx: Tx | SqlClient, origin: EventOrigin, event: EventInput): Promise<void> {
  const row = eventRowOf(origin, event);
  const values = [row.tenantId, row.type, row.actorType, row.actorId, row.subjectId, row.data];
  if ('$executeRawUnsafe' in tx) await tx.$executeRawUnsafe(insertEvent, ...values);
  else await tx.query(insertEvent, values);
}

/**
 * Writes many events of one origin in one statement inside the caller's
 * transaction (an import's entries): their fields go as one array each, so the statement's
 * size does not grow with the rows (Prisma's createMany binds every value,
 * and spends a third of a second on 500 of them).
 */
export async function recordEvents(tx: Tx, origin: EventOrigin, events: readonly EventInput[]): Promise<void> {
  if (events.length === 0) return;
  const rows = events.map((event) => eventRowOf(origin, event));
  await tx.$executeRawUnsafe(
    `INSERT INTO events (id, "tenantId", type, "actorType", "actorId", "subjectId", data)
     SELECT uuidv7()::text, e.tenant, e.type, e.actor_type::"ActorType", e.actor, e.subject, e.data::jsonb
       FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[]) WITH ORDINALITY AS e(tenant, type, actor_type, actor, subject, data, position)
      ORDER BY e.position`,
    rows.map((row) => row.tenantId),
    rows.map((row) => row.type),
    rows.map((row) => row.actorType),
    rows.map((row) => row.actorId),
    rows.map((row) => row.subjectId),
    rows.map((row) => row.data),
  );
}
