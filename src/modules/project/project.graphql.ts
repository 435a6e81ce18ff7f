import { builder } from '../../graphql/builder.js';
import { graphqlEnum } from '../../graphql/inputs.js';
import { tenantOperation } from '../../graphql/operations.js';
import {
  CreateProjectArgs,
  ListProjectsArgs,
  ProjectArgs,
  projectStatus,
  ProjectsConnectionArgs,
  UpdateProjectArgs,
  type ProjectPageQuery,
  type ProjectQuery,
} from './project.service.js';

builder.prismaObject('Project', {
  description: 'Work for a client: entries, task lists and invoices belong to it.',
  fields: (t) => ({
    id: t.exposeID('id'),
    tenantId: t.exposeID('tenantId'),
    name: t.exposeString('name'),
    code: t.exposeString('code', { nullable: true, description: 'Short code, unique in the tenant' }),
    clientName: t.exposeString('clientName', { nullable: true }),
    description: t.exposeString('description', { nullable: true }),
    color: t.exposeString('color', { nullable: true, description: '#rrggbb' }),
    billable: t.exposeBoolean('billable', { description: 'Time on it is billable by default' }),
    hourlyRate: t.expose('hourlyRate', { type: 'Decimal', nullable: true, description: 'Billing rate per hour' }),
    budgetHours: t.expose('budgetHours', { type: 'Decimal', nullable: true }),
    budgetAmount: t.expose('budgetAmount', { type: 'Decimal', nullable: true }),
    status: t.expose('status', { type: graphqlEnum(projectStatus) }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

const listProjects = tenantOperation(ListProjectsArgs, ['read', 'Project']);
const pageProjects = tenantOperation(ProjectsConnectionArgs, ['read', 'Project']);
const readProject = tenantOperation(ProjectArgs, ['read', 'Project']);
const createProject = tenantOperation(CreateProjectArgs, ['create', 'Project']);
const updateProject = tenantOperation(UpdateProjectArgs, ['update', 'Project']);
const deleteProject = tenantOperation(ProjectArgs, ['delete', 'Project']);

builder.queryFields((t) => ({
  projects: t.prismaField({
    type: ['Project'],
    description: "The tenant's projects, newest first.",
    ...listProjects.field(t),
    resolve: listProjects.resolveQuery((input, access, query: ProjectQuery, { services }) => services.projects.list(access, input, query)),
  }),
  projectsConnection: t.prismaConnection(
    {
      type: 'Project',
      cursor: 'id',
      description: "The tenant's projects, newest first, as a Relay connection with a total count.",
      ...pageProjects.field(t),
      totalCount: pageProjects.resolve((input, access, { services }) => services.projects.count(access, input.filter)),
      resolve: pageProjects.resolveQuery((input, access, query: ProjectPageQuery, { services }) =>
        services.projects.page(access, input.filter, query),
      ),
    },
    { name: 'ProjectConnection' },
    { name: 'ProjectEdge' },
  ),
  project: t.prismaField({
    type: 'Project',
    description: 'One project.',
    ...readProject.field(t),
    resolve: readProject.resolveQuery((input, access, query: ProjectQuery, { services }) => services.projects.get(access, input.id, query)),
  }),
}));

builder.mutationFields((t) => ({
  createProject: t.prismaField({
    type: 'Project',
    description: 'Creates a project.',
    ...createProject.field(t),
    resolve: createProject.resolveQuery((input, access, query: ProjectQuery, { services }) =>
      services.projects.create(access, input.input, query),
    ),
  }),
  updateProject: t.prismaField({
    type: 'Project',
    description: 'Changes a project; set status to archived to retire it.',
    ...updateProject.field(t),
    resolve: updateProject.resolveQuery((input, access, query: ProjectQuery, { services }) =>
      services.projects.update(access, input.id, input.input, query),
    ),
  }),
  deleteProject: t.prismaField({
    type: 'Project',
    description: 'Deletes a project without time on it (409 otherwise: archive it). GraphQL returns the deleted project.',
    ...deleteProject.field(t),
    resolve: deleteProject.resolveQuery((input, access, query: ProjectQuery, { services }) =>
      services.projects.remove(access, input.id, query),
    ),
  }),
}));
