import type { z } from 'zod';
import type { TenantAccess } from '../../../auth/tenant-access.js';
import type { Db, Tx } from '../../../db/client.js';
import type { Reads } from '../../../db/replicas.js';
import type { BesideWrites } from '../../beside-writes.js';
import { shapesResult } from '../../../db/query.js';
import { recordEvent, type EventType } from '../../../events/outbox.js';
import type { Entry, Prisma } from '../../../generated/prisma/client.js';
import type { Clock } from '../../../lib/clock.js';
import { notFound, validationFailed } from '../../../lib/errors.js';
import { startOfDay } from '../../../lib/time.js';
import { projectForWork } from '../project/project.service.js';
import { taskForWork } from '../task/task.service.js';
import { settingsFor } from '../../platform/tenant/tenant.settings.js';
import { activeMember } from '../../platform/user/user.members.js';
import { vehicleForWork } from '../vehicle/vehicle.service.js';
import { recordBudgetCrossings } from '../project/project.budget.js';
import {
  entryOrder,
  type CreateEntryDto,
  type EntryFilter,
  type EntryPageQuery,
  type EntryQuery,
  type ListEntriesArgs,
  type UpdateEntryDto,
} from './entry.dto.js';
import { ratesFor } from './entry.rates.js';
import { entryConflicts, isLocked, statusAfterEdit, transition, type EntryTransition } from './entry.rules.js';
import { billableOf, entryValues, spanProblem } from './entry.values.js';
import { isDay, nextDay } from '../../../lib/day.js';

/** A running timer may have started at most this long in the future (clocks differ a little). */
const clockSkewMs = 60_000;

const reviewEvents = { submit: 'entry.submitted', approve: 'entry.approved', reject: 'entry.rejected', reopen: 'entry.reopened' } as const;

/**
 * Time entries: timers, manual entries, approval. Members work on their own
 * entries (another member's is a 404); managers and admins see and change
 * all, and review them. Tenant settings decide rounding, overlap, the locked
 * period, the time zone of date filters, and whether approval is required.
 */
