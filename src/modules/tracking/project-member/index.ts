import { defineModule } from '../../module.js';
import { projectsTag } from '../project/index.js';
import { createProjectMemberService, projectMemberConflicts, type ProjectMemberService } from './project-member.service.js';
import './project-member.graphql.js';

const members = '/tenants/{tenantId}/projects/{projectId}/members';

/** Who works on a project and at what rate (documented with projects, under Projects). */
export const projectMemberModule = defineModule({
  name: 'projectMembers',
  createService: createProjectMemberService,
  tag: projectsTag,
  conflicts: projectMemberConflicts,
  routes: [
    {
      controller: 'project',
      action: 'findMembers',
      method: 'GET',
      path: members,
      field: 'Query.projectMembers',
      status: 200,
      summary: "List a project's members and their rates",
    },
    {
      controller: 'project',
      action: 'addMember',
      method: 'POST',
      path: members,
      field: 'Mutation.addProjectMember',
      status: 201,
      summary: 'Add an active member of the tenant to a project, with an optional rate',
    },
    {
      controller: 'project',
      action: 'updateMember',
      method: 'PATCH',
      path: `${members}/{tenantUserId}`,
      field: 'Mutation.updateProjectMember',
      status: 200,
      summary: "Change a project member's rate (for entries from now on)",
    },
    {
      controller: 'project',
      action: 'removeMember',
      method: 'DELETE',
      path: `${members}/{tenantUserId}`,
      field: 'Mutation.removeProjectMember',
      status: 204,
      summary: 'Take someone off a project (their entries stay)',
    },
  ],
});

declare module '../../services.js' {
  interface Services {
    projectMembers: ProjectMemberService;
  }
}
