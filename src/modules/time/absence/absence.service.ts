import type { z } from 'zod';
import type { TenantAccess } from '../../../auth/tenant-access.js';
import type { Db, Tx } from '../../../db/client.js';
import type { Reads } from '../../../db/replicas.js';
import { shapesResult } from '../../../db/query.js';
import { recordEvent, type EventType } from '../../../events/outbox.js';
import type { Absence, Prisma } from '../../../generated/prisma/client.js';
import type { Clock } from '../../../lib/clock.js';
import { forbidden, notFound, validationFailed } from '../../../lib/errors.js';
import { absenceTypeOf } from '../absence-type/absence-type.service.js';
import { settingsFor } from '../../platform/tenant/tenant.settings.js';
import { activeMember } from '../../platform/user/user.members.js';
import { dayColumn, dayText } from '../../../lib/day.js';
import { assertPeriod } from '../../../lib/period.js';
import {
  absenceOrder,
  maxAbsenceDays,
  type AbsenceFilter,
  type AbsencePageQuery,
  type AbsenceQuery,
  type BusyBlocksArgs,
  type CreateAbsenceDto,
  type ListAbsencesArgs,
  type UpdateAbsenceDto,
} from './absence.dto.js';
import { absenceConflicts, assertStep, employmentProblems, spanProblems, spansOverlap, type DaySpan } from './absence.rules.js';

/** A colleague's approved absence as members see it: the days, not why. */
export interface BusyBlock {
  tenantUserId: string;
  startDate: string;
  endDate: string;
  halfDay: DaySpan['halfDay'];
}

const spanOf = (absence: Pick<Absence, 'startDate' | 'endDate' | 'halfDay'>): DaySpan => ({
  startDate: dayText(absence.startDate),
  endDate: dayText(absence.endDate),
  halfDay: absence.halfDay,
});

/**
 * Absences: members request time off for themselves; managers (not on their
 * own) and admins approve or reject; a type without approval is approved at
 * once. Pending and approved absences of one member never overlap. An
 * approved absence that has begun is cancelled by admins only.
 */
