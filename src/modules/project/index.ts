import { crud } from '../../rest/route.js';
import { defineModule } from '../module.js';
import { projectConflicts, createProjectService, type ProjectService } from './project.service.js';
import './project.graphql.js';

/** Projects: the work time is booked on. */
export const projectModule = defineModule({
  name: 'projects',
  createService: createProjectService,
  tag: { name: 'Projects', description: 'Projects' },
  conflicts: projectConflicts,
  routes: crud(
    'project',
    '/tenants/{tenantId}/projects',
    'projectId',
    { one: 'project', many: 'projects' },
    {
      list: 'Query.projects',
      create: 'Mutation.createProject',
      get: 'Query.project',
      update: 'Mutation.updateProject',
      remove: { field: 'Mutation.deleteProject', summary: 'Delete a project without time on it (archive it otherwise)' },
    },
  ),
});

declare module '../services.js' {
  interface Services {
    projects: ProjectService;
  }
}
