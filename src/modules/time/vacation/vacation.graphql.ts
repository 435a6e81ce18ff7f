import { builder } from '../../../graphql/builder.js';
import { tenantOperation } from '../../../graphql/operations.js';
import { CorrectVacationArgs, SetVacationArgs, VacationArgs, type Vacation, type VacationCorrectionView } from './vacation.service.js';

const VacationCorrectionObject = builder.objectRef<VacationCorrectionView>('VacationCorrection').implement({
  description: 'A correction of a member’s vacation days, with its reason: the audit trail (never changed or deleted).',
  fields: (t) => ({
    id: t.exposeID('id'),
    days: t.exposeFloat('days', { description: 'Days added (negative: taken away)' }),
    reason: t.exposeString('reason'),
    actorType: t.exposeString('actorType', { description: 'user, api_key or system' }),
    actorId: t.exposeString('actorId', { nullable: true, description: 'The user or API key who corrected it' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

export const VacationObject = builder.objectRef<Vacation>('Vacation').implement({
  description: 'A member’s vacation account of one year, in days (a half day: 0.5).',
  fields: (t) => ({
    tenantUserId: t.exposeID('tenantUserId'),
    year: t.exposeInt('year'),
    allowanceDays: t.exposeFloat('allowanceDays', { description: 'Days for a whole year, as set' }),
    proRataAllowanceDays: t.exposeFloat('proRataAllowanceDays', {
      description: 'The part of them for the full months of employment that year (employmentStart to employmentEnd; without them: from the membership)',
    }),
    carriedOverDays: t.exposeFloat('carriedOverDays', { description: 'Carried over from the year before (as set, else what it left)' }),
    carryOverExpires: t.expose('carryOverExpires', { type: 'Date', description: 'Carried-over days not taken by then are lost' }),
    expiredDays: t.exposeFloat('expiredDays', { description: 'Carried-over days lost at their expiry' }),
    correctionDays: t.exposeFloat('correctionDays', { description: 'The sum of the corrections' }),
    takenDays: t.exposeFloat('takenDays', { description: 'Approved vacation days up to today' }),
    plannedDays: t.exposeFloat('plannedDays', { description: 'Approved vacation days after today, and requested ones not yet decided' }),
    leftDays: t.exposeFloat('leftDays', { description: 'proRataAllowance + carriedOver - expired + corrections - taken - planned' }),
    corrections: t.field({ type: [VacationCorrectionObject], resolve: (vacation) => vacation.corrections }),
  }),
});

const findVacation = tenantOperation(VacationArgs, ['read', 'Vacation']);
const setVacation = tenantOperation(SetVacationArgs, ['update', 'Vacation']);
const correctVacation = tenantOperation(CorrectVacationArgs, ['update', 'Vacation']);

builder.queryFields((t) => ({
  vacation: t.field({
    type: VacationObject,
    description: 'A member’s vacation account of one year (members: their own).',
    ...findVacation.field(t),
    resolve: findVacation.resolve((input, access, { services }) => services.vacations.get(access, input)),
  }),
}));

builder.mutationFields((t) => ({
  setVacation: t.field({
    type: VacationObject,
    description: 'Sets a member’s vacation days of one year (admins).',
    ...setVacation.field(t),
    resolve: setVacation.resolve((input, access, { services }) => services.vacations.set(access, input)),
  }),
  correctVacation: t.field({
    type: VacationObject,
    description: 'Corrects a member’s vacation days of one year, with a reason (admins).',
    ...correctVacation.field(t),
    resolve: correctVacation.resolve((input, access, { services }) => services.vacations.correct(access, input)),
  }),
}));
