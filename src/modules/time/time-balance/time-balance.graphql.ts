import { builder, type SchemaTypes } from '../../../graphql/builder.js';
import { graphqlEnum } from '../../../graphql/inputs.js';
import { tenantOperation } from '../../../graphql/operations.js';
import { VacationObject } from '../vacation/vacation.graphql.js';
import { CorrectTimeBalanceArgs, type TimeBalanceCorrectionView } from './time-balance.corrections.js';
import { balanceGrouping, TimeBalanceArgs, type BalanceFigures, type BalancePeriod, type TimeBalance } from './time-balance.service.js';

const figures = {
  expectedMinutes: 'Scheduled minutes minus holidays (and minus unpaid absence days)',
  workedMinutes: 'Minutes of finished entries that started then (in the tenant’s time zone), whatever their status',
  creditedMinutes: 'Minutes of absences that count as work (vacation, sickness)',
  holidayMinutes: 'Scheduled minutes holidays took off',
  correctionMinutes: 'Corrections of the account on its days (overtime paid out or forfeited: negative)',
  balanceMinutes: 'worked + credited - expected + corrections',
} as const;

/** The minute figures a balance and each of its periods share. */
function minuteFields<Shape extends BalanceFigures>(t: PothosSchemaTypes.ObjectFieldBuilder<SchemaTypes, Shape>) {
  const minutes = (name: keyof typeof figures) => t.int({ description: figures[name], resolve: (parent) => parent[name] });
  return {
    expectedMinutes: minutes('expectedMinutes'),
    workedMinutes: minutes('workedMinutes'),
    creditedMinutes: minutes('creditedMinutes'),
    holidayMinutes: minutes('holidayMinutes'),
    correctionMinutes: minutes('correctionMinutes'),
    balanceMinutes: minutes('balanceMinutes'),
  };
}

const BalanceFiguresObject = builder.objectRef<BalanceFigures>('BalanceFigures').implement({
  description: 'What a period of a member’s working time adds up to, in minutes.',
  fields: (t) => ({
    ...minuteFields(t),
    vacationDays: t.exposeFloat('vacationDays', { description: 'Vacation days its approved absences use (a half day: 0.5)' }),
  }),
});

const BalancePeriodObject = builder.objectRef<BalancePeriod>('BalancePeriod').implement({
  description: 'One day or month of a time balance.',
  fields: (t) => ({
    start: t.expose('start', { type: 'Date', description: 'Its first day' }),
    end: t.expose('end', { type: 'Date', description: 'Its last day' }),
    ...minuteFields(t),
    runningBalanceMinutes: t.exposeInt('runningBalanceMinutes', { description: 'The balance from `from` to the end of this period: the overtime account' }),
    vacationDays: t.exposeFloat('vacationDays', { description: 'Vacation days its approved absences use' }),
  }),
});

const TimeBalanceCorrectionObject = builder.objectRef<TimeBalanceCorrectionView>('TimeBalanceCorrection').implement({
  description: 'A correction of a member’s time balance, with its reason: the audit trail of the overtime account (never changed or deleted).',
  fields: (t) => ({
    id: t.exposeID('id'),
    tenantUserId: t.exposeID('tenantUserId'),
    date: t.expose('date', { type: 'Date', description: 'The day it counts on' }),
    minutes: t.exposeInt('minutes', { description: 'Minutes added (negative: taken off, e.g. overtime paid out or forfeited)' }),
    reason: t.exposeString('reason'),
    actorType: t.exposeString('actorType', { description: 'user, api_key or system' }),
    actorId: t.exposeString('actorId', { nullable: true, description: 'The user or API key who corrected it' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

const TimeBalanceObject = builder.objectRef<TimeBalance>('TimeBalance').implement({
  description: 'A member’s expected and worked time over a period, and the overtime balance.',
  fields: (t) => ({
    tenantUserId: t.exposeID('tenantUserId'),
    from: t.expose('from', { type: 'Date' }),
    to: t.expose('to', { type: 'Date' }),
    timezone: t.exposeString('timezone', { description: 'The time zone the days are counted in' }),
    groupBy: t.expose('groupBy', { type: graphqlEnum(balanceGrouping) }),
    totals: t.field({ type: BalanceFiguresObject, resolve: (balance) => balance.totals }),
    periods: t.field({ type: [BalancePeriodObject], resolve: (balance) => balance.periods }),
    vacation: t.field({
      type: VacationObject,
      description: 'The vacation account of the year `to` falls in: days taken, planned and left',
      resolve: (balance) => balance.vacation,
    }),
    balanceCapMinutes: t.exposeInt('balanceCapMinutes', {
      nullable: true,
      description: 'The tenant’s cap on balances (settings.balanceCapMinutes); null: none',
    }),
    overCap: t.exposeBoolean('overCap', { description: 'Whether the balance of the period (totals.balanceMinutes) is above the cap' }),
    corrections: t.field({
      type: [TimeBalanceCorrectionObject],
      description: 'The corrections from `from` to `to`, oldest first: who, when, why',
      resolve: (balance) => balance.corrections,
    }),
  }),
});

const timeBalance = tenantOperation(TimeBalanceArgs, ['read', 'TimeBalance']);
const correctTimeBalance = tenantOperation(CorrectTimeBalanceArgs, ['update', 'TimeBalance']);

builder.queryFields((t) => ({
  timeBalance: t.field({
    type: TimeBalanceObject,
    description: 'A member’s time balance per day or month (members: their own).',
    ...timeBalance.field(t),
    resolve: timeBalance.resolve((input, access, { services }) => services.timeBalances.balance(access, input)),
  }),
}));

builder.mutationFields((t) => ({
  correctTimeBalance: t.field({
    type: TimeBalanceCorrectionObject,
    description: 'Corrects a member’s time balance with a reason (admins): overtime paid out or forfeited is negative.',
    ...correctTimeBalance.field(t),
    resolve: correctTimeBalance.resolve((input, access, { services }) => services.timeBalances.correct(access, input)),
  }),
}));
