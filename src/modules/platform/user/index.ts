import { crud } from '../../../rest/route.js';
import { defineModule } from '../../module.js';
import { userConflicts, createUserService, type UserService } from './user.service.js';
import './user.graphql.js';

/** Members of a tenant: invitations, roles, rates, and the caller's own membership (`users/me`). */
export const userModule = defineModule({
  name: 'users',
  createService: createUserService,
  tag: { name: 'Users', description: 'Members of a tenant, their roles and rates' },
  conflicts: userConflicts,
  routes: crud(
    'user',
    '/tenants/{tenantId}/users',
    'tenantUserId',
    { one: 'member', many: 'members' },
    {
      list: { field: 'Query.users', summary: 'List members' },
      create: { field: 'Mutation.inviteUser', summary: 'Invite a person by e-mail' },
      get: 'Query.user',
      update: { field: 'Mutation.updateUser', summary: "Change a member's role, status or rates" },
      remove: { field: 'Mutation.removeUser', summary: 'Remove a member' },
      // `users/me` right after the list, before `users/{tenantUserId}`, as the document lists them.
    },
  ).toSpliced(1, 0, {
    controller: 'user',
    action: 'findMe',
    method: 'GET',
    path: '/tenants/{tenantId}/users/me',
    field: 'Query.me',
    status: 200,
    summary: 'The caller: member record, role and permissions',
  }),
});

declare module '../../services.js' {
  interface Services {
    users: UserService;
  }
}
