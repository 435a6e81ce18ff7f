import DataLoader from 'dataloader';
import { builder } from '../../graphql/builder.js';
import type { GraphQLContext } from '../../graphql/context.js';
import { graphqlEnum } from '../../graphql/inputs.js';
import { quantityExtensions } from '../../graphql/money.js';
import { currencyField, rateFieldBy } from '../../graphql/rates.js';
import { resourceFields } from '../../graphql/resource-fields.js';
import { Prisma, type Project } from '../../generated/prisma/client.js';
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

/** What a project's money fields read of its client: the currency (a project without one is in the tenant's). */
const withClient = { client: { select: { currency: true } } } as const;
type WithClient = Project & { client: { currency: string } | null };
const clientCurrency = (project: WithClient): string | null => project.client?.currency ?? null;

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
    currency: t.field({
      ...currencyField<WithClient>("ISO 4217: the currency of its rates, budget and spent amounts, its client's, else the tenant's", clientCurrency),
      select: withClient,
    }),
    hourlyRate: t.field({
      ...rateFieldBy<WithClient>("Billing rate per hour, after a project member's own.", (project) => project.hourlyRate, clientCurrency),
      select: withClient,
    }),
    budgetHours: t.expose('budgetHours', {
      type: 'Decimal',
      nullable: true,
      description: 'Budget in hours, per budget period',
      extensions: quantityExtensions,
    }),
    budgetAmount: t.field({
      ...rateFieldBy<WithClient>('Budget in billable amounts, per budget period.', (project) => project.budgetAmount, clientCurrency),
      select: withClient,
    }),
    budgetPeriod: t.expose('budgetPeriod', { type: graphqlEnum(budgetPeriod) }),
    spentMinutes: t.int({
      description: 'Minutes of finished entries in the current budget period (whatever their status; running timers are not spent yet)',
      resolve: async (project, _args, context) => (await spentOf(context, project)).minutes,
    }),
    spentAmount: t.field({
      ...rateFieldBy<WithClient>(
        "Billable amounts of finished entries in the current budget period, those in the project's currency (entries from before a change of currency keep theirs and are not added).",
        async (project, context) => (await spentOf(context, project)).amount,
        clientCurrency,
      ),
      select: withClient,
    }),
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
