import { crud } from '../../../rest/route.js';
import { defineModule } from '../../module.js';
import { absenceTypeConflicts, createAbsenceTypeService, type AbsenceTypeService } from './absence-type.service.js';
import './absence-type.graphql.js';

/** Absence types: vacation, sickness, overtime compensation, unpaid and the tenant's own, and how their days count. */
export const absenceTypeModule = defineModule({
  name: 'absenceTypes',
  createService: createAbsenceTypeService,
  tag: { name: 'AbsenceTypes', description: 'Kinds of absence and how their days count' },
  conflicts: absenceTypeConflicts,
  routes: crud(
    'absenceType',
    '/tenants/{tenantId}/absence-types',
    'absenceTypeId',
    { one: 'absence type', many: 'absence types' },
    {
      list: { field: 'Query.absenceTypes', summary: 'List the tenant’s absence types, oldest first' },
      create: 'Mutation.createAbsenceType',
      get: 'Query.absenceType',
      update: 'Mutation.updateAbsenceType',
      remove: 'Mutation.deleteAbsenceType',
    },
  ),
});

declare module '../../services.js' {
  interface Services {
    absenceTypes: AbsenceTypeService;
  }
}
