/**
 * Who is told about what (CONTRACT.md section 6), and in which words:
 *
 *   entry.submitted         -> the tenant's approvers (owners, admins, managers), not the entry's owner
 *   entry.approved|rejected -> the entry's owner
 *   expense.submitted       -> the tenant's approvers, not the expense's owner (as an entry's submission)
 *   expense.approved|rejected -> the expense's owner
 *   absence.requested       -> the tenant's approvers, not the absence's owner (when it waits for approval)
 *   absence.approved|rejected -> the absence's owner
 *   task.assigned           -> the assignee
 *   invoice.ocr_completed|ocr_failed -> the uploader
 *   sync.failed, webhook.disabled    -> owners and admins
 *   project.budget_reached  -> owners, admins and managers (whoever's entry crossed it: it is news of the project)
 *   time_balance.cap_exceeded -> the member and the owners and admins (who may pay it out: a correction)
 *   working_time.violation  -> the member's managers (owners, admins, managers), not the member
 *
 * Only active members are told, and never about what they did themselves
 * (except a budget reached, which no one did on purpose).
 * Pure, so that each rule is tested on its own (notification.rules.test.ts).
 */
import type { OutboxEvent } from '../../../events/dispatcher.js';
import type { TenantRole, TenantUserStatus } from '../../../generated/prisma/enums.js';
import { moneyText } from '../../../lib/money.js';
import { localDate } from '../../../lib/time.js';

export interface Member {
  id: string;
  tenantId: string;
  userId: string | null;
  role: TenantRole;
  status: TenantUserStatus;
  name: string | null;
  email: string;
}

export interface NotificationDraft {
  tenantId: string;
  tenantUserId: string;
  eventId: string;
  type: string;
  title: string;
  body: string | null;
  data: Record<string, string | null>;
}

/** What the rules need to know beyond the event. */
export interface Audience {
  member(id: string): Member | undefined;
  /** Active members of a tenant with one of these roles. */
  withRoles(tenantId: string, roles: readonly TenantRole[]): Member[];
  timeZone(tenantId: string): string;
}

export const reviewerRoles: readonly TenantRole[] = ['owner', 'admin', 'manager'];
export const adminRoles: readonly TenantRole[] = ['owner', 'admin'];

/** The member ids an event names as recipients (read before the rules run). */
export function namedRecipients(event: OutboxEvent): string[] {
  const data = event.data;
  const pick = (key: string) => (typeof data[key] === 'string' ? [data[key]] : []);
  switch (event.type) {
    case 'entry.submitted':
    case 'entry.approved':
    case 'entry.rejected':
    case 'expense.submitted':
    case 'expense.approved':
    case 'expense.rejected':
    case 'absence.requested':
    case 'absence.approved':
    case 'absence.rejected':
    case 'working_time.violation':
      return pick('tenantUserId');
    case 'task.assigned':
      return pick('assigneeId');
    case 'invoice.ocr_completed':
    case 'invoice.ocr_failed':
      return pick('uploadedById');
    case 'import.completed':
      return pick('createdById');
    case 'time_balance.cap_exceeded':
      return pick('tenantUserId');
    default:
      return [];
  }
}

/** The roles an event notifies, tenant-wide. */
export function notifiedRoles(event: OutboxEvent): readonly TenantRole[] {
  switch (event.type) {
    case 'entry.submitted':
    case 'expense.submitted':
      // An entry submitted without required approval is approved at once (an expense always waits): then nothing waits for review.
      return event.data.status === 'submitted' ? reviewerRoles : [];
    case 'absence.requested':
      // A type without approval is approved at once: nothing waits for review.
      return event.data.status === 'pending' ? reviewerRoles : [];
    case 'sync.failed':
    case 'webhook.disabled':
      return adminRoles;
    case 'project.budget_reached':
    case 'working_time.violation':
      return reviewerRoles;
    case 'time_balance.cap_exceeded':
      return adminRoles;
    default:
      return [];
  }
}

const text = (value: unknown): string | null => (typeof value === 'string' && value.trim() !== '' ? value : null);

export function formatMinutes(minutes: number): string {
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  if (hours === 0) return `${rest} min`;
  return rest === 0 ? `${hours} h` : `${hours} h ${rest} min`;
}

