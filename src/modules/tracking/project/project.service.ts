import { z } from 'zod';
import type { TenantAccess } from '../../../auth/tenant-access.js';
import type { Db, Tx } from '../../../db/client.js';
import type { Reads } from '../../../db/replicas.js';
import { newestFirst, tenantPage } from '../../../db/list.js';
import { shapesResult, type PrismaPageQuery, type PrismaQuery } from '../../../db/query.js';
import { fragment } from '../../../db/parameters.js';
import { recordEvent } from '../../../events/outbox.js';
import type { Prisma, Project } from '../../../generated/prisma/client.js';
import { BudgetPeriod, ProjectStatus } from '../../../generated/prisma/enums.js';
import type { Clock } from '../../../lib/clock.js';
import { args, dto, fields, pagination } from '../../../lib/dto.js';
import { conflictReasons, notFound, validationFailed } from '../../../lib/errors.js';
import { assertMoneyScale, currencyOfSettings } from '../../../lib/money.js';
import { defineEnum } from '../../../lib/vocabulary.js';
import { clientForWork } from '../client/client.service.js';
import { timezoneOf } from '../../platform/tenant/tenant.settings.js';
import { assertRatesFit } from '../../platform/tenant/tenant.rates.js';
import { spentOf, type Spent } from './project.budget.js';

/** Why a write to a project is refused with 409. */
export const projectConflicts = conflictReasons('Project', {
  CODE_TAKEN: { code: 'CONFLICT', description: 'Another project of the tenant has this code' },
  PROJECT_HAS_ENTRIES: { code: 'CONFLICT', description: 'The project has time entries and cannot be deleted; archive it instead (status: archived)' },
});

export const projectStatus = defineEnum('ProjectStatus', ProjectStatus);
export const budgetPeriod = defineEnum(
  'BudgetPeriod',
  BudgetPeriod,
  "Over which span the budget is counted: the project's whole life, or each calendar month in the tenant's time zone",
);

const name = z.string().trim().min(1).max(200).describe('Display name');
const code = z
  .string()
  .trim()
  .min(1)
  .max(32)
  .regex(/^[A-Za-z0-9._-]+$/, 'must be letters, digits, ".", "_" or "-"')
  .describe('Short code, unique in the tenant (e.g. "ACME-24")');