export function createEntryService({ db, reads, clock, besideWrites }: { db: Db; reads: Reads; clock: Clock; besideWrites: BesideWrites }) {
  /** The instant a `from`/`to` bound stands for; `to` as a date means the end of that day. */
  function bound(value: string, timeZone: string, end: boolean): Date {
    if (!isDay(value)) return new Date(value);
    return startOfDay(end ? nextDay(value) : value, timeZone);
  }

  async function whereOf(access: TenantAccess, filter: EntryFilter | undefined): Promise<Prisma.EntryWhereInput> {
    const visible = access.scope('read', 'Entry');
    if (!filter) return visible;
    const needsZone = [filter.from, filter.to].some((value) => value !== undefined && isDay(value));
    const timeZone = needsZone ? (await settingsFor(db, access)).timezone : 'UTC';
    const startedAt = {
      ...(filter.from ? { gte: bound(filter.from, timeZone, false) } : {}),
      ...(filter.to ? { lt: bound(filter.to, timeZone, true) } : {}),
    };
    return {
      AND: [
        ...(filter.tenantUserId ? [{ tenantUserId: filter.tenantUserId }] : []),
        ...(filter.projectId ? [{ projectId: filter.projectId }] : []),
        ...(filter.taskId ? [{ taskId: filter.taskId }] : []),
        ...(filter.status ? [{ status: filter.status }] : []),
        ...(filter.billable === undefined ? [] : [{ billable: filter.billable }]),
        ...(filter.from || filter.to ? [{ startedAt }] : []),
      ],
      ...visible,
    };
  }

  /**
   * An entry the caller may read, or 404 (another member's entry included);
   * with `change`, one they may also update or delete (403 otherwise).
   */
  async function findEntry(tx: Tx | Db, access: TenantAccess, id: string, change?: 'update' | 'delete'): Promise<Entry> {
    const entry = await tx.entry.findFirst({ where: { id, ...access.scope('read', 'Entry') } });
    if (!entry) throw notFound('Entry', id);
    if (change) access.assertMayChange(change, 'Entry', entry);
    return entry;
  }

  /**
   * An entry about to change (edit, delete, stop, review), row-locked for the
   * rest of `tx`: one on a live client invoice is read-only (409
   * ENTRY_INVOICED). The lock orders the change with an invoice claiming the
   * entry at the same time: whichever comes second sees the other's result.
   */
  async function findChangeable(tx: Tx, access: TenantAccess, id: string, change?: 'update' | 'delete'): Promise<Entry> {
    const entry = await findEntry(tx, access, id, change);
    const [locked] = await tx.$queryRaw<{ clientInvoiceId: string | null }[]>`SELECT "clientInvoiceId" FROM entries WHERE id = ${id} FOR UPDATE`;
    if (locked?.clientInvoiceId) {
      throw entryConflicts.refuse(
        'ENTRY_INVOICED',
        `The entry is billed on client invoice ${locked.clientInvoiceId}; delete the draft or void the invoice to change it`,
      );
    }
    return entry;
  }

  function assertUnlocked(startedAt: Date, settings: { lockedUntil: string | null; timezone: string }): void {
    if (isLocked(startedAt, settings.lockedUntil, settings.timezone)) {
      throw entryConflicts.refuse('ENTRY_LOCKED', `Entries up to ${settings.lockedUntil} are locked; an admin moves the lock to change them`);
    }
  }

  /** The span rules (entry.values.ts's, a zero-length entry refused among them); a running timer may not start in the future. */
  function checkSpan(startedAt: Date, endedAt: Date | null, breakMinutesValue: number): void {
    if (endedAt === null) {
      if (startedAt.getTime() > clock.now().getTime() + clockSkewMs) {
        throw validationFailed([{ path: 'startedAt', message: 'must not be in the future for a running timer' }]);
      }
      return;
    }
    const problem = spanProblem(startedAt, endedAt, breakMinutesValue);
    if (problem) throw validationFailed([{ path: problem.path, message: problem.message }]);
  }

  /** With `preventOverlap`, no two entries of one member may overlap (a running timer runs until now and on). */
  async function assertNoOverlap(tx: Tx, access: TenantAccess, entry: { tenantUserId: string; startedAt: Date; endedAt: Date | null; id?: string }) {
    const other = await tx.entry.findFirst({
      where: {
        tenantUserId: entry.tenantUserId,
        ...(entry.id ? { NOT: { id: entry.id } } : {}),
        ...(entry.endedAt ? { startedAt: { lt: entry.endedAt } } : {}),
        OR: [{ endedAt: null }, { endedAt: { gt: entry.startedAt } }],
        ...access.tenantWide('Entry'),
      },
      select: { id: true, startedAt: true, endedAt: true },
      orderBy: { startedAt: 'asc' },
    });
    if (other) {
      const span = `${other.startedAt.toISOString()} to ${other.endedAt ? other.endedAt.toISOString() : 'now (running)'}`;
      throw entryConflicts.refuse('ENTRY_OVERLAPS', `It overlaps entry ${other.id} (${span}); this tenant does not allow overlapping entries`, {
        errors: [{ path: 'startedAt', message: `overlaps entry ${other.id}` }],
      });
    }
  }

  /**
   * Checks the project, task and vehicle an entry is given (those it keeps
   * are not checked again: an archived project keeps its entries), and that
   * its task belongs to its project. Returns the project, for its rate and
   * billability.
   */
  async function references(
    tx: Tx,
    access: TenantAccess,
    given: { projectId?: string | null | undefined; taskId?: string | null | undefined; vehicleId?: string | null | undefined },
    kept: { projectId: string | null; taskId: string | null } = { projectId: null, taskId: null },
  ) {
    const project = given.projectId ? await projectForWork(tx, access, given.projectId, 'projectId') : null;
    const projectId = given.projectId === undefined ? kept.projectId : given.projectId;
    const taskId = given.taskId === undefined ? kept.taskId : given.taskId;
    if (taskId && (given.taskId !== undefined || given.projectId !== undefined)) {
      const task = await taskForWork(tx, access, taskId, 'taskId');
      if (projectId && task.projectId && task.projectId !== projectId) {
        throw validationFailed([{ path: 'taskId', message: 'belongs to another project' }]);
      }
    }
    if (given.vehicleId) await vehicleForWork(tx, access, given.vehicleId, 'vehicleId');
    return project;
  }

  async function record(tx: Tx, access: TenantAccess, types: EventType[], entry: Entry): Promise<void> {
    for (const type of types) await recordEvent(tx, access, { type, subjectId: entry.id, data: entry });
  }

  const reread = (tx: Tx, id: string, query: EntryQuery, row: Entry) => (shapesResult(query) ? tx.entry.findUniqueOrThrow({ ...query, where: { id } }) : row);

  /** One review step (submit, approve, reject, reopen) on an entry, with its checks and event. */
  async function review(access: TenantAccess, id: string, action: EntryTransition, query: EntryQuery, reason?: string): Promise<Entry> {
    return db.$transaction(async (tx) => {
      const entry = await findChangeable(tx, access, id);
      const settings = await settingsFor(tx, access);
      // Submitting is an update of one's own entry; approving and rejecting are approvals (managers: others' entries only).
      if (action === 'submit') access.assertMayChange('update', 'Entry', entry, action);
      if (action === 'approve' || action === 'reject') access.assertMayChange('approve', 'Entry', entry, action);
      if (action === 'reopen') access.assertMayChange('reopen', 'Entry', entry, action);
      if (entry.endedAt === null && action === 'submit') throw entryConflicts.refuse('ENTRY_RUNNING', 'The timer is still running; stop it first');
      let status = transition(entry.status, action);
      assertUnlocked(entry.startedAt, settings);
      const now = clock.now();
      const events: EventType[] = [reviewEvents[action]];
      let reviewed: Prisma.EntryUncheckedUpdateInput = {};
      if (action === 'submit') {
        reviewed = { submittedAt: now, reviewedById: null, reviewedAt: null, rejectionReason: null };
        if (!settings.approvalRequired) {
          // Without required approval, submitting makes the entry final at once.
          status = 'approved';
          reviewed = { ...reviewed, reviewedAt: now };
          events.push('entry.approved');
        }
      } else if (action === 'approve' || action === 'reject') {
        reviewed = { reviewedById: access.tenantUserId, reviewedAt: now, rejectionReason: action === 'reject' ? (reason ?? null) : null };
      } else {
        reviewed = { reviewedById: null, reviewedAt: null, submittedAt: null };
      }
      const updated = await tx.entry.update({ where: { id }, data: { status, ...reviewed } });
      await record(tx, access, events, updated);
      return reread(tx, id, query, updated);
    });
  }

  return {
    /** The entries the caller may read, by when they started, newest first. */
    async list(access: TenantAccess, { limit, offset, ...filter }: z.output<typeof ListEntriesArgs>, query: EntryQuery = {}): Promise<Entry[]> {
      const where = await whereOf(access, filter);
      return reads.run(access, ({ db }) => db.entry.findMany({ ...query, where, orderBy: entryOrder, take: limit, skip: offset }));
    },

    /** A page of entries for a Relay connection. */
    async page(access: TenantAccess, filter: EntryFilter | undefined, query: EntryPageQuery): Promise<Entry[]> {
      const where = await whereOf(access, filter);
      return reads.run(access, ({ db }) => db.entry.findMany({ ...query, where, orderBy: entryOrder }));
    },

    /** How many entries match, for a connection's totalCount. */
    async count(access: TenantAccess, filter: EntryFilter | undefined): Promise<number> {
      const where = await whereOf(access, filter);
      return reads.run(access, ({ db }) => db.entry.count({ where }));
    },

    /** One entry the caller may read (another member's is a 404). */
    async get(access: TenantAccess, id: string, query: EntryQuery = {}): Promise<Entry> {
      const entry = await db.entry.findFirst({ ...query, where: { id, ...access.scope('read', 'Entry') } });
      if (!entry) throw notFound('Entry', id);
      return entry;
    },

    /**
     * Creates a finished entry, or starts a timer (no `endedAt`; one running
     * per member). Records `entry.created`, and `timer.started` for a timer.
     */
    async create(access: TenantAccess, data: z.output<typeof CreateEntryDto>, query: EntryQuery = {}): Promise<Entry> {
      access.assert('create', 'Entry');
      const owner = data.tenantUserId ?? access.tenantUserId;
      if (owner === null) {
        throw validationFailed([{ path: 'tenantUserId', message: 'is required: an API key has no time of its own' }]);
      }
      access.assertMayChange('create', 'Entry', { tenantUserId: owner });
      const startedAt = new Date(data.startedAt);
      const endedAt = data.endedAt === undefined ? null : new Date(data.endedAt);
      checkSpan(startedAt, endedAt, data.breakMinutes);
      // What other modules read of the member's day for the answer starts now, beside the transaction.
      besideWrites.entryWrite({ access, tenantUserId: owner, startedAt, endedAt });
      return db.$transaction(async (tx) => {
        const member = await activeMember(tx, access, owner, 'tenantUserId');
        const settings = await settingsFor(tx, access);
        assertUnlocked(startedAt, settings);
        const project = await references(tx, access, data);
        if (endedAt === null) {
          const running = await tx.entry.findFirst({ where: { tenantUserId: owner, endedAt: null, ...access.tenantWide('Entry') }, select: { id: true } });
          if (running)
            throw entryConflicts.refuse('TIMER_RUNNING', `A timer is already running (entry ${running.id}); stop it first`, {
              errors: [{ path: 'endedAt', message: 'is required while another timer runs' }],
            });
        }
        if (settings.preventOverlap) await assertNoOverlap(tx, access, { tenantUserId: owner, startedAt, endedAt });
        const { tenantUserId: _owner, ...fields } = data;
        const rates = await ratesFor(tx, access, { tenantUserId: member.id, projectId: data.projectId ?? null }, settings);
        const billable = billableOf(data.billable, project);
        const values = entryValues({ startedAt, endedAt, breakMinutes: data.breakMinutes, roundingMinutes: settings.roundingMinutes, billable, rates });
        const entry = await tx.entry.create({
          data: access.stamp({ ...fields, tenantUserId: owner, startedAt, endedAt, billable, ...values }),
        });
        await record(tx, access, endedAt ? ['entry.created'] : ['entry.created', 'timer.started'], entry);
        await recordBudgetCrossings(tx, access, settings.timezone, [entry]);
        return reread(tx, entry.id, query, entry);
      });
    },

    /**
     * Changes an entry. Approved and locked entries are read-only (409);
     * members change their own draft or rejected entries; editing a rejected
     * entry makes it a draft. Records `entry.updated` (and `timer.stopped`
     * when it sets the end of a running timer).
     */
    async update(access: TenantAccess, id: string, data: z.output<typeof UpdateEntryDto>, query: EntryQuery = {}): Promise<Entry> {
      return db.$transaction(async (tx) => {
        const existing = await findChangeable(tx, access, id, 'update');
        const settings = await settingsFor(tx, access);
        const status = statusAfterEdit(existing.status, access.canAny('update', 'Entry'));
        assertUnlocked(existing.startedAt, settings);
        const startedAt = data.startedAt === undefined ? existing.startedAt : new Date(data.startedAt);
        const endedAt = data.endedAt === undefined ? existing.endedAt : new Date(data.endedAt);
        const breakValue = data.breakMinutes ?? existing.breakMinutes;
        if (data.startedAt !== undefined || data.endedAt !== undefined || data.breakMinutes !== undefined) checkSpan(startedAt, endedAt, breakValue);
        assertUnlocked(startedAt, settings);
        await references(tx, access, data, existing);
        if (settings.preventOverlap) await assertNoOverlap(tx, access, { id, tenantUserId: existing.tenantUserId, startedAt, endedAt });
        const projectId = data.projectId === undefined ? existing.projectId : data.projectId;
        // Rates are copied again only while the entry is the member's to change (draft or rejected) and what they depend on moves.
        const moved = [data.projectId, data.taskId, data.startedAt, data.endedAt, data.breakMinutes].some((value) => value !== undefined);
        const rates =
          moved && (existing.status === 'draft' || existing.status === 'rejected')
            ? await ratesFor(tx, access, { tenantUserId: existing.tenantUserId, projectId }, settings)
            : { hourlyRate: existing.hourlyRate, costRate: existing.costRate, currency: existing.currency };
        const billable = data.billable ?? existing.billable;
        const values = entryValues({ startedAt, endedAt, breakMinutes: breakValue, roundingMinutes: settings.roundingMinutes, billable, rates });
        const updated = await tx.entry.update({ where: { id }, data: { ...data, startedAt, endedAt, status, ...values } });
        const stopped = existing.endedAt === null && endedAt !== null;
        await record(tx, access, stopped ? ['entry.updated', 'timer.stopped'] : ['entry.updated'], updated);
        await recordBudgetCrossings(tx, access, settings.timezone, [updated]);
        return reread(tx, id, query, updated);
      });
    },

    /** Deletes an entry that is not approved or locked (members: their own draft or rejected ones); records `entry.deleted`. */
    async remove(access: TenantAccess, id: string, query: EntryQuery = {}): Promise<Entry> {
      return db.$transaction(async (tx) => {
        const existing = await findChangeable(tx, access, id, 'delete');
        statusAfterEdit(existing.status, access.canAny('delete', 'Entry'));
        assertUnlocked(existing.startedAt, await settingsFor(tx, access));
        const deleted = await tx.entry.delete({ ...query, where: { id } });
        await record(tx, access, ['entry.deleted'], existing);
        return deleted;
      });
    },

    /** Stops a running timer now; records `timer.stopped`. */
    async stop(access: TenantAccess, id: string, query: EntryQuery = {}): Promise<Entry> {
      return db.$transaction(async (tx) => {
        const existing = await findChangeable(tx, access, id, 'update');
        if (existing.endedAt !== null) throw entryConflicts.refuse('NOT_RUNNING', 'The entry is not a running timer');
        const settings = await settingsFor(tx, access);
        const endedAt = clock.now();
        if (endedAt.getTime() <= existing.startedAt.getTime()) {
          throw entryConflicts.refuse('STARTS_IN_FUTURE', 'The timer starts in the future; change its start, or delete it');
        }
        // Unlike an entry given with its times, a timer stopped in its first half minute is kept (0 minutes): stopping is
        // the member's say that it is over, and refusing it would leave it running; deleting it is theirs to choose.
        const rates =
          existing.status === 'draft' || existing.status === 'rejected'
            ? await ratesFor(tx, access, { tenantUserId: existing.tenantUserId, projectId: existing.projectId }, settings)
            : { hourlyRate: existing.hourlyRate, costRate: existing.costRate, currency: existing.currency };
        const values = entryValues({
          startedAt: existing.startedAt,
          endedAt,
          breakMinutes: existing.breakMinutes,
          roundingMinutes: settings.roundingMinutes,
          billable: existing.billable,
          rates,
        });
        const updated = await tx.entry.update({ where: { id }, data: { endedAt, ...values } });
        await record(tx, access, ['timer.stopped'], updated);
        await recordBudgetCrossings(tx, access, settings.timezone, [updated]);
        return reread(tx, id, query, updated);
      });
    },

    /** draft -> submitted (approved at once when the tenant requires no approval); records `entry.submitted`. */
    submit: (access: TenantAccess, id: string, query: EntryQuery = {}) => review(access, id, 'submit', query),
    /** submitted -> approved, by a reviewer (a manager not on their own entry); records `entry.approved`. */
    approve: (access: TenantAccess, id: string, query: EntryQuery = {}) => review(access, id, 'approve', query),
    /** submitted -> rejected with a reason; records `entry.rejected`. */
    reject: (access: TenantAccess, id: string, reason: string, query: EntryQuery = {}) => review(access, id, 'reject', query, reason),
    /** approved -> draft, by an owner or admin; records `entry.reopened`. */
    reopen: (access: TenantAccess, id: string, query: EntryQuery = {}) => review(access, id, 'reopen', query),
  };
}

export type EntryService = ReturnType<typeof createEntryService>;