function entrySummary(data: Record<string, unknown>, timeZone: string): string {
  const started = typeof data.startedAt === 'string' ? localDate(new Date(data.startedAt), timeZone) : null;
  const duration = typeof data.durationMinutes === 'number' ? formatMinutes(data.durationMinutes) : null;
  return [started, duration, text(data.description)].filter((part) => part !== null).join(' · ');
}

/** `2026-03-05 · travel · 119.00 EUR · Train Berlin-Hamburg` (an expense waiting for its receipt has no date or amount yet). */
function expenseSummary(data: Record<string, unknown>): string {
  const currency = text(data.currency);
  const amount =
    (typeof data.amount === 'string' || typeof data.amount === 'number') && currency ? `${moneyText(String(data.amount), currency)} ${currency}` : null;
  return [text(data.date), text(data.category), amount, text(data.description)].filter((part) => part !== null).join(' · ');
}

/** `2027-03-25 to 2027-03-31`, `2027-03-02 (am)` */
function absenceSummary(data: Record<string, unknown>): string {
  const day = (value: unknown) => (typeof value === 'string' ? value.slice(0, 10) : '?');
  const start = day(data.startDate);
  const end = day(data.endDate);
  const half = text(data.halfDay);
  return start === end ? `${start}${half ? ` (${half})` : ''}` : `${start} to ${end}`;
}

function wording(event: OutboxEvent, audience: Audience): { title: string; body: string | null; data: Record<string, string | null> } | undefined {
  const { data } = event;
  const tenantId = event.tenantId as string;
  const subject = { subjectId: event.subjectId };
  /** The member the event is about, by name (or e-mail). */
  const ownerName = (): string => {
    const owner = typeof data.tenantUserId === 'string' ? audience.member(data.tenantUserId) : undefined;
    return owner?.name ?? owner?.email ?? 'A member';
  };
  /** A member asks the reviewers (time, an expense, time off): "Ann submitted time for approval". */
  const request = (asked: string, body: string, idKey: string) => ({ title: `${ownerName()} ${asked}`, body, data: { ...subject, [idKey]: event.subjectId } });
  /** The reviewers' answer to the member, with the reason of a rejection. */
  const answer = (what: string, outcome: 'approved' | 'rejected', summary: string, idKey: string) => {
    if (outcome === 'approved') return { title: `Your ${what} was approved`, body: summary, data: { ...subject, [idKey]: event.subjectId } };
    const reason = text(data.rejectionReason);
    return { title: `Your ${what} was rejected`, body: reason ? `${reason} (${summary})` : summary, data: { ...subject, [idKey]: event.subjectId, reason } };
  };
  switch (event.type) {
    case 'entry.submitted':
      return request('submitted time for approval', entrySummary(data, audience.timeZone(tenantId)), 'entryId');
    case 'entry.approved':
      return answer('time entry', 'approved', entrySummary(data, audience.timeZone(tenantId)), 'entryId');
    case 'entry.rejected':
      return answer('time entry', 'rejected', entrySummary(data, audience.timeZone(tenantId)), 'entryId');
    case 'expense.submitted':
      return request('submitted an expense for approval', expenseSummary(data), 'expenseId');
    case 'expense.approved':
      return answer('expense', 'approved', expenseSummary(data), 'expenseId');
    case 'expense.rejected':
      return answer('expense', 'rejected', expenseSummary(data), 'expenseId');
    case 'absence.requested':
      return request('requested time off', absenceSummary(data), 'absenceId');
    case 'absence.approved':
      return answer('absence', 'approved', absenceSummary(data), 'absenceId');
    case 'absence.rejected':
      return answer('absence', 'rejected', absenceSummary(data), 'absenceId');
    case 'task.assigned':
      return { title: 'A task was assigned to you', body: text(data.title), data: { ...subject, taskId: event.subjectId, taskListId: text(data.taskListId) } };
    case 'invoice.ocr_completed':
      return { title: 'Your invoice was read', body: text(data.fileName) ?? text(data.number), data: { ...subject, invoiceId: event.subjectId } };
    case 'invoice.ocr_failed':
      return { title: 'Your invoice could not be read', body: text(data.fileName), data: { ...subject, invoiceId: event.subjectId } };
    case 'sync.failed':
      return {
        title: 'A mailbox sync failed',
        body: [text(data.name), text(data.lastError)].filter(Boolean).join(': ') || null,
        data: { ...subject, syncId: event.subjectId },
      };
    case 'project.budget_reached': {
      const metric = data.metric === 'hours' ? 'hours' : 'amount';
      return {
        title: `${text(data.projectName) ?? 'A project'} reached ${String(data.threshold)}% of its ${metric === 'hours' ? 'hours' : 'amount'} budget`,
        body: `${String(data.spent)} of ${String(data.budget)}${metric === 'hours' ? ' hours' : ''} spent (${data.period === 'total' ? 'in total' : `in ${String(data.period)}`})`,
        data: { ...subject, projectId: event.subjectId, threshold: String(data.threshold), metric, period: text(data.period) },
      };
    }
    case 'import.completed': {
      const counts = (key: string) => (typeof data[key] === 'number' ? data[key] : 0);
      const what = data.dryRun === true ? 'The dry run of your import' : 'Your import';
      return {
        title: data.status === 'failed' ? `${what} failed` : `${what} has finished`,
        body:
          data.status === 'failed'
            ? text(data.lastError)
            : `${String(counts('imported'))} imported, ${String(counts('skipped'))} skipped, ${String(counts('failed'))} failed (${text(data.fileName) ?? 'file'})`,
        data: { ...subject, importId: event.subjectId },
      };
    }
    case 'time_balance.cap_exceeded': {
      const minutes = (key: string) => (typeof data[key] === 'number' ? formatMinutes(data[key]) : '?');
      return {
        title: `${ownerName()}'s overtime is above the cap`,
        body: `${minutes('balanceMinutes')} on the account, the cap is ${minutes('capMinutes')} (as of ${text(data.asOf) ?? '?'})`,
        data: { ...subject, tenantUserId: text(data.tenantUserId) },
      };
    }
    case 'working_time.violation':
      return {
        title: `${ownerName()}'s working day ${String(data.date)} breaks ${String(data.rule)}`,
        body: text(data.detail),
        data: { ...subject, tenantUserId: text(data.tenantUserId), date: text(data.date), rule: text(data.rule) },
      };
    case 'webhook.disabled':
      return {
        title: 'A webhook was disabled',
        body: [text(data.url), text(data.disabledReason)].filter(Boolean).join(': ') || null,
        data: { ...subject, webhookId: event.subjectId },
      };
    default:
      return undefined;
  }
}

