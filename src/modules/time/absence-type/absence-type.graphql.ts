import { builder } from '../../../graphql/builder.js';
import { graphqlEnum } from '../../../graphql/inputs.js';
import { resourceFields } from '../../../graphql/resource-fields.js';
import { AbsenceTypeArgs, absenceKind, CreateAbsenceTypeArgs, ListAbsenceTypesArgs, UpdateAbsenceTypeArgs } from './absence-type.service.js';

builder.prismaObject('AbsenceType', {
  description: 'A kind of absence, and how its days count.',
  fields: (t) => ({
    id: t.exposeID('id'),
    tenantId: t.exposeID('tenantId'),
    name: t.exposeString('name'),
    kind: t.expose('kind', { type: graphqlEnum(absenceKind) }),
    countsAsWork: t.exposeBoolean('countsAsWork', { description: 'Credits the day’s expected minutes' }),
    deductsVacation: t.exposeBoolean('deductsVacation', { description: 'Its days are taken from the vacation allowance' }),
    needsApproval: t.exposeBoolean('needsApproval', { description: 'Requests wait for a manager or admin' }),
    archived: t.exposeBoolean('archived', { description: 'No new absences of an archived type' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

resourceFields('AbsenceType', {
  subject: 'AbsenceType',
  service: (services) => services.absenceTypes,
  queries: {
    absenceTypes: { list: ListAbsenceTypesArgs, description: 'The tenant’s absence types, oldest first.' },
    absenceType: { get: AbsenceTypeArgs, description: 'One absence type.' },
  },
  mutations: {
    createAbsenceType: { create: CreateAbsenceTypeArgs, description: 'Adds an absence type (admins).' },
    updateAbsenceType: { update: UpdateAbsenceTypeArgs, description: 'Changes or archives an absence type (admins).' },
    deleteAbsenceType: { remove: AbsenceTypeArgs, description: 'Deletes an absence type no absence is of (admins). GraphQL returns it.' },
  },
});
