import type { z } from 'zod';
import type { TenantAccess } from '../../../auth/tenant-access.js';
import type { Db, Tx } from '../../../db/client.js';
import type { Reads } from '../../../db/replicas.js';
import { shapesResult, type PrismaQuery } from '../../../db/query.js';
import { recordEvent } from '../../../events/outbox.js';
import type { Prisma, ProjectMember } from '../../../generated/prisma/client.js';
import { args, dto, fields, pagination } from '../../../lib/dto.js';
import { conflictReasons, notFound } from '../../../lib/errors.js';
import { assertMoneyScale } from '../../../lib/money.js';
import { hourlyRate } from '../client/client.service.js';
import { projectCurrency } from '../project/project.service.js';
import { activeMember } from '../../platform/user/user.members.js';

/** Why a change to a project's members is refused with 409. */
export const projectMemberConflicts = conflictReasons('ProjectMember', {
  ALREADY_PROJECT_MEMBER: { code: 'CONFLICT', description: 'The person already works on this project; change their rate instead' },
});

const memberRate = hourlyRate("Billable rate on this project, before the project's own, in the project's currency");

export const AddProjectMemberDto = dto('AddProjectMemberDto', 'Someone who works on the project, with an optional billable rate.', {
  tenantUserId: fields.id('An active member of the tenant'),
  hourlyRate: memberRate.optional(),
});

export const UpdateProjectMemberDto = dto('UpdateProjectMemberDto', "Changes to a project member's rate; null clears it.", {
  hourlyRate: memberRate.nullable().optional(),
});

const tenantId = fields.id('Tenant id');
const projectId = fields.id('Project id');
const tenantUserId = fields.id('The tenantUserId of the project member');
export const ListProjectMembersArgs = args({ tenantId, projectId, ...pagination });
export const ProjectMemberArgs = args({ tenantId, projectId, tenantUserId });
export const AddProjectMemberArgs = args({ tenantId, projectId, input: AddProjectMemberDto });
export const UpdateProjectMemberArgs = args({ tenantId, projectId, tenantUserId, input: UpdateProjectMemberDto });

export type ProjectMemberQuery = PrismaQuery<Prisma.ProjectMemberInclude, Prisma.ProjectMemberSelect>;

/**
 * Who works on a project, and at what billable rate (the first the rate
 * hierarchy looks at). Managers and admins manage them; members read them.
 * A rate changed here applies to entries from now on, never to those made.
 */
export function createProjectMemberService({ db, reads }: { db: Db; reads: Reads }) {
  /** The project, in the caller's tenant, or 404: the currency of its members' rates. */
  async function findProject(tx: Tx | Db, access: TenantAccess, id: string): Promise<{ currency: string }> {
    const project = await tx.project.findFirst({
      where: { id, ...access.scope('read', 'Project') },
      select: { id: true, client: { select: { currency: true } } },
    });
    if (!project) throw notFound('Project', id);
    return { currency: projectCurrency(access, project.client) };
  }

  async function findMember(tx: Tx | Db, access: TenantAccess, project: string, member: string) {
    const { currency } = await findProject(tx, access, project);
    const found = await tx.projectMember.findFirst({ where: { projectId: project, tenantUserId: member, ...access.scope('read', 'ProjectMember') } });
    if (!found) throw notFound('Project member', member);
    return { found, currency };
  }

  const reread = (tx: Tx, id: string, query: ProjectMemberQuery, row: ProjectMember) =>
    shapesResult(query) ? tx.projectMember.findUniqueOrThrow({ ...query, where: { id } }) : row;

  return {
    /** The project's members, in the order they were added. */
    async list(access: TenantAccess, { projectId: project, limit, offset }: z.output<typeof ListProjectMembersArgs>, query: ProjectMemberQuery = {}) {
      const readable = access.scope('read', 'ProjectMember');
      await findProject(db, access, project);
      return reads.run(access, ({ db }) =>
        db.projectMember.findMany({
          ...query,
          where: { projectId: project, ...readable },
          orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
          take: limit,
          skip: offset,
        }),
      );
    },

    /** Adds an active member of the tenant to the project; records `project_member.added`. */
    async add(access: TenantAccess, project: string, data: z.output<typeof AddProjectMemberDto>, query: ProjectMemberQuery = {}): Promise<ProjectMember> {
      access.assert('create', 'ProjectMember');
      return db.$transaction(async (tx) => {
        const { currency } = await findProject(tx, access, project);
        assertMoneyScale(currency, { hourlyRate: data.hourlyRate });
        await activeMember(tx, access, data.tenantUserId, 'tenantUserId');
        const existing = await tx.projectMember.findFirst({ where: { projectId: project, tenantUserId: data.tenantUserId }, select: { id: true } });
        if (existing) {
          throw projectMemberConflicts.refuse('ALREADY_PROJECT_MEMBER', 'The person already works on this project', {
            errors: [{ path: 'tenantUserId', message: 'is already a member of this project' }],
          });
        }
        const member = await tx.projectMember.create({ data: access.stamp({ ...data, projectId: project }) });
        await recordEvent(tx, access, { type: 'project_member.added', subjectId: project, data: { ...member, currency } });
        return reread(tx, member.id, query, member);
      });
    },

    /** Changes a project member's rate (for entries from now on); records `project_member.updated`. */
    async update(
      access: TenantAccess,
      project: string,
      member: string,
      data: z.output<typeof UpdateProjectMemberDto>,
      query: ProjectMemberQuery = {},
    ): Promise<ProjectMember> {
      access.assert('update', 'ProjectMember');
      return db.$transaction(async (tx) => {
        const { found: existing, currency } = await findMember(tx, access, project, member);
        assertMoneyScale(currency, { hourlyRate: data.hourlyRate });
        const updated = await tx.projectMember.update({ where: { id: existing.id }, data });
        await recordEvent(tx, access, { type: 'project_member.updated', subjectId: project, data: { ...updated, currency } });
        return reread(tx, existing.id, query, updated);
      });
    },

    /** Takes someone off the project (their entries stay); records `project_member.removed`. */
    async remove(access: TenantAccess, project: string, member: string, query: ProjectMemberQuery = {}): Promise<ProjectMember> {
      access.assert('delete', 'ProjectMember');
      return db.$transaction(async (tx) => {
        const { found: existing, currency } = await findMember(tx, access, project, member);
        const removed = await tx.projectMember.delete({ ...query, where: { id: existing.id } });
        await recordEvent(tx, access, { type: 'project_member.removed', subjectId: project, data: { ...existing, currency } });
        return removed;
      });
    },
  };
}

export type ProjectMemberService = ReturnType<typeof createProjectMemberService>;
