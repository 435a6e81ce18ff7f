import { builder, type SchemaTypes } from '../../../graphql/builder.js';
import { graphqlEnum } from '../../../graphql/inputs.js';
import { permittedAccess } from '../../../graphql/context.js';
import { tenantOperation } from '../../../graphql/operations.js';
import { enums } from '../../../lib/enums.js';
import type { Violation, WorkingDay } from './working-time.rules.js';
import {
  ListViolationsArgs,
  type MemberWorkingTime,
  type TeamViolation,
  WorkingTimeArgs,
  type WorkingTimeTotals,
  workingTimeRule,
} from './working-time.service.js';

const violationFields = {
  date: 'The working day (in the tenant’s time zone, the day its first entry started)',
  minutes: 'How far the day is past the limit: break minutes lacking, minutes over, rest minutes short; for Sunday and holiday work the minutes worked',
} as const;

/** The fields a violation has, the member's or one of the team's. */
function violationOf<Shape extends Violation>(t: PothosSchemaTypes.ObjectFieldBuilder<SchemaTypes, Shape>) {
  return {
    date: t.field({ type: 'Date', description: violationFields.date, resolve: (violation) => violation.date }),
    rule: t.field({ type: graphqlEnum(workingTimeRule), resolve: (violation) => violation.rule }),
    detail: t.string({ description: 'What the day shows, in words', resolve: (violation) => violation.detail }),
    minutes: t.int({ description: violationFields.minutes, resolve: (violation) => violation.minutes }),
  };
}

export const WorkingTimeViolationObject = builder.objectRef<Violation>('WorkingTimeViolation').implement({
  description: 'A rule of working-time law a working day broke.',
  fields: (t) => ({
    ...violationOf(t),
  }),
});

const TeamViolationObject = builder.objectRef<TeamViolation>('TeamWorkingTimeViolation').implement({
  description: 'A rule of working-time law a member’s working day broke.',
  fields: (t) => ({
    tenantUserId: t.exposeID('tenantUserId', { description: 'Whose day it is' }),
    ...violationOf(t),
  }),
});

const WorkingDayObject = builder.objectRef<WorkingDay>('WorkingDay').implement({
  description: 'A day worked: its net time and breaks against the statutory minimum.',
  fields: (t) => ({
    date: t.expose('date', { type: 'Date', description: violationFields.date }),
    workedMinutes: t.exposeInt('workedMinutes', { description: 'Net minutes: entries’ time, overlaps once, less breaks recorded in them' }),
    breakMinutes: t.exposeInt('breakMinutes', { description: 'Minutes of breaks that count (gaps and recorded breaks of 15 minutes or more)' }),
    requiredBreakMinutes: t.exposeInt('requiredBreakMinutes', { description: 'The statutory minimum for the day (§4 ArbZG: 0, 30 or 45)' }),
    lackingBreakMinutes: t.exposeInt('lackingBreakMinutes', { description: 'What the breaks lack of the minimum' }),
  }),
});

const WorkingTimeTotalsObject = builder.objectRef<WorkingTimeTotals>('WorkingTimeTotals').implement({
  description: 'A period of working days, added up.',
  fields: (t) => ({
    workedMinutes: t.exposeInt('workedMinutes'),
    breakMinutes: t.exposeInt('breakMinutes'),
    lackingBreakMinutes: t.exposeInt('lackingBreakMinutes'),
    violations: t.exposeInt('violations', { description: 'How many violations the period has' }),
  }),
});

const WorkingTimeObject = builder.objectRef<MemberWorkingTime>('WorkingTime').implement({
  description: 'A member’s working days over a period, checked against the tenant’s working-time rules.',
  fields: (t) => ({
    tenantUserId: t.exposeID('tenantUserId'),
    from: t.expose('from', { type: 'Date' }),
    to: t.expose('to', { type: 'Date' }),
    timezone: t.exposeString('timezone', { description: 'The time zone the days are counted in' }),
    ruleSet: t.expose('ruleSet', { type: graphqlEnum(enums.WorkingTimeRuleSet), description: 'The rules the days were checked against' }),
    violations: t.field({ type: [WorkingTimeViolationObject], resolve: (time) => time.violations }),
    days: t.field({ type: [WorkingDayObject], resolve: (time) => time.days }),
    totals: t.field({ type: WorkingTimeTotalsObject, resolve: (time) => time.totals }),
  }),
});

const workingTime = tenantOperation(WorkingTimeArgs, ['read', 'WorkingTime']);
const workingTimeViolations = tenantOperation(ListViolationsArgs, ['read', 'TeamWorkingTime']);

builder.queryFields((t) => ({
  workingTime: t.field({
    type: WorkingTimeObject,
    description: 'A member’s working days and violations of working-time law (members: their own).',
    ...workingTime.field(t),
    resolve: workingTime.resolve((input, access, { services }) => services.workingTime.member(access, input)),
  }),
  workingTimeViolations: t.field({
    type: [TeamViolationObject],
    description: 'The team’s violations of working-time law, latest day first (managers and admins).',
    ...workingTimeViolations.field(t),
    resolve: workingTimeViolations.resolve((input, access, { services }) => services.workingTime.violations(access, input)),
  }),
}));

const WorkingTimeWarningObject = builder.objectRef<Violation>('WorkingTimeWarning').implement({
  description: 'A rule of working-time law the entry’s working day breaks.',
  fields: (t) => ({
    rule: t.expose('rule', { type: graphqlEnum(workingTimeRule) }),
    detail: t.exposeString('detail', { description: 'What the day shows, in words' }),
  }),
});

// The answer of an entry write warns of its day's violations; a read of an entry does not pay for the check.
builder.prismaObjectField('Entry', 'warnings', (t) =>
  t.field({
    type: [WorkingTimeWarningObject],
    nullable: true,
    description:
      'In the answer of a write (create, update, stop...): the working-time rules the day the entry starts on breaks after it, [] when none; null in reads and while the timer runs.',
    select: { id: true, tenantId: true, tenantUserId: true, startedAt: true, endedAt: true, breakMinutes: true },
    resolve: async (entry, _args, context, info) => {
      const { endedAt } = entry;
      if (info.operation.operation !== 'mutation' || endedAt === null) return null;
      const access = await permittedAccess(context, entry.tenantId, ['read', 'Entry']);
      return context.services.workingTime.warnings(access, { ...entry, endedAt });
    },
  }),
);