export function createAbsenceService({ db, reads, clock }: { db: Db; reads: Reads; clock: Clock }) {
  function whereOf(access: TenantAccess, filter: AbsenceFilter | undefined): Prisma.AbsenceWhereInput {
    const visible = access.scope('read', 'Absence');
    if (!filter) return visible;
    return {
      AND: [
        ...(filter.tenantUserId ? [{ tenantUserId: filter.tenantUserId }] : []),
        ...(filter.status ? [{ status: filter.status }] : []),
        ...(filter.absenceTypeId ? [{ absenceTypeId: filter.absenceTypeId }] : []),
        ...(filter.from ? [{ endDate: { gte: dayColumn(filter.from) } }] : []),
        ...(filter.to ? [{ startDate: { lte: dayColumn(filter.to) } }] : []),
      ],
      ...visible,
    };
  }

  async function findAbsence(tx: Tx, access: TenantAccess, id: string): Promise<Absence> {
    const absence = await tx.absence.findFirst({ where: { id, ...access.scope('read', 'Absence') } });
    if (!absence) throw notFound('Absence', id);
    return absence;
  }

  /** The span's checks, and no overlap with the member's other pending or approved absences (serialised per member). */
  async function checkSpan(tx: Tx, access: TenantAccess, tenantUserId: string, span: DaySpan, except?: string): Promise<void> {
    const problems = spanProblems(span, maxAbsenceDays);
    if (problems.length > 0) throw validationFailed(problems);
    // Two requests at once would each see no overlap: the member's row is the lock they queue on.
    const [member] = await tx.$queryRaw<{ employmentStart: Date | null; employmentEnd: Date | null }[]>`
      SELECT "employmentStart", "employmentEnd" FROM tenant_users WHERE id = ${tenantUserId} FOR UPDATE`;
    const outside = employmentProblems(span, {
      start: member?.employmentStart ? dayText(member.employmentStart) : null,
      end: member?.employmentEnd ? dayText(member.employmentEnd) : null,
    });
    if (outside.length > 0) throw validationFailed(outside);
    const others = await tx.absence.findMany({
      where: {
        tenantUserId,
        status: { in: ['pending', 'approved'] },
        startDate: { lte: dayColumn(span.endDate) },
        endDate: { gte: dayColumn(span.startDate) },
        ...(except ? { NOT: { id: except } } : {}),
        ...access.tenantWide('Absence'),
      },
      select: { id: true, startDate: true, endDate: true, halfDay: true },
      orderBy: { startDate: 'asc' },
    });
    const other = others.find((candidate) => spansOverlap(span, spanOf(candidate)));
    if (other) {
      const days = spanOf(other);
      throw absenceConflicts.refuse('ABSENCE_OVERLAP', `It overlaps absence ${other.id} (${days.startDate} to ${days.endDate})`, {
        errors: [{ path: 'startDate', message: `overlaps absence ${other.id}` }],
      });
    }
  }

  async function typeFor(tx: Tx, access: TenantAccess, id: string) {
    const type = await absenceTypeOf(tx, access, id);
    if (!type) throw validationFailed([{ path: 'absenceTypeId', message: 'is not an absence type of this tenant' }]);
    if (type.archived) throw validationFailed([{ path: 'absenceTypeId', message: 'is archived' }]);
    return type;
  }

  /** Its events, with the days as the API shows them (`2027-03-25`, not a midnight instant). */
  async function record(tx: Tx, access: TenantAccess, types: EventType[], absence: Absence): Promise<void> {
    const data = { ...absence, ...spanOf(absence) };
    for (const type of types) await recordEvent(tx, access, { type, subjectId: absence.id, data });
  }

  const reread = (tx: Tx, id: string, query: AbsenceQuery, row: Absence) =>
    shapesResult(query) ? tx.absence.findUniqueOrThrow({ ...query, where: { id } }) : row;

  /** Approve or reject a pending absence (managers: not their own). */
  async function review(access: TenantAccess, id: string, step: 'approve' | 'reject', query: AbsenceQuery, reason?: string): Promise<Absence> {
    return db.$transaction(async (tx) => {
      const absence = await findAbsence(tx, access, id);
      access.assertMayChange('approve', 'Absence', absence, step);
      assertStep(absence.status, step);
      const updated = await tx.absence.update({
        where: { id },
        data: {
          status: step === 'approve' ? 'approved' : 'rejected',
          reviewedById: access.tenantUserId,
          reviewedAt: clock.now(),
          rejectionReason: step === 'reject' ? (reason ?? null) : null,
        },
      });
      await record(tx, access, [step === 'approve' ? 'absence.approved' : 'absence.rejected'], updated);
      return reread(tx, id, query, updated);
    });
  }

  return {
    /** The absences the caller may read (members: their own), latest first. */
    async list(access: TenantAccess, { limit, offset, ...filter }: z.output<typeof ListAbsencesArgs>, query: AbsenceQuery = {}): Promise<Absence[]> {
      return reads.run(access, ({ db }) => db.absence.findMany({ ...query, where: whereOf(access, filter), orderBy: absenceOrder, take: limit, skip: offset }));
    },

    /** A page of absences for a Relay connection. */
    async page(access: TenantAccess, filter: AbsenceFilter | undefined, query: AbsencePageQuery): Promise<Absence[]> {
      return reads.run(access, ({ db }) => db.absence.findMany({ ...query, where: whereOf(access, filter), orderBy: absenceOrder }));
    },

    /** One absence the caller may read (another member's is a 404 to members). */
    async get(access: TenantAccess, id: string, query: AbsenceQuery = {}): Promise<Absence> {
      const absence = await db.absence.findFirst({ ...query, where: { id, ...access.scope('read', 'Absence') } });
      if (!absence) throw notFound('Absence', id);
      return absence;
    },

    /** Who is off when: every member's approved absences in a period, as days without their type or note. */
    async busyBlocks(access: TenantAccess, input: z.output<typeof BusyBlocksArgs>): Promise<BusyBlock[]> {
      access.assert('read', 'Absence');
      assertPeriod(input.from, input.to);
      const rows = await db.absence.findMany({
        where: { status: 'approved', startDate: { lte: dayColumn(input.to) }, endDate: { gte: dayColumn(input.from) }, ...access.tenantWide('Absence') },
        select: { tenantUserId: true, startDate: true, endDate: true, halfDay: true },
        orderBy: [{ startDate: 'asc' }, { id: 'asc' }],
      });
      return rows.map((row) => ({ tenantUserId: row.tenantUserId, ...spanOf(row) }));
    },

    /**
     * Requests an absence (for the caller; managers, admins and API keys for
     * anyone). Records `absence.requested`, and `absence.approved` when its
     * type needs no approval.
     */
    async create(access: TenantAccess, data: z.output<typeof CreateAbsenceDto>, query: AbsenceQuery = {}): Promise<Absence> {
      access.assert('create', 'Absence');
      const owner = data.tenantUserId ?? access.tenantUserId;
      if (owner === null) throw validationFailed([{ path: 'tenantUserId', message: 'is required: an API key has no absences of its own' }]);
      access.assertMayChange('create', 'Absence', { tenantUserId: owner });
      const span: DaySpan = { startDate: data.startDate, endDate: data.endDate, halfDay: data.halfDay ?? null };
      return db.$transaction(async (tx) => {
        await activeMember(tx, access, owner, 'tenantUserId');
        const type = await typeFor(tx, access, data.absenceTypeId);
        await checkSpan(tx, access, owner, span);
        const approvedAtOnce = !type.needsApproval;
        const absence = await tx.absence.create({
          data: access.stamp({
            tenantUserId: owner,
            absenceTypeId: type.id,
            startDate: dayColumn(span.startDate),
            endDate: dayColumn(span.endDate),
            halfDay: span.halfDay,
            note: data.note ?? null,
            status: approvedAtOnce ? 'approved' : 'pending',
            reviewedAt: approvedAtOnce ? clock.now() : null,
          }),
        });
        await record(tx, access, approvedAtOnce ? ['absence.requested', 'absence.approved'] : ['absence.requested'], absence);
        return reread(tx, absence.id, query, absence);
      });
    },

    /** Changes a pending absence; records `absence.updated`. */
    async update(access: TenantAccess, id: string, data: z.output<typeof UpdateAbsenceDto>, query: AbsenceQuery = {}): Promise<Absence> {
      return db.$transaction(async (tx) => {
        const existing = await findAbsence(tx, access, id);
        access.assertMayChange('update', 'Absence', existing);
        assertStep(existing.status, 'change');
        const current = spanOf(existing);
        const span: DaySpan = {
          startDate: data.startDate ?? current.startDate,
          endDate: data.endDate ?? current.endDate,
          halfDay: data.halfDay === undefined ? current.halfDay : data.halfDay,
        };
        if (data.absenceTypeId !== undefined) await typeFor(tx, access, data.absenceTypeId);
        await checkSpan(tx, access, existing.tenantUserId, span, id);
        const updated = await tx.absence.update({
          where: { id },
          data: {
            ...(data.absenceTypeId === undefined ? {} : { absenceTypeId: data.absenceTypeId }),
            ...(data.note === undefined ? {} : { note: data.note }),
            startDate: dayColumn(span.startDate),
            endDate: dayColumn(span.endDate),
            halfDay: span.halfDay,
          },
        });
        await record(tx, access, ['absence.updated'], updated);
        return reread(tx, id, query, updated);
      });
    },

    /** Deletes a pending absence; records `absence.deleted`. */
    async remove(access: TenantAccess, id: string, query: AbsenceQuery = {}): Promise<Absence> {
      return db.$transaction(async (tx) => {
        const existing = await findAbsence(tx, access, id);
        access.assertMayChange('delete', 'Absence', existing);
        assertStep(existing.status, 'change');
        const deleted = await tx.absence.delete({ ...query, where: { id } });
        await record(tx, access, ['absence.deleted'], existing);
        return deleted;
      });
    },

    /** pending -> approved; records `absence.approved`. A cancelled absence is 409. */
    approve: (access: TenantAccess, id: string, query: AbsenceQuery = {}) => review(access, id, 'approve', query),
    /** pending -> rejected with a reason; records `absence.rejected`. */
    reject: (access: TenantAccess, id: string, reason: string, query: AbsenceQuery = {}) => review(access, id, 'reject', query, reason),

    /**
     * pending or approved -> cancelled; records `absence.cancelled`. Members
     * cancel their own pending absences; managers and admins approved ones
     * that have not begun; only admins one that has.
     */
    async cancel(access: TenantAccess, id: string, query: AbsenceQuery = {}): Promise<Absence> {
      return db.$transaction(async (tx) => {
        const absence = await findAbsence(tx, access, id);
        access.assertMayChange('cancel', 'Absence', absence);
        assertStep(absence.status, 'cancel');
        if (absence.status === 'approved') {
          const today = clock.today((await settingsFor(tx, access)).timezone);
          if (dayText(absence.startDate) <= today) {
            if (!access.canAny('reopen', 'Absence')) throw forbidden('The absence is approved and has begun; only an admin may cancel it');
          } else if (!access.canAny('cancel', 'Absence')) {
            throw forbidden('The absence is approved; ask a manager or an admin to cancel it');
          }
        }
        const updated = await tx.absence.update({ where: { id }, data: { status: 'cancelled', cancelledAt: clock.now() } });
        await record(tx, access, ['absence.cancelled'], updated);
        return reread(tx, id, query, updated);
      });
    },
  };
}

export type AbsenceService = ReturnType<typeof createAbsenceService>;
