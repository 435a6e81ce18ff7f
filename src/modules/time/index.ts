/** Time: time off and working time. Uses the platform and tracking. */
import { defineDomain } from '../domain.js';
import { absenceModule } from './absence/index.js';
import { absenceTypeModule } from './absence-type/index.js';
import { calendarModule } from './calendar/index.js';
import { holidayModule } from './holiday/index.js';
import { timeBalanceModule } from './time-balance/index.js';
import { timesheetModule } from './timesheet/index.js';
import { vacationModule } from './vacation/index.js';
import { workScheduleModule } from './work-schedule/index.js';
import { workingTimeModule } from './working-time/index.js';

export const timeDomain = defineDomain({
  name: 'time',
  description:
    'Time off and working time: work schedules, holidays, absence types and absences, vacation accounts, the time balance, monthly timesheets, calendar feeds and working time under the law. ' +
    'member-days/ holds what each day of a member is worth, which the balance, the vacation account, the timesheet and absence reports (insight) read.',
  uses: ['platform', 'tracking'],
  modules: [
    workScheduleModule,
    holidayModule,
    absenceTypeModule,
    absenceModule,
    timeBalanceModule,
    vacationModule,
    timesheetModule,
    calendarModule,
    workingTimeModule,
  ],
});
