import { builder } from '../../../graphql/builder.js';
import { graphqlEnum } from '../../../graphql/inputs.js';
import { tenantOperation } from '../../../graphql/operations.js';
import { resourceFields } from '../../../graphql/resource-fields.js';
import {
  AbsenceArgs,
  AbsencesConnectionArgs,
  absenceStatus,
  BusyBlocksArgs,
  CreateAbsenceArgs,
  halfDay,
  ListAbsencesArgs,
  RejectAbsenceArgs,
  UpdateAbsenceArgs,
  type AbsenceQuery,
} from './absence.dto.js';
import type { BusyBlock } from './absence.service.js';

builder.prismaObject('Absence', {
  description: 'Time off of a member over whole days, or half of one day. Only approved absences count.',
  fields: (t) => ({
    id: t.exposeID('id'),
    tenantId: t.exposeID('tenantId'),
    tenantUserId: t.exposeID('tenantUserId', { description: 'Whose absence it is' }),
    tenantUser: t.relation('tenantUser', { description: 'Whose absence it is' }),
    absenceTypeId: t.exposeID('absenceTypeId'),
    absenceType: t.relation('absenceType'),
    startDate: t.expose('startDate', { type: 'Date', description: 'The first day' }),
    endDate: t.expose('endDate', { type: 'Date', description: 'The last day (inclusive)' }),
    halfDay: t.expose('halfDay', { type: graphqlEnum(halfDay), nullable: true, description: 'Half of a one-day absence: am or pm' }),
    note: t.exposeString('note', { nullable: true }),
    status: t.expose('status', { type: graphqlEnum(absenceStatus) }),
    reviewedById: t.exposeID('reviewedById', { nullable: true, description: 'The tenantUserId who approved or rejected it' }),
    reviewedAt: t.expose('reviewedAt', { type: 'DateTime', nullable: true }),
    rejectionReason: t.exposeString('rejectionReason', { nullable: true }),
    cancelledAt: t.expose('cancelledAt', { type: 'DateTime', nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

const BusyBlockObject = builder.objectRef<BusyBlock>('BusyBlock').implement({
  description: 'Days a member is off (an approved absence), without its type or note.',
  fields: (t) => ({
    tenantUserId: t.exposeID('tenantUserId'),
    startDate: t.expose('startDate', { type: 'Date' }),
    endDate: t.expose('endDate', { type: 'Date' }),
    halfDay: t.expose('halfDay', { type: graphqlEnum(halfDay), nullable: true }),
  }),
});

resourceFields('Absence', {
  subject: 'Absence',
  service: (services) => services.absences,
  queries: {
    absences: { list: ListAbsencesArgs, description: 'The absences the caller may read (members: their own), latest first.' },
    absencesConnection: { connection: AbsencesConnectionArgs, description: 'The absences the caller may read, as a Relay connection.' },
    absence: { get: AbsenceArgs, description: 'One absence (members: their own).' },
  },
  mutations: {
    createAbsence: { create: CreateAbsenceArgs, description: 'Requests an absence; a type without approval is approved at once.' },
    updateAbsence: { update: UpdateAbsenceArgs, description: 'Changes a pending absence.' },
    deleteAbsence: { remove: AbsenceArgs, description: 'Deletes a pending absence. GraphQL returns the deleted absence.' },
  },
});

const busyBlocks = tenantOperation(BusyBlocksArgs, ['read', 'Absence']);
const approveAbsence = tenantOperation(AbsenceArgs, ['approve', 'Absence']);
const rejectAbsence = tenantOperation(RejectAbsenceArgs, ['approve', 'Absence']);
const cancelAbsence = tenantOperation(AbsenceArgs, ['cancel', 'Absence']);

builder.queryFields((t) => ({
  busyBlocks: t.field({
    type: [BusyBlockObject],
    description: 'Who is off when: every member’s approved absences in a period, without their type (what members see of colleagues).',
    ...busyBlocks.field(t),
    resolve: busyBlocks.resolve((input, access, { services }) => services.absences.busyBlocks(access, input)),
  }),
}));

builder.mutationFields((t) => ({
  approveAbsence: t.prismaField({
    type: 'Absence',
    description: 'Approves a pending absence; managers do not approve their own. A cancelled one is 409.',
    ...approveAbsence.field(t),
    resolve: approveAbsence.resolveQuery((input, access, query: AbsenceQuery, { services }) => services.absences.approve(access, input.id, query)),
  }),
  rejectAbsence: t.prismaField({
    type: 'Absence',
    description: 'Rejects a pending absence with a reason.',
    ...rejectAbsence.field(t),
    resolve: rejectAbsence.resolveQuery((input, access, query: AbsenceQuery, { services }) =>
      services.absences.reject(access, input.id, input.input.reason, query),
    ),
  }),
  cancelAbsence: t.prismaField({
    type: 'Absence',
    description: 'Cancels a pending absence, or an approved one (managers and admins; once it has begun, admins only).',
    ...cancelAbsence.field(t),
    resolve: cancelAbsence.resolveQuery((input, access, query: AbsenceQuery, { services }) => services.absences.cancel(access, input.id, query)),
  }),
}));
