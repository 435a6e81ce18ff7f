import { crud } from '../../../rest/route.js';
import { defineModule } from '../../module.js';
import { projectConflicts, createProjectService, type ProjectService } from './project.service.js';
import './project.graphql.js';

/** The Projects tag: projects, and who works on them (project-member). */
export const projectsTag = { name: 'Projects', description: 'Projects, their budgets, and who works on them' };

/** Projects: the work time is booked on. */
export const projectModule = defineModule({
  name: 'projects',
  createService: createProjectService,
  tag: projectsTag,
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

declare module '../../services.js' {
  interface Services {
    projects: ProjectService;
  }
}
