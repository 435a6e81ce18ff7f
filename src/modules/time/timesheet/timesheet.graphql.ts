import { builder } from '../../../graphql/builder.js';
import { graphqlEnum } from '../../../graphql/inputs.js';
import { tenantOperation } from '../../../graphql/operations.js';
import { workingTimeRule } from '../working-time/working-time.service.js';
import { TimesheetArgs, type Timesheet, type TimesheetDay } from './timesheet.service.js';

const TimesheetDayObject = builder.objectRef<TimesheetDay>('TimesheetDay').implement({
  description: 'One day of a timesheet.',
  fields: (t) => ({
    date: t.expose('date', { type: 'Date' }),
    weekday: t.exposeString('weekday', { description: 'Mon to Sun' }),
    start: t.exposeString('start', { nullable: true, description: 'The first entry’s start, HH:MM in the tenant’s time zone' }),
    end: t.exposeString('end', { nullable: true, description: 'The last entry’s end, HH:MM' }),
    breakMinutes: t.exposeInt('breakMinutes', { description: 'Between start and end, the minutes not worked' }),
    workedMinutes: t.exposeInt('workedMinutes'),
    expectedMinutes: t.exposeInt('expectedMinutes'),
    creditedMinutes: t.exposeInt('creditedMinutes', { description: 'Minutes absences that count as work credited' }),
    holidayMinutes: t.exposeInt('holidayMinutes'),
    balanceMinutes: t.exposeInt('balanceMinutes', { description: 'worked + credited - expected' }),
    absence: t.exposeString('absence', { nullable: true, description: 'The approved absences of the day, by type' }),
    holiday: t.exposeString('holiday', { nullable: true }),
    violations: t.expose('violations', {
      type: [graphqlEnum(workingTimeRule)],
      description: 'The working-time rules the day breaks under the tenant’s rule set (GET users/{tenantUserId}/working-time has the details)',
    }),
  }),
});

const TimesheetTotalsObject = builder.objectRef<Timesheet['totals']>('TimesheetTotals').implement({
  description: 'What a timesheet’s month adds up to, in minutes.',
  fields: (t) => ({
    breakMinutes: t.exposeInt('breakMinutes'),
    expectedMinutes: t.exposeInt('expectedMinutes'),
    workedMinutes: t.exposeInt('workedMinutes'),
    creditedMinutes: t.exposeInt('creditedMinutes'),
    holidayMinutes: t.exposeInt('holidayMinutes'),
    balanceMinutes: t.exposeInt('balanceMinutes', { description: 'The month’s balance: worked + credited - expected' }),
  }),
});

const TimesheetObject = builder.objectRef<Timesheet>('Timesheet').implement({
  description: 'A member’s month, day by day, to sign.',
  fields: (t) => ({
    tenantUserId: t.exposeID('tenantUserId'),
    memberName: t.exposeString('memberName', { description: 'The member’s name, else their email' }),
    month: t.exposeString('month', { description: 'Like 2027-03' }),
    timezone: t.exposeString('timezone'),
    days: t.field({ type: [TimesheetDayObject], resolve: (sheet) => sheet.days }),
    totals: t.field({ type: TimesheetTotalsObject, resolve: (sheet) => sheet.totals }),
  }),
});

const timesheet = tenantOperation(TimesheetArgs, ['read', 'Timesheet']);

builder.queryFields((t) => ({
  timesheet: t.field({
    type: TimesheetObject,
    description: 'A member’s month, day by day (members: their own). REST also gives it as CSV, XLSX or a PDF to sign.',
    ...timesheet.field(t),
    resolve: timesheet.resolve((input, access, { services }) => services.timesheets.timesheet(access, input)),
  }),
}));
