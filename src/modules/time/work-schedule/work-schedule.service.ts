import type { z } from 'zod';
import type { TenantAccess } from '../../../auth/tenant-access.js';
import type { Db } from '../../../db/client.js';
import type { Reads } from '../../../db/replicas.js';
import { shapesResult, type PrismaQuery } from '../../../db/query.js';
import { recordEvent } from '../../../events/outbox.js';
import type { Prisma, WorkSchedule } from '../../../generated/prisma/client.js';
import type { Clock } from '../../../lib/clock.js';
import { args, dto, fields, pagination } from '../../../lib/dto.js';
import { conflictReasons, notFound } from '../../../lib/errors.js';
import { dayColumn, dayText } from '../../../lib/day.js';
import { settingsFor } from '../../platform/tenant/tenant.settings.js';
import { memberOf } from '../../platform/user/user.members.js';
import { columnOf, WeekMinutesDto, weekOf } from '../../../lib/week.js';

/** Why a write to a work schedule is refused with 409. */
export const workScheduleConflicts = conflictReasons('WorkSchedule', {
  SCHEDULE_DATE_TAKEN: { code: 'CONFLICT', description: 'The member already has a schedule valid from this date; delete it first' },
  SCHEDULE_IN_EFFECT: { code: 'INVALID_STATE', description: 'The schedule is in effect already; the past is not rewritten (add a new one instead)' },
});

export const CreateWorkScheduleDto = dto('CreateWorkScheduleDto', 'What a member is expected to work per weekday from a date on.', {
  validFrom: fields.date('The first day it is in effect (a day in the tenant’s time zone)'),
  minutes: WeekMinutesDto,
});

const tenantId = fields.id('Tenant id');
const tenantUserId = fields.id('The member (tenantUserId)');
export const ListWorkSchedulesArgs = args({ tenantId, tenantUserId, ...pagination });
export const CreateWorkScheduleArgs = args({ tenantId, tenantUserId, input: CreateWorkScheduleDto });
export const WorkScheduleArgs = args({ tenantId, tenantUserId, id: fields.id('Work schedule id') });

export type WorkScheduleQuery = PrismaQuery<Prisma.WorkScheduleInclude, Prisma.WorkScheduleSelect>;

/** A schedule as the API shows it, for its events: the day, and the week by name. */
const eventData = (schedule: WorkSchedule) => ({ ...schedule, validFrom: dayText(schedule.validFrom), minutes: weekOf(schedule.minutes) });

/**
 * Work schedules: a member's expected minutes per weekday, valid from a day
 * on. The history is kept: a new contract is a new schedule, and only a
 * schedule not yet in effect may be deleted. Members read their own, managers
 * everyone's, admins manage them.
 */
export function createWorkScheduleService({ db, reads, clock }: { db: Db; reads: Reads; clock: Clock }) {
  return {
    /** A member's schedules, the latest `validFrom` first (members: their own; another's is 403). */
    async list(access: TenantAccess, input: z.output<typeof ListWorkSchedulesArgs>, query: WorkScheduleQuery = {}): Promise<WorkSchedule[]> {
      await memberOf(db, access, input.tenantUserId);
      access.assertMayChange('read', 'WorkSchedule', { tenantUserId: input.tenantUserId });
      return reads.run(access, ({ db }) =>
        db.workSchedule.findMany({
          ...query,
          where: { tenantUserId: input.tenantUserId, ...access.scope('read', 'WorkSchedule') },
          orderBy: [{ validFrom: 'desc' }, { id: 'desc' }],
          take: input.limit,
          skip: input.offset,
        }),
      );
    },

    /** Adds a schedule in effect from `validFrom`; records `work_schedule.created`. */
    async create(access: TenantAccess, owner: string, input: z.output<typeof CreateWorkScheduleDto>, query: WorkScheduleQuery = {}): Promise<WorkSchedule> {
      access.assert('create', 'WorkSchedule');
      return db.$transaction(async (tx) => {
        await memberOf(tx, access, owner);
        const validFrom = dayColumn(input.validFrom);
        const taken = await tx.workSchedule.findFirst({
          where: { tenantUserId: owner, validFrom, ...access.tenantWide('WorkSchedule') },
          select: { id: true },
        });
        if (taken) {
          throw workScheduleConflicts.refuse('SCHEDULE_DATE_TAKEN', `Schedule ${taken.id} is valid from ${input.validFrom} already`, {
            errors: [{ path: 'validFrom', message: 'has a schedule already' }],
          });
        }
        const schedule = await tx.workSchedule.create({ data: access.stamp({ tenantUserId: owner, validFrom, minutes: columnOf(input.minutes) }) });
        await recordEvent(tx, access, { type: 'work_schedule.created', subjectId: schedule.id, data: eventData(schedule) });
        return shapesResult(query) ? tx.workSchedule.findUniqueOrThrow({ ...query, where: { id: schedule.id } }) : schedule;
      });
    },

    /** Deletes a schedule that is not yet in effect; records `work_schedule.deleted`. */
    async remove(access: TenantAccess, owner: string, id: string, query: WorkScheduleQuery = {}): Promise<WorkSchedule> {
      return db.$transaction(async (tx) => {
        const schedule = await tx.workSchedule.findFirst({ where: { id, tenantUserId: owner, ...access.scope('delete', 'WorkSchedule') } });
        if (!schedule) throw notFound('WorkSchedule', id);
        const today = clock.today((await settingsFor(tx, access)).timezone);
        if (dayText(schedule.validFrom) <= today) {
          throw workScheduleConflicts.refuse('SCHEDULE_IN_EFFECT', `The schedule is in effect since ${dayText(schedule.validFrom)}; add a new one instead`);
        }
        const deleted = await tx.workSchedule.delete({ ...query, where: { id } });
        await recordEvent(tx, access, { type: 'work_schedule.deleted', subjectId: id, data: eventData(schedule) });
        return deleted;
      });
    },
  };
}

export type WorkScheduleService = ReturnType<typeof createWorkScheduleService>;
