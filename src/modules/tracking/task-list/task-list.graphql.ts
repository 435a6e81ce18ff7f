import { builder } from '../../../graphql/builder.js';
import { resourceFields } from '../../../graphql/resource-fields.js';
import { CreateTaskListArgs, ListTaskListsArgs, TaskListArgs, UpdateTaskListArgs } from './task-list.service.js';

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

resourceFields('TaskList', {
  subject: 'TaskList',
  service: (services) => services.taskLists,
  queries: {
    taskLists: { list: ListTaskListsArgs, description: "The tenant's task lists, newest first." },
    taskList: { get: TaskListArgs, description: 'One task list.' },
  },
  mutations: {
    createTaskList: { create: CreateTaskListArgs, description: 'Creates a task list.' },
    updateTaskList: { update: UpdateTaskListArgs, description: 'Changes a task list.' },
    deleteTaskList: { remove: TaskListArgs, description: 'Deletes a task list and its tasks. GraphQL returns the deleted list.' },
  },
});
