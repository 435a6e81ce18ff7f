import { defineModule } from '../../module.js';
import { createWorkingTimeService, type WorkingTimeService } from './working-time.service.js';
import { createWorkingTimeWork } from './working-time.work.js';
import './working-time.graphql.js';

/** Working time under the law: ArbZG and EU rules checked on every day worked. */
export const workingTimeModule = defineModule({
  name: 'workingTime',
  createService: createWorkingTimeService,
  tag: { name: 'WorkingTime', description: 'Working days checked against working-time law (ArbZG, EU 2003/88/EC)' },
  routes: [
    {
      controller: 'workingTime',
      action: 'findOne',
      method: 'GET',
      path: '/tenants/{tenantId}/users/{tenantUserId}/working-time',
      field: 'Query.workingTime',
      status: 200,
      summary: 'A member’s working days and violations of working-time law (members: their own)',
    },
    {
      controller: 'workingTime',
      action: 'findViolations',
      method: 'GET',
      path: '/tenants/{tenantId}/working-time/violations',
      field: 'Query.workingTimeViolations',
      status: 200,
      summary: 'The team’s violations of working-time law, filtered by member, rule and period (managers and admins)',
    },
  ],
  createWork: createWorkingTimeWork,
  reactsToEvents: (work, tx, events) => work.announce(tx, events),
});

declare module '../../services.js' {
  interface Services {
    workingTime: WorkingTimeService;
  }
}
