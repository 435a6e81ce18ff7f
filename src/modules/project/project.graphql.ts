import { builder } from '../../graphql/builder.js';
import { graphqlEnum } from '../../graphql/inputs.js';
import { resourceFields } from '../../graphql/resource-fields.js';
import { CreateProjectArgs, ListProjectsArgs, ProjectArgs, projectStatus, ProjectsConnectionArgs, UpdateProjectArgs } from './project.service.js';

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

resourceFields('Project', {
  subject: 'Project',
  service: (services) => services.projects,
  queries: {
    projects: { list: ListProjectsArgs, description: "The tenant's projects, newest first." },
    projectsConnection: {
      connection: ProjectsConnectionArgs,
      totalCount: true,
      description: "The tenant's projects, newest first, as a Relay connection with a total count.",
    },
    project: { get: ProjectArgs, description: 'One project.' },
  },
  mutations: {
    createProject: { create: CreateProjectArgs, description: 'Creates a project.' },
    updateProject: { update: UpdateProjectArgs, description: 'Changes a project; set status to archived to retire it.' },
    deleteProject: {
      remove: ProjectArgs,
      description: 'Deletes a project without time on it (409 otherwise: archive it). GraphQL returns the deleted project.',
    },
  },
});