/** Events that ask the member's reviewers for something: never sent to the member they are about. */
const reviewRequests = new Set<string>(['entry.submitted', 'expense.submitted', 'absence.requested', 'working_time.violation']);

/** The notifications one event causes. */
export function notificationsFor(event: OutboxEvent, audience: Audience): NotificationDraft[] {
  if (event.tenantId === null) return [];
  const tenantId = event.tenantId;
  const words = wording(event, audience);
  if (!words) return [];
  // A request goes to its reviewers: the one who asked is not among them.
  const toReviewers = reviewRequests.has(event.type);
  const named = toReviewers ? [] : namedRecipients(event).flatMap((id) => audience.member(id) ?? []);
  const byRole = audience.withRoles(tenantId, notifiedRoles(event));
  // The entry's owner is not their own reviewer.
  const excluded = new Set(toReviewers ? namedRecipients(event) : []);
  const recipients = new Map<string, Member>();
  for (const member of [...named, ...byRole]) {
    if (member.tenantId !== tenantId || member.status !== 'active' || excluded.has(member.id)) continue;
    // Reaching a budget concerns everyone, and a finished import is news to the one who started it (the job finished it, not they).
    if (
      event.type !== 'project.budget_reached' &&
      event.type !== 'import.completed' &&
      event.actorType === 'user' &&
      member.userId !== null &&
      member.userId === event.actorId
    )
      continue;
    recipients.set(member.id, member);
  }
  return [...recipients.values()].map((member) => ({ tenantId, tenantUserId: member.id, eventId: event.id, type: event.type, ...words }));
}
