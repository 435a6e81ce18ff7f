import { z } from 'zod';
import type { TenantAccess } from '../../../auth/tenant-access.js';
import type { Db, Tx } from '../../../db/client.js';
import type { Reads } from '../../../db/replicas.js';
import type { PrismaPageQuery, PrismaQuery } from '../../../db/query.js';
import { shapesResult } from '../../../db/query.js';
import { recordEvent, withDays, type EventType } from '../../../events/outbox.js';
import type { Prisma, Task } from '../../../generated/prisma/client.js';
import { TaskStatus } from '../../../generated/prisma/enums.js';
import type { Clock } from '../../../lib/clock.js';
import { args, dto, fields, pagination } from '../../../lib/dto.js';
import { forbidden, notFound, validationFailed } from '../../../lib/errors.js';
import { defineEnum } from '../../../lib/vocabulary.js';
import { taskListOfTenant } from '../task-list/task-list.service.js';
import { activeMember } from '../../platform/user/user.members.js';
import { optionalDayColumn } from '../../../lib/day.js';

export const taskStatus = defineEnum('TaskStatus', TaskStatus);

const title = z.string().trim().min(1).max(500).describe('What is to be done');
const description = z.string().trim().max(10_000).describe('Free text');
const assigneeId = fields.id('The tenantUserId of the member it is assigned to (an active member)');
const dueDate = fields.date('When it is due');
const estimateMinutes = z.number().int().min(0).max(1_000_000).describe('Estimated effort in minutes');
const position = z.number().int().min(0).max(1_000_000).describe('Order in its list (ascending)');

export const CreateTaskDto = dto('CreateTaskDto', 'A new task in a task list.', {
  title,
  description: description.optional(),
  status: taskStatus.schema('`done` sets completedAt').default('open'),
  assigneeId: assigneeId.optional(),
  dueDate: dueDate.optional(),
  estimateMinutes: estimateMinutes.optional(),
  position: position.default(0),
});

export const UpdateTaskDto = dto('UpdateTaskDto', 'Changes to a task; null clears a field. Members may change only the status of tasks assigned to them.', {
  title: title.optional(),
  description: description.nullable().optional(),
  status: taskStatus.schema('Moving to `done` sets completedAt, leaving it clears it').optional(),
  assigneeId: assigneeId.nullable().optional(),
  dueDate: dueDate.nullable().optional(),
  estimateMinutes: estimateMinutes.nullable().optional(),
  position: position.optional(),
});

const tenantId = fields.id('Tenant id');
const taskListId = fields.id('Task list id');
const taskId = fields.id('Task id');
const filters = {
  status: taskStatus.schema('Only tasks with this status').optional(),
  assigneeId: fields.id('Only tasks assigned to this tenantUserId').optional(),
};
export const TaskFilterDto = dto('TaskFilter', 'Which tasks.', { taskListId: fields.id('Only the tasks of this list').optional(), ...filters });
export const ListTasksArgs = args({ tenantId, taskListId, ...filters, ...pagination });
export const TasksConnectionArgs = args({ tenantId, filter: TaskFilterDto.optional() });
export const TaskArgs = args({ tenantId, id: taskId });
export const ListedTaskArgs = args({ tenantId, taskListId, id: taskId });
export const CreateTaskArgs = args({ tenantId, taskListId, input: CreateTaskDto });
export const UpdateTaskArgs = args({ tenantId, taskListId, id: taskId, input: UpdateTaskDto });

export type TaskQuery = PrismaQuery<Prisma.TaskInclude, Prisma.TaskSelect>;
export type TaskPageQuery = PrismaPageQuery<Prisma.TaskInclude, Prisma.TaskWhereUniqueInput>;
type TaskFilter = z.output<typeof TaskFilterDto>;

/** Tasks in list order, as every task list shows them. */
export const listOrder: Prisma.TaskOrderByWithRelationInput[] = [{ position: 'asc' }, { id: 'asc' }];

/** `completedAt` follows `done`: set when a task gets there, cleared when it leaves. */
function completion(before: Task['status'] | undefined, after: Task['status'] | undefined, now: Date): { completedAt?: Date | null } {
  if (after === undefined || after === before) return {};
  return { completedAt: after === 'done' ? now : null };
}

/** The filter's conditions (the caller's scope is spread after them). */
const filterOf = (filter: TaskFilter | undefined): Prisma.TaskWhereInput => ({
  ...(filter?.taskListId ? { taskListId: filter.taskListId } : {}),
  ...(filter?.status ? { status: filter.status } : {}),
  ...(filter?.assigneeId ? { assigneeId: filter.assigneeId } : {}),
});

/**
 * Tasks inside task lists. Managers and admins manage them; members read
 * them and move the status of the tasks assigned to them, nothing else.
 */
