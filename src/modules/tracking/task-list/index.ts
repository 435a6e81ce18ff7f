import { crud, type RouteTag } from '../../../rest/route.js';
import { defineModule } from '../../module.js';
import { createTaskListService, type TaskListService } from './task-list.service.js';
import './task-list.graphql.js';

/** The tag of task lists and their tasks (the task module's rows are documented with them). */
export const taskListsTag: RouteTag = { name: 'TaskLists', description: 'Task lists and their tasks' };

/** Task lists; their tasks are the task module, under the same path. */
export const taskListModule = defineModule({
  name: 'taskLists',
  createService: createTaskListService,
  tag: taskListsTag,
  routes: crud(
    'taskList',
    '/tenants/{tenantId}/task-lists',
    'taskListId',
    { one: 'task list', many: 'task lists' },
    {
      list: 'Query.taskLists',
      create: 'Mutation.createTaskList',
      get: 'Query.taskList',
      update: 'Mutation.updateTaskList',
      remove: { field: 'Mutation.deleteTaskList', summary: 'Delete a task list and its tasks' },
    },
  ),
});

declare module '../../services.js' {
  interface Services {
    taskLists: TaskListService;
  }
}
