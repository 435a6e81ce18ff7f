import { crud, steps } from '../../../rest/route.js';
import { defineModule } from '../../module.js';
import { absenceConflicts } from './absence.rules.js';
import { createAbsenceService, type AbsenceService } from './absence.service.js';
import './absence.graphql.js';

const absences = '/tenants/{tenantId}/absences';

/** The irregular rows: a POST to `absences/{absenceId}/<verb>`. */
const step = steps('absence', absences, 'absenceId');

/** Absences: time off requested, approved or rejected, and cancelled. */
export const absenceModule = defineModule({
  name: 'absences',
  createService: createAbsenceService,
  tag: { name: 'Absences', description: 'Time off over whole or half days, and its approval' },
  conflicts: absenceConflicts,
  routes: [
    {
      controller: 'absence',
      action: 'findBusy',
      method: 'GET',
      path: `${absences}/busy`,
      field: 'Query.busyBlocks',
      status: 200,
      summary: 'Who is off when: approved absences of everyone in a period, without their type',
    },
    ...crud(
      'absence',
      absences,
      'absenceId',
      { one: 'absence', many: 'absences' },
      {
        list: { field: 'Query.absences', summary: 'List absences, latest first (members: their own)' },
        create: { field: 'Mutation.createAbsence', summary: 'Request an absence (a type without approval is approved at once)' },
        get: 'Query.absence',
        update: { field: 'Mutation.updateAbsence', summary: 'Change a pending absence' },
        remove: { field: 'Mutation.deleteAbsence', summary: 'Delete a pending absence' },
      },
    ),
    step('approve', 'Mutation.approveAbsence', 'Approve a pending absence'),
    step('reject', 'Mutation.rejectAbsence', 'Reject a pending absence, with a reason'),
    step('cancel', 'Mutation.cancelAbsence', 'Cancel an absence (an approved one that has begun: admins only)'),
  ],
});

declare module '../../services.js' {
  interface Services {
    absences: AbsenceService;
  }
}