export function createTaskService({ db, reads, clock }: { db: Db; reads: Reads; clock: Clock }) {
  async function findTask(tx: Tx | Db, access: TenantAccess, taskListId: string, id: string): Promise<Task> {
    await taskListOfTenant(tx, access, taskListId);
    const task = await tx.task.findFirst({ where: { id, taskListId, ...access.scope('read', 'Task') } });
    if (!task) throw notFound('Task', id);
    return task;
  }

  async function record(tx: Tx, access: TenantAccess, types: EventType[], task: Task): Promise<void> {
    // Its due date as the day it is.
    for (const type of types) await recordEvent(tx, access, { type, subjectId: task.id, data: withDays(task, ['dueDate']) });
  }

  const reread = (tx: Tx, id: string, query: TaskQuery, row: Task) => (shapesResult(query) ? tx.task.findUniqueOrThrow({ ...query, where: { id } }) : row);

  return {
    /** The tasks of one list, in list order. */
    async list(access: TenantAccess, { limit, offset, taskListId: list, ...filter }: z.output<typeof ListTasksArgs>, query: TaskQuery = {}): Promise<Task[]> {
      const readable = access.scope('read', 'Task');
      await taskListOfTenant(db, access, list);
      return reads.run(access, ({ db }) =>
        db.task.findMany({
          ...query,
          where: { ...filterOf({ ...filter, taskListId: list }), ...readable },
          orderBy: listOrder,
          take: limit,
          skip: offset,
        }),
      );
    },

    /** A page of the tenant's tasks for a Relay connection, in list order. */
    async page(access: TenantAccess, filter: TaskFilter | undefined, query: TaskPageQuery): Promise<Task[]> {
      return reads.run(access, ({ db }) => db.task.findMany({ ...query, where: { ...filterOf(filter), ...access.scope('read', 'Task') }, orderBy: listOrder }));
    },

    /** How many tasks match, for a connection's totalCount. */
    async count(access: TenantAccess, filter: TaskFilter | undefined): Promise<number> {
      return reads.run(access, ({ db }) => db.task.count({ where: { ...filterOf(filter), ...access.scope('read', 'Task') } }));
    },

    /** One task of the tenant. */
    async get(access: TenantAccess, id: string, query: TaskQuery = {}): Promise<Task> {
      const task = await db.task.findFirst({ ...query, where: { id, ...access.scope('read', 'Task') } });
      if (!task) throw notFound('Task', id);
      return task;
    },

    /** Adds a task to a list; records `task.created`, and `task.assigned` / `task.completed` when it starts so. */
    async create(access: TenantAccess, taskListId: string, data: z.output<typeof CreateTaskDto>, query: TaskQuery = {}): Promise<Task> {
      access.assert('create', 'Task');
      return db.$transaction(async (tx) => {
        await taskListOfTenant(tx, access, taskListId);
        if (data.assigneeId) await activeMember(tx, access, data.assigneeId, 'assigneeId');
        const task = await tx.task.create({
          data: access.stamp({
            ...data,
            dueDate: optionalDayColumn(data.dueDate),
            taskListId,
            ...(data.status === 'done' ? { completedAt: clock.now() } : {}),
          }),
        });
        await record(
          tx,
          access,
          ['task.created', ...(task.assigneeId ? (['task.assigned'] as const) : []), ...(task.status === 'done' ? (['task.completed'] as const) : [])],
          task,
        );
        return reread(tx, task.id, query, task);
      });
    },

    /**
     * Changes a task. A member may change only `status`, and only on a task
     * assigned to them (403 otherwise). Records `task.updated`, and
     * `task.assigned` / `task.completed` when those change.
     */
    async update(access: TenantAccess, taskListId: string, id: string, data: z.output<typeof UpdateTaskDto>, query: TaskQuery = {}): Promise<Task> {
      access.assert('update', 'Task');
      return db.$transaction(async (tx) => {
        const existing = await findTask(tx, access, taskListId, id);
        access.assertMayChange('update', 'Task', existing);
        if (!access.canAny('update', 'Task')) {
          // Who may change only their own tasks changes only their status.
          const others = Object.keys(data).filter((key) => key !== 'status');
          if (others.length > 0) throw forbidden(`Members may change only the status of their tasks, not ${others.join(', ')}`);
        }
        if (data.assigneeId) await activeMember(tx, access, data.assigneeId, 'assigneeId');
        const task = await tx.task.update({
          where: { id },
          data: { ...data, dueDate: optionalDayColumn(data.dueDate), ...completion(existing.status, data.status, clock.now()) },
        });
        const assigned = task.assigneeId !== null && task.assigneeId !== existing.assigneeId;
        const completed = task.status === 'done' && existing.status !== 'done';
        await record(
          tx,
          access,
          ['task.updated', ...(assigned ? (['task.assigned'] as const) : []), ...(completed ? (['task.completed'] as const) : [])],
          task,
        );
        return reread(tx, id, query, task);
      });
    },

    /** Deletes a task (its entries keep their time, without the task) and records `task.deleted`. */
    async remove(access: TenantAccess, taskListId: string, id: string, query: TaskQuery = {}): Promise<Task> {
      access.assert('delete', 'Task');
      return db.$transaction(async (tx) => {
        const existing = await findTask(tx, access, taskListId, id);
        const deleted = await tx.task.delete({ ...query, where: { id } });
        await record(tx, access, ['task.deleted'], existing);
        return deleted;
      });
    },
  };
}

/** A task of the tenant that an entry may be booked on, or a 400 naming `path`. */
export async function taskForWork(tx: Tx | Db, access: TenantAccess, id: string, path: string) {
  const task = await tx.task.findFirst({ where: { id, ...access.scope('read', 'Task') }, select: { id: true, taskList: { select: { projectId: true } } } });
  if (!task) throw validationFailed([{ path, message: 'is not a task of this tenant' }]);
  return { id: task.id, projectId: task.taskList.projectId };
}

export type TaskService = ReturnType<typeof createTaskService>;
