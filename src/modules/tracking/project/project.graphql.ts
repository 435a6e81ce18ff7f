import DataLoader from 'dataloader';
import { builder } from '../../../graphql/builder.js';
import type { GraphQLContext } from '../../../graphql/context.js';
import { graphqlEnum } from '../../../graphql/inputs.js';
import { quantityExtensions } from '../../../graphql/money.js';
import { currencyField, rateFieldBy } from '../../../graphql/rates.js';
import { resourceFields } from '../../../graphql/resource-fields.js';
import { Prisma, type Project } from '../../../generated/prisma/client.js';
import type { Spent } from './project.budget.js';
import { budgetPeriod, CreateProjectArgs, ListProjectsArgs, ProjectArgs, projectStatus, ProjectsConnectionArgs, UpdateProjectArgs } from './project.service.js';

/** Spent of every project a request shows, per tenant: one grouped statement for a page, not one per project. */
function spentOf(context: GraphQLContext, project: Project): Promise<Spent> {
  const loader = context.once(
    `project.spent ${project.tenantId}`,
    () =>
      new DataLoader<Project, Spent, string>(
        async (projects) => {
          const spent = await context.services.projects.spent(await context.tenantAccess(project.tenantId), projects);
          return projects.map((each) => spent.get(each.id) ?? { minutes: 0, amount: new Prisma.Decimal(0) });
        },
        { cacheKeyFn: (each) => each.id },
      ),
  );
  return loader.load(project);
}

/**
 * The currency of a project's rates (its client's; null: the tenant's), by a loader per request and tenant: one
 * statement for a page of projects or of project members, none for projects without a client.
 */
export function projectCurrency(context: GraphQLContext, tenantId: string, projectId: string): Promise<string | null> {
  const loader = context.once(
    `project.currency ${tenantId}`,
    () =>
      new DataLoader<string, string | null>(async (ids) => {
        const currencies = await context.services.projects.currencies(await context.tenantAccess(tenantId), ids);
        return ids.map((id) => currencies.get(id) ?? null);
      }),
  );
  return loader.load(projectId);
}

const clientCurrency = (project: Project, context: GraphQLContext) =>
  project.clientId === null ? null : projectCurrency(context, project.tenantId, project.id);

builder.prismaObject('Project', {
  description: 'Work for a client: entries, task lists and invoices belong to it.',
  fields: (t) => ({
    id: t.exposeID('id'),
    tenantId: t.exposeID('tenantId'),
    name: t.exposeString('name'),
    code: t.exposeString('code', { nullable: true, description: 'Short code, unique in the tenant' }),
    clientId: t.exposeID('clientId', { nullable: true, description: 'The client the work is for' }),
    client: t.relation('client', { nullable: true, description: 'The client the work is for' }),
    description: t.exposeString('description', { nullable: true }),
    color: t.exposeString('color', { nullable: true, description: '#rrggbb' }),
    billable: t.exposeBoolean('billable', { description: 'Time on it is billable by default' }),
    currency: t.field(currencyField<Project>("ISO 4217: the currency of its rates, budget and spent amounts, its client's, else the tenant's", clientCurrency)),
    hourlyRate: t.field(rateFieldBy<Project>("Billing rate per hour, after a project member's own.", (project) => project.hourlyRate, clientCurrency)),
    budgetHours: t.expose('budgetHours', {
      type: 'Decimal',
      nullable: true,
      description: 'Budget in hours, per budget period',
      extensions: quantityExtensions,
    }),
    budgetAmount: t.field(rateFieldBy<Project>('Budget in billable amounts, per budget period.', (project) => project.budgetAmount, clientCurrency)),
    budgetPeriod: t.expose('budgetPeriod', { type: graphqlEnum(budgetPeriod) }),
    spentMinutes: t.int({
      description: 'Minutes of finished entries in the current budget period (whatever their status; running timers are not spent yet)',
      resolve: async (project, _args, context) => (await spentOf(context, project)).minutes,
    }),
    spentAmount: t.field(
      rateFieldBy<Project>(
        "Billable amounts of finished entries and billed amounts (net plus markup) of expenses in the current budget period, those in the project's currency (entries from before a change of currency keep theirs and are not added).",
        async (project, context) => (await spentOf(context, project)).amount,
        clientCurrency,
      ),
    ),
    status: t.expose('status', { type: graphqlEnum(projectStatus) }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

builder.prismaObjectField('Client', 'projectsConnection', (t) =>
  t.relatedConnection('projects', {
    cursor: 'id',
    totalCount: true,
    description: "The client's projects, newest first",
    query: () => ({ orderBy: [{ createdAt: 'desc' }, { id: 'desc' }] }),
  }),
);

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