const description = z.string().trim().max(5000).describe('Free text');
const color = z
  .string()
  .regex(/^#[0-9a-fA-F]{6}$/, 'must be a colour like "#1e88e5"')
  .describe('Display colour, #rrggbb');
const money = (what: string) => fields.money(`${what}, in the project's currency (its client's, else the tenant's)`, { min: 0, max: 1_000_000_000 });
const hours = (what: string) => fields.decimal(what, { min: 0, max: 1_000_000_000 });
const clientId = fields.id('The client the work is for (its currency and rate apply)');

export const CreateProjectDto = dto('CreateProjectDto', 'A new project.', {
  name,
  code: code.optional(),
  clientId: clientId.optional(),
  description: description.optional(),
  color: color.optional(),
  billable: z.boolean().default(true).describe('Time on it is billable by default'),
  hourlyRate: money('Billing rate per hour; copied into entries, after a project member\u2019s own rate').optional(),
  budgetHours: hours('Budget in hours').optional(),
  budgetAmount: money('Budget in billable amounts').optional(),
  budgetPeriod: budgetPeriod.schema('Default `total`').default('total'),
  status: projectStatus.schema('`archived` projects take no new entries').default('active'),
});

export const UpdateProjectDto = dto('UpdateProjectDto', 'Changes to a project; null clears a field.', {
  name: name.optional(),
  code: code.nullable().optional(),
  clientId: clientId.nullable().optional(),
  description: description.nullable().optional(),
  color: color.nullable().optional(),
  billable: z.boolean().optional().describe('Time on it is billable by default'),
  hourlyRate: money('Billing rate per hour').nullable().optional(),
  budgetHours: hours('Budget in hours').nullable().optional(),
  budgetAmount: money('Budget in billable amounts').nullable().optional(),
  budgetPeriod: budgetPeriod.schema().optional(),
  status: projectStatus.schema('Archive a project instead of deleting it').optional(),
});

const tenantId = fields.id('Tenant id');
const projectId = fields.id('Project id');
const filters = {
  status: projectStatus.schema('Only projects with this status').optional(),
  clientId: fields.id("Only this client's projects").optional(),
};
export const ProjectFilterDto = dto('ProjectFilter', 'Which projects.', filters);
export const ListProjectsArgs = args({ tenantId, ...filters, ...pagination });
export const ProjectsConnectionArgs = args({ tenantId, filter: ProjectFilterDto.optional() });
export const ProjectArgs = args({ tenantId, id: projectId });
export const CreateProjectArgs = args({ tenantId, input: CreateProjectDto });
export const UpdateProjectArgs = args({ tenantId, id: projectId, input: UpdateProjectDto });

export type ProjectQuery = PrismaQuery<Prisma.ProjectInclude, Prisma.ProjectSelect>;
export type ProjectPageQuery = PrismaPageQuery<Prisma.ProjectInclude, Prisma.ProjectWhereUniqueInput>;
type ProjectFilter = z.output<typeof ProjectFilterDto>;

/** A project of the tenant that may take new work, or a 400 naming `path`. */
export async function projectForWork(tx: Tx | Db, access: TenantAccess, id: string, path: string) {
  const project = await tx.project.findFirst({ where: { id, ...access.scope('read', 'Project') }, select: { id: true, status: true, billable: true } });
  if (!project) throw validationFailed([{ path, message: 'is not a project of this tenant' }]);
  if (project.status === 'archived') throw validationFailed([{ path, message: 'is an archived project' }]);
  return project;
}

/** The currency of a project's rates and budget: its client's, else the tenant's. */
export function projectCurrency(access: TenantAccess, client: { currency: string } | null | undefined): string {
  return client?.currency ?? currencyOfSettings(access.tenant.settings);
}

/** The filter's conditions (the caller's scope is spread after them). */
const filterOf = (filter: ProjectFilter | undefined): Prisma.ProjectWhereInput => ({
  ...(filter?.status ? { status: filter.status } : {}),
  ...(filter?.clientId ? { clientId: filter.clientId } : {}),
});

/**
 * Projects: managers and admins manage them, everyone reads them. A project
 * with time on it is archived, never deleted (409), so that its entries keep it.
 */
export function createProjectService({ db, reads, clock }: { db: Db; reads: Reads; clock: Clock }) {
  async function findProject(tx: Tx | Db, access: TenantAccess, id: string): Promise<Project> {
    const project = await tx.project.findFirst({ where: { id, ...access.scope('read', 'Project') } });
    if (!project) throw notFound('Project', id);
    return project;
  }

  async function assertCodeFree(tx: Tx, access: TenantAccess, code: string | null | undefined, except?: string): Promise<void> {
    if (!code) return;
    const taken = await tx.project.findFirst({
      where: { code, ...(except ? { NOT: { id: except } } : {}), ...access.tenantWide('Project') },
      select: { id: true },
    });
    if (taken)
      throw projectConflicts.refuse('CODE_TAKEN', `Another project already has the code "${code}"`, {
        errors: [{ path: 'code', message: 'is already taken' }],
      });
  }

  const reread = (tx: Tx, id: string, query: ProjectQuery, row: Project) =>
    shapesResult(query) ? tx.project.findUniqueOrThrow({ ...query, where: { id } }) : row;

  return {
    /** The tenant's projects, newest first. */
    async list(access: TenantAccess, { limit, offset, ...filter }: z.output<typeof ListProjectsArgs>, query: ProjectQuery = {}): Promise<Project[]> {
      return reads.run(access, ({ db }) =>
        db.project.findMany({ ...query, ...tenantPage(access.scope('read', 'Project'), { limit, offset }, filterOf(filter)) }),
      );
    },

    /** What each project has spent in its current budget period: one statement for a page of projects. */
    async spent(access: TenantAccess, projects: readonly Pick<Project, 'id' | 'budgetPeriod'>[]): Promise<Map<string, Spent>> {
      access.assert('read', 'Project');
      // The guard read the tenant's settings with the tenant: the time zone costs no statement.
      const timezone = timezoneOf(access.tenant);
      return spentOf(db, access, timezone, projects, clock.now());
    },

    /**
     * The currency of each project's rates, budget and spent amount: its client's, null for one without a client (the
     * tenant's). One statement for a page of projects (or of a project's members).
     */
    async currencies(access: TenantAccess, ids: readonly string[]): Promise<Map<string, string | null>> {
      access.assert('read', 'Project');
      const rows = await db.$queryRaw<{ id: string; currency: string }[]>`
        SELECT p.id, c.currency FROM projects p JOIN clients c ON c.id = p."clientId"
         WHERE p.id = ANY(${[...ids]}::text[]) AND ${fragment((bind) => access.sqlScope('read', 'Project', 'p', bind))}`;
      const found = new Map(rows.map((row) => [row.id, row.currency]));
      return new Map(ids.map((id) => [id, found.get(id) ?? null]));
    },

    /** A page of projects for a Relay connection. */
    async page(access: TenantAccess, filter: ProjectFilter | undefined, query: ProjectPageQuery): Promise<Project[]> {
      return db.project.findMany({ ...query, where: { ...filterOf(filter), ...access.scope('read', 'Project') }, orderBy: newestFirst });
    },

    /** How many projects match, for a connection's totalCount. */
    async count(access: TenantAccess, filter: ProjectFilter | undefined): Promise<number> {
      return db.project.count({ where: { ...filterOf(filter), ...access.scope('read', 'Project') } });
    },

    /** One project. */
    async get(access: TenantAccess, id: string, query: ProjectQuery = {}): Promise<Project> {
      const project = await db.project.findFirst({ ...query, where: { id, ...access.scope('read', 'Project') } });
      if (!project) throw notFound('Project', id);
      return project;
    },

    /** Creates a project and records `project.created`. */
    async create(access: TenantAccess, data: z.output<typeof CreateProjectDto>, query: ProjectQuery = {}): Promise<Project> {
      access.assert('create', 'Project');
      return db.$transaction(async (tx) => {
        await assertCodeFree(tx, access, data.code);
        const client = data.clientId ? await clientForWork(tx, access, data.clientId, 'clientId') : null;
        const currency = projectCurrency(access, client);
        assertMoneyScale(currency, { hourlyRate: data.hourlyRate, budgetAmount: data.budgetAmount });
        const project = await tx.project.create({ data: access.stamp(data) });
        await recordEvent(tx, access, { type: 'project.created', subjectId: project.id, data: { ...project, currency } });
        return reread(tx, project.id, query, project);
      });
    },

    /**
     * Changes a project (archiving included) and records `project.updated`. Moved to a client of another currency (or
     * to none: the tenant's), its rates and budget keep their numbers, if they fit it (tenant.rates.ts).
     */
    async update(access: TenantAccess, id: string, data: z.output<typeof UpdateProjectDto>, query: ProjectQuery = {}): Promise<Project> {
      access.assert('update', 'Project');
      return db.$transaction(async (tx) => {
        const existing = await findProject(tx, access, id);
        await assertCodeFree(tx, access, data.code, id);
        const moved = data.clientId !== undefined && data.clientId !== existing.clientId;
        if (data.clientId) await clientForWork(tx, access, data.clientId, 'clientId');
        const { client, ...project } = await tx.project.update({ where: { id }, data, include: { client: { select: { currency: true } } } });
        // Checked as the project now is (in the transaction that a refusal rolls back): a rate changed with a move is the new one.
        const currency = projectCurrency(access, client);
        assertMoneyScale(currency, { hourlyRate: data.hourlyRate, budgetAmount: data.budgetAmount });
        if (moved) await assertRatesFit(tx, access, { kind: 'project', projectId: id }, currency, 'clientId');
        await recordEvent(tx, access, { type: 'project.updated', subjectId: id, data: { ...project, currency } });
        return reread(tx, id, query, project);
      });
    },

    /** Deletes a project without time on it (409 otherwise: archive it) and records `project.deleted`. */
    async remove(access: TenantAccess, id: string, query: ProjectQuery = {}): Promise<Project> {
      access.assert('delete', 'Project');
      return db.$transaction(async (tx) => {
        const found = await tx.project.findFirst({ where: { id, ...access.scope('read', 'Project') }, include: { client: { select: { currency: true } } } });
        if (!found) throw notFound('Project', id);
        const { client, ...existing } = found;
        const entries = await tx.entry.count({ where: { projectId: id, ...access.tenantWide('Entry') } });
        if (entries > 0) {
          throw projectConflicts.refuse(
            'PROJECT_HAS_ENTRIES',
            `The project has ${entries} time ${entries === 1 ? 'entry' : 'entries'}; archive it instead (status: archived)`,
          );
        }
        const deleted = await tx.project.delete({ ...query, where: { id } });
        await recordEvent(tx, access, { type: 'project.deleted', subjectId: id, data: { ...existing, currency: projectCurrency(access, client) } });
        return deleted;
      });
    },
  };
}

export type ProjectService = ReturnType<typeof createProjectService>;
