import { builder } from '../../graphql/builder.js';
import { tenantOperation } from '../../graphql/operations.js';
import { CreateTaskListArgs, ListTaskListsArgs, TaskListArgs, UpdateTaskListArgs, type TaskListQuery } from './task-list.service.js';

builder.prismaObject('TaskList', {
  description: 'An ordered list of tasks, of a project or on its own.',
  fields: (t) => ({
    id: t.exposeID('id'),
    tenantId: t.exposeID('tenantId'),
    name: t.exposeString('name'),
    description: t.exposeString('description', { nullable: true }),
    projectId: t.exposeID('projectId', { nullable: true }),
    project: t.relation('project', { nullable: true }),
    position: t.exposeInt('position', { description: 'Order among the task lists (ascending)' }),
    archived: t.exposeBoolean('archived'),
    // The same order as GET /task-lists/{taskListId}/tasks.
    tasks: t.relation('tasks', { description: 'Its tasks, in list order', query: { orderBy: [{ position: 'asc' }, { id: 'asc' }] } }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

builder.prismaObjectField('Project', 'taskLists', (t) =>
  t.relation('taskLists', { description: "The project's task lists, newest first", query: { orderBy: [{ createdAt: 'desc' }, { id: 'desc' }] } }),
);

const listTaskLists = tenantOperation(ListTaskListsArgs, ['read', 'TaskList']);
const readTaskList = tenantOperation(TaskListArgs, ['read', 'TaskList']);
const createTaskList = tenantOperation(CreateTaskListArgs, ['create', 'TaskList']);
const updateTaskList = tenantOperation(UpdateTaskListArgs, ['update', 'TaskList']);
const deleteTaskList = tenantOperation(TaskListArgs, ['delete', 'TaskList']);

builder.queryFields((t) => ({
  taskLists: t.prismaField({
    type: ['TaskList'],
    description: "The tenant's task lists, newest first.",
    ...listTaskLists.field(t),
    resolve: listTaskLists.resolveQuery((input, access, query: TaskListQuery, { services }) => services.taskLists.list(access, input, query)),
  }),
  taskList: t.prismaField({
    type: 'TaskList',
    description: 'One task list.',
    ...readTaskList.field(t),
    resolve: readTaskList.resolveQuery((input, access, query: TaskListQuery, { services }) => services.taskLists.get(access, input.id, query)),
  }),
}));

builder.mutationFields((t) => ({
  createTaskList: t.prismaField({
    type: 'TaskList',
    description: 'Creates a task list.',
    ...createTaskList.field(t),
    resolve: createTaskList.resolveQuery((input, access, query: TaskListQuery, { services }) =>
      services.taskLists.create(access, input.input, query),
    ),
  }),
  updateTaskList: t.prismaField({
    type: 'TaskList',
    description: 'Changes a task list.',
    ...updateTaskList.field(t),
    resolve: updateTaskList.resolveQuery((input, access, query: TaskListQuery, { services }) =>
      services.taskLists.update(access, input.id, input.input, query),
    ),
  }),
  deleteTaskList: t.prismaField({
    type: 'TaskList',
    description: 'Deletes a task list and its tasks. GraphQL returns the deleted list.',
    ...deleteTaskList.field(t),
    resolve: deleteTaskList.resolveQuery((input, access, query: TaskListQuery, { services }) =>
      services.taskLists.remove(access, input.id, query),
    ),
  }),
}));
