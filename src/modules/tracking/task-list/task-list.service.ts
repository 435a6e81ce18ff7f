import { z } from 'zod';
import type { TenantAccess } from '../../../auth/tenant-access.js';
import type { Db, Tx } from '../../../db/client.js';
import type { Reads } from '../../../db/replicas.js';
import { tenantPage } from '../../../db/list.js';
import { shapesResult, type PrismaQuery } from '../../../db/query.js';
import { recordEvent } from '../../../events/outbox.js';
import type { Prisma, TaskList } from '../../../generated/prisma/client.js';
import { args, dto, fields, pagination } from '../../../lib/dto.js';
import { notFound, validationFailed } from '../../../lib/errors.js';

const name = z.string().trim().min(1).max(200).describe('Display name');
const description = z.string().trim().max(5000).describe('Free text');
const position = z.number().int().min(0).max(1_000_000).describe('Order among the task lists (ascending)');
const projectId = fields.id('The project the list belongs to');

export const CreateTaskListDto = dto('CreateTaskListDto', 'A new task list.', {
  name,
  description: description.optional(),
  projectId: projectId.optional(),
  position: position.default(0),
  archived: z.boolean().default(false).describe('Archived lists are kept but hidden by clients'),
});

export const UpdateTaskListDto = dto('UpdateTaskListDto', 'Changes to a task list; null clears a field.', {
  name: name.optional(),
  description: description.nullable().optional(),
  projectId: projectId.nullable().optional(),
  position: position.optional(),
  archived: z.boolean().optional().describe('Archive or restore the list'),
});

const tenantId = fields.id('Tenant id');
const taskListId = fields.id('Task list id');
export const ListTaskListsArgs = args({
  tenantId,
  projectId: fields.id('Only the lists of this project').optional(),
  archived: z.boolean().optional().describe('Only archived (true) or only current (false) lists'),
  ...pagination,
});
export const TaskListArgs = args({ tenantId, id: taskListId });
export const CreateTaskListArgs = args({ tenantId, input: CreateTaskListDto });
export const UpdateTaskListArgs = args({ tenantId, id: taskListId, input: UpdateTaskListDto });

export type TaskListQuery = PrismaQuery<Prisma.TaskListInclude, Prisma.TaskListSelect>;

/** A task list of the tenant, or 404 (the `{taskListId}` of a task route names it). */
export async function taskListOfTenant(tx: Tx | Db, access: TenantAccess, id: string): Promise<TaskList> {
  const list = await tx.taskList.findFirst({ where: { id, ...access.scope('read', 'TaskList') } });
  if (!list) throw notFound('Task list', id);
  return list;
}

async function assertProject(tx: Tx, access: TenantAccess, projectId: string | null | undefined): Promise<void> {
  if (!projectId) return;
  const project = await tx.project.findFirst({ where: { id: projectId, ...access.scope('read', 'Project') }, select: { id: true } });
  if (!project) throw validationFailed([{ path: 'projectId', message: 'is not a project of this tenant' }]);
}

/** Task lists: managers and admins manage them, everyone reads them. Deleting one deletes its tasks. */
export function createTaskListService({ db, reads }: { db: Db; reads: Reads }) {
  const reread = (tx: Tx, id: string, query: TaskListQuery, row: TaskList) =>
    shapesResult(query) ? tx.taskList.findUniqueOrThrow({ ...query, where: { id } }) : row;

  return {
    /** The tenant's task lists, newest first. */
    async list(access: TenantAccess, { limit, offset, projectId: project, archived }: z.output<typeof ListTaskListsArgs>, query: TaskListQuery = {}) {
      const where = { ...(project ? { projectId: project } : {}), ...(archived === undefined ? {} : { archived }) };
      return reads.run(access, ({ db }) => db.taskList.findMany({ ...query, ...tenantPage(access.scope('read', 'TaskList'), { limit, offset }, where) }));
    },

    /** One task list. */
    async get(access: TenantAccess, id: string, query: TaskListQuery = {}): Promise<TaskList> {
      const list = await db.taskList.findFirst({ ...query, where: { id, ...access.scope('read', 'TaskList') } });
      if (!list) throw notFound('Task list', id);
      return list;
    },

    /** Creates a task list and records `task_list.created`. */
    async create(access: TenantAccess, data: z.output<typeof CreateTaskListDto>, query: TaskListQuery = {}): Promise<TaskList> {
      access.assert('create', 'TaskList');
      return db.$transaction(async (tx) => {
        await assertProject(tx, access, data.projectId);
        const list = await tx.taskList.create({ data: access.stamp(data) });
        await recordEvent(tx, access, { type: 'task_list.created', subjectId: list.id, data: list });
        return reread(tx, list.id, query, list);
      });
    },

    /** Changes a task list and records `task_list.updated`. */
    async update(access: TenantAccess, id: string, data: z.output<typeof UpdateTaskListDto>, query: TaskListQuery = {}): Promise<TaskList> {
      access.assert('update', 'TaskList');
      return db.$transaction(async (tx) => {
        await taskListOfTenant(tx, access, id);
        await assertProject(tx, access, data.projectId);
        const list = await tx.taskList.update({ where: { id }, data });
        await recordEvent(tx, access, { type: 'task_list.updated', subjectId: id, data: list });
        return reread(tx, id, query, list);
      });
    },

    /** Deletes a task list with its tasks (their entries keep their time, without the task) and records `task_list.deleted`. */
    async remove(access: TenantAccess, id: string, query: TaskListQuery = {}): Promise<TaskList> {
      access.assert('delete', 'TaskList');
      return db.$transaction(async (tx) => {
        const existing = await taskListOfTenant(tx, access, id);
        const deleted = await tx.taskList.delete({ ...query, where: { id } });
        await recordEvent(tx, access, { type: 'task_list.deleted', subjectId: id, data: existing });
        return deleted;
      });
    },
  };
}

export type TaskListService = ReturnType<typeof createTaskListService>;
