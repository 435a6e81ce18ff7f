import { defineModule } from '../../module.js';
import { taskListsTag } from '../task-list/index.js';
import { createTaskService, type TaskService } from './task.service.js';
import './task.graphql.js';

const tasks = '/tenants/{tenantId}/task-lists/{taskListId}/tasks';

/** Tasks, inside their task lists (documented with them, under TaskLists). */
export const taskModule = defineModule({
  name: 'tasks',
  createService: createTaskService,
  tag: taskListsTag,
  routes: [
    {
      controller: 'taskList',
      action: 'findTasks',
      method: 'GET',
      path: tasks,
      field: 'Query.tasks',
      status: 200,
      summary: 'List the tasks of a task list, in list order',
    },
    {
      controller: 'taskList',
      action: 'createTask',
      method: 'POST',
      path: tasks,
      field: 'Mutation.createTask',
      status: 201,
      summary: 'Add a task to a task list',
    },
    {
      controller: 'taskList',
      action: 'updateTask',
      method: 'PATCH',
      path: `${tasks}/{taskId}`,
      field: 'Mutation.updateTask',
      status: 200,
      summary: 'Change a task (members: the status of their own tasks)',
    },
    {
      controller: 'taskList',
      action: 'removeTask',
      method: 'DELETE',
      path: `${tasks}/{taskId}`,
      field: 'Mutation.deleteTask',
      status: 204,
      summary: 'Delete a task',
    },
  ],
});

declare module '../../services.js' {
  interface Services {
    tasks: TaskService;
  }
}
