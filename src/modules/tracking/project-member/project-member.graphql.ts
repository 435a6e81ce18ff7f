import { builder } from '../../../graphql/builder.js';
import { tenantOperation } from '../../../graphql/operations.js';
import { currencyField, rateFieldBy } from '../../../graphql/rates.js';
import type { ProjectMember } from '../../../generated/prisma/client.js';
import type { GraphQLContext } from '../../../graphql/context.js';
import { projectCurrency } from '../project/project.graphql.js';
import { AddProjectMemberArgs, ListProjectMembersArgs, ProjectMemberArgs, UpdateProjectMemberArgs, type ProjectMemberQuery } from './project-member.service.js';

/** A project member's rate is in its project's currency (its client's, else the tenant's). */
const currencyOf = (member: ProjectMember, context: GraphQLContext) => projectCurrency(context, member.tenantId, member.projectId);

builder.prismaObject('ProjectMember', {
  description: 'Someone who works on a project, and at what billable rate.',
  fields: (t) => ({
    id: t.exposeID('id'),
    tenantId: t.exposeID('tenantId'),
    projectId: t.exposeID('projectId'),
    project: t.relation('project'),
    tenantUserId: t.exposeID('tenantUserId', { description: 'Who works on it' }),
    tenantUser: t.relation('tenantUser', { description: 'Who works on it' }),
    hourlyRate: t.field(
      rateFieldBy<ProjectMember>('Billable rate on this project: the first the rate hierarchy looks at.', (member) => member.hourlyRate, currencyOf),
    ),
    currency: t.field(currencyField<ProjectMember>("ISO 4217: the currency of the rate, the project's (its client's, else the tenant's)", currencyOf)),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

builder.prismaObjectField('Project', 'members', (t) =>
  t.relation('members', { description: 'Who works on the project', query: { orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] } }),
);

const listMembers = tenantOperation(ListProjectMembersArgs, ['read', 'ProjectMember']);
const addMember = tenantOperation(AddProjectMemberArgs, ['create', 'ProjectMember']);
const updateMember = tenantOperation(UpdateProjectMemberArgs, ['update', 'ProjectMember']);
const removeMember = tenantOperation(ProjectMemberArgs, ['delete', 'ProjectMember']);

builder.queryFields((t) => ({
  projectMembers: t.prismaField({
    type: ['ProjectMember'],
    description: "A project's members, in the order they were added.",
    ...listMembers.field(t),
    resolve: listMembers.resolveQuery((input, access, query: ProjectMemberQuery, { services }) => services.projectMembers.list(access, input, query)),
  }),
}));

builder.mutationFields((t) => ({
  addProjectMember: t.prismaField({
    type: 'ProjectMember',
    description: 'Adds an active member of the tenant to a project, with an optional billable rate.',
    ...addMember.field(t),
    resolve: addMember.resolveQuery((input, access, query: ProjectMemberQuery, { services }) =>
      services.projectMembers.add(access, input.projectId, input.input, query),
    ),
  }),
  updateProjectMember: t.prismaField({
    type: 'ProjectMember',
    description: "Changes a project member's rate; entries already made keep theirs.",
    ...updateMember.field(t),
    resolve: updateMember.resolveQuery((input, access, query: ProjectMemberQuery, { services }) =>
      services.projectMembers.update(access, input.projectId, input.tenantUserId, input.input, query),
    ),
  }),
  removeProjectMember: t.prismaField({
    type: 'ProjectMember',
    description: 'Takes someone off a project; their entries stay. GraphQL returns the removed project member.',
    ...removeMember.field(t),
    resolve: removeMember.resolveQuery((input, access, query: ProjectMemberQuery, { services }) =>
      services.projectMembers.remove(access, input.projectId, input.tenantUserId, query),
    ),
  }),
}));
