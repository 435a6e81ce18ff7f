import { builder } from '../../../graphql/builder.js';
import { tenantOperation } from '../../../graphql/operations.js';
import { WeekMinutesObject } from '../../platform/tenant/week-minutes.graphql.js';
import { CreateWorkScheduleArgs, ListWorkSchedulesArgs, WorkScheduleArgs, type WorkScheduleQuery } from './work-schedule.service.js';
import { weekOf } from '../../../lib/week.js';

builder.prismaObject('WorkSchedule', {
  description: 'What a member is expected to work per weekday from `validFrom` on, until a later schedule takes over.',
  fields: (t) => ({
    id: t.exposeID('id'),
    tenantId: t.exposeID('tenantId'),
    tenantUserId: t.exposeID('tenantUserId', { description: 'Whose schedule it is' }),
    validFrom: t.expose('validFrom', { type: 'Date', description: 'The first day it is in effect' }),
    minutes: t.field({ type: WeekMinutesObject, select: { minutes: true }, resolve: (schedule) => weekOf(schedule.minutes) }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

const listSchedules = tenantOperation(ListWorkSchedulesArgs, ['read', 'WorkSchedule']);
const createSchedule = tenantOperation(CreateWorkScheduleArgs, ['create', 'WorkSchedule']);
const deleteSchedule = tenantOperation(WorkScheduleArgs, ['delete', 'WorkSchedule']);

builder.queryFields((t) => ({
  workSchedules: t.prismaField({
    type: ['WorkSchedule'],
    description: "A member's work schedules, the latest first (members: their own).",
    ...listSchedules.field(t),
    resolve: listSchedules.resolveQuery((input, access, query: WorkScheduleQuery, { services }) => services.workSchedules.list(access, input, query)),
  }),
}));

builder.mutationFields((t) => ({
  createWorkSchedule: t.prismaField({
    type: 'WorkSchedule',
    description: 'Gives a member a schedule from a date on; the schedules before it stay for the days before.',
    ...createSchedule.field(t),
    resolve: createSchedule.resolveQuery((input, access, query: WorkScheduleQuery, { services }) =>
      services.workSchedules.create(access, input.tenantUserId, input.input, query),
    ),
  }),
  deleteWorkSchedule: t.prismaField({
    type: 'WorkSchedule',
    description: 'Deletes a schedule that is not yet in effect. GraphQL returns the deleted schedule.',
    ...deleteSchedule.field(t),
    resolve: deleteSchedule.resolveQuery((input, access, query: WorkScheduleQuery, { services }) =>
      services.workSchedules.remove(access, input.tenantUserId, input.id, query),
    ),
  }),
}));
