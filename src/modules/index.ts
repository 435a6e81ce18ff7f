/**
 * Every module, once. The services (src/services.ts), the GraphQL schema
 * (src/schema.ts) and the REST route table (src/routes.ts) are built from
 * this list; adding a resource is a folder and one line here. The import
 * order is the order of the schema's types and fields, so keep it the list's.
 */
import { tenantModule } from './tenant/index.js';
import { userModule } from './user/index.js';
import { apiKeyModule } from './api-key/index.js';
import { noteModule } from './note/index.js';
import { adminModule } from './admin/index.js';
import { clientModule } from './client/index.js';
import { billingProfileModule } from './billing-profile/index.js';
import { projectModule } from './project/index.js';
import { projectMemberModule } from './project-member/index.js';
import { taskListModule } from './task-list/index.js';
import { taskModule } from './task/index.js';
import { vehicleModule } from './vehicle/index.js';
import { entryModule } from './entry/index.js';
import { invoiceModule } from './invoice/index.js';
import { clientInvoiceModule } from './client-invoice/index.js';
import { syncModule } from './sync/index.js';
import { searchModule } from './search/index.js';
import { reportModule } from './report/index.js';
import { importModule } from './import/index.js';
import { notificationModule } from './notification/index.js';
import { webhookModule } from './webhook/index.js';
import { eventModule } from './event/index.js';
import { workScheduleModule } from './work-schedule/index.js';
import { holidayModule } from './holiday/index.js';
import { absenceTypeModule } from './absence-type/index.js';
import { absenceModule } from './absence/index.js';
import { timeBalanceModule } from './time-balance/index.js';
import { vacationModule } from './vacation/index.js';
import { timesheetModule } from './timesheet/index.js';
import { calendarModule } from './calendar/index.js';

export const modules = [
  tenantModule,
  userModule,
  apiKeyModule,
  noteModule,
  adminModule,
  clientModule,
  billingProfileModule,
  projectModule,
  projectMemberModule,
  taskListModule,
  taskModule,
  vehicleModule,
  entryModule,
  invoiceModule,
  clientInvoiceModule,
  syncModule,
  searchModule,
  reportModule,
  importModule,
  notificationModule,
  webhookModule,
  eventModule,
  workScheduleModule,
  holidayModule,
  absenceTypeModule,
  absenceModule,
  timeBalanceModule,
  vacationModule,
  timesheetModule,
  calendarModule,
] as const;
