import { defineModule } from '../../module.js';
import { createWorkScheduleService, workScheduleConflicts, type WorkScheduleService } from './work-schedule.service.js';
import './work-schedule.graphql.js';

const schedules = '/tenants/{tenantId}/users/{tenantUserId}/work-schedules';

/** Work schedules: what a member is expected to work per weekday, with their history. */
export const workScheduleModule = defineModule({
  name: 'workSchedules',
  createService: createWorkScheduleService,
  tag: { name: 'WorkSchedules', description: 'Expected minutes per weekday of each member, kept as history' },
  conflicts: workScheduleConflicts,
  routes: [
    {
      controller: 'workSchedule',
      action: 'findAll',
      method: 'GET',
      path: schedules,
      field: 'Query.workSchedules',
      status: 200,
      summary: "List a member's work schedules, the latest first (members: their own)",
    },
    {
      controller: 'workSchedule',
      action: 'create',
      method: 'POST',
      path: schedules,
      field: 'Mutation.createWorkSchedule',
      status: 201,
      summary: 'Give a member a work schedule from a date on (admins)',
    },
    {
      controller: 'workSchedule',
      action: 'remove',
      method: 'DELETE',
      path: `${schedules}/{workScheduleId}`,
      field: 'Mutation.deleteWorkSchedule',
      status: 204,
      summary: 'Delete a work schedule that is not yet in effect (admins)',
    },
  ],
});

declare module '../../services.js' {
  interface Services {
    workSchedules: WorkScheduleService;
  }
}
