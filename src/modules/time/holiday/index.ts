import { crud } from '../../../rest/route.js';
import { defineModule } from '../../module.js';
import { createHolidayService, holidayConflicts, type HolidayService } from './holiday.service.js';
import './holiday.graphql.js';

/** Holidays: the public ones of a region (date-holidays) and the tenant's own, whole or half days. */
export const holidayModule = defineModule({
  name: 'holidays',
  createService: createHolidayService,
  tag: { name: 'Holidays', description: 'Public holidays of the tenant’s region and the tenant’s own days off' },
  conflicts: holidayConflicts,
  routes: crud(
    'holiday',
    '/tenants/{tenantId}/holidays',
    'holidayId',
    { one: 'holiday', many: 'holidays' },
    {
      list: { field: 'Query.holidays', summary: 'List the holidays in effect between two days, by date (public and the tenant’s own)' },
      create: { field: 'Mutation.createHoliday', summary: 'Add a holiday of the tenant’s own, a whole or a half day (admins)' },
      remove: { field: 'Mutation.deleteHoliday', summary: 'Delete one of the tenant’s own holidays (admins)' },
    },
  ),
});

declare module '../../services.js' {
  interface Services {
    holidays: HolidayService;
  }
}
