import { builder } from '../../../graphql/builder.js';
import { graphqlEnum } from '../../../graphql/inputs.js';
import { tenantOperation } from '../../../graphql/operations.js';
import { resourceFields } from '../../../graphql/resource-fields.js';
import { CreateTaskArgs, ListedTaskArgs, ListTasksArgs, TaskArgs, TasksConnectionArgs, taskStatus, UpdateTaskArgs, type TaskQuery } from './task.service.js';

builder.prismaObject('Task', {
  description: 'A task in a task list.',
  fields: (t) => ({
    id: t.exposeID('id'),
    tenantId: t.exposeID('tenantId'),
    taskListId: t.exposeID('taskListId'),
    taskList: t.relation('taskList'),
    title: t.exposeString('title'),
    description: t.exposeString('description', { nullable: true }),
    status: t.expose('status', { type: graphqlEnum(taskStatus) }),
    assigneeId: t.exposeID('assigneeId', { nullable: true, description: 'The tenantUserId it is assigned to' }),
    assignee: t.relation('assignee', { nullable: true }),
    dueDate: t.expose('dueDate', { type: 'Date', nullable: true }),
    estimateMinutes: t.exposeInt('estimateMinutes', { nullable: true }),
    position: t.exposeInt('position', { description: 'Order in its list (ascending)' }),
    completedAt: t.expose('completedAt', { type: 'DateTime', nullable: true, description: 'Set while the task is done' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

resourceFields('Task', {
  subject: 'Task',
  service: (services) => services.tasks,
  queries: {
    tasks: { list: ListTasksArgs, description: 'The tasks of one list, in list order.' },
    tasksConnection: {
      connection: TasksConnectionArgs,
      totalCount: true,
      description: "The tenant's tasks, in list order, as a Relay connection with a total count.",
    },
    task: { get: TaskArgs, description: 'One task.' },
  },
});

// Tasks are written through their list (`taskListId` beside the id), a shape of their own.
const createTask = tenantOperation(CreateTaskArgs, ['create', 'Task']);
const updateTask = tenantOperation(UpdateTaskArgs, ['update', 'Task']);
const deleteTask = tenantOperation(ListedTaskArgs, ['delete', 'Task']);

builder.mutationFields((t) => ({
  createTask: t.prismaField({
    type: 'Task',
    description: 'Adds a task to a list.',
    ...createTask.field(t),
    resolve: createTask.resolveQuery((input, access, query: TaskQuery, { services }) => services.tasks.create(access, input.taskListId, input.input, query)),
  }),
  updateTask: t.prismaField({
    type: 'Task',
    description: 'Changes a task; members change only the status of tasks assigned to them.',
    ...updateTask.field(t),
    resolve: updateTask.resolveQuery((input, access, query: TaskQuery, { services }) =>
      services.tasks.update(access, input.taskListId, input.id, input.input, query),
    ),
  }),
  deleteTask: t.prismaField({
    type: 'Task',
    description: 'Deletes a task. GraphQL returns the deleted task.',
    ...deleteTask.field(t),
    resolve: deleteTask.resolveQuery((input, access, query: TaskQuery, { services }) => services.tasks.remove(access, input.taskListId, input.id, query)),
  }),
}));
