import { defineModule } from '../../module.js';
import { createVacationService, type VacationService } from './vacation.service.js';
import './vacation.graphql.js';

const vacation = '/tenants/{tenantId}/users/{tenantUserId}/vacation/{year}';

/** Vacation allowances: days per year, carry-over, corrections, and what is taken, planned and left. */
export const vacationModule = defineModule({
  name: 'vacations',
  createService: createVacationService,
  tag: { name: 'Vacation', description: 'Vacation days per member and year: allowance, carry-over, corrections, taken and left' },
  routes: [
    {
      controller: 'vacation',
      action: 'findVacation',
      method: 'GET',
      path: vacation,
      field: 'Query.vacation',
      status: 200,
      summary: 'A member’s vacation account of one year (members: their own)',
    },
    {
      controller: 'vacation',
      action: 'setVacation',
      method: 'PUT',
      path: vacation,
      field: 'Mutation.setVacation',
      status: 200,
      summary: 'Set a member’s vacation days of one year (admins)',
    },
    {
      controller: 'vacation',
      action: 'correct',
      method: 'POST',
      path: `${vacation}/corrections`,
      field: 'Mutation.correctVacation',
      status: 201,
      summary: 'Correct a member’s vacation days, with a reason (admins)',
    },
  ],
});

declare module '../../services.js' {
  interface Services {
    vacations: VacationService;
  }
}
