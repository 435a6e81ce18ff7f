import { defineModule } from '../../module.js';
import { adminConflicts, createAdminService, type AdminService } from './admin.service.js';
import './admin.graphql.js';

/** /admin: every tenant and user, suspension, superadmin rights, counts. Superadmins only. */
export const adminModule = defineModule({
  name: 'admin',
  createService: createAdminService,
  tag: { name: 'Admin', description: 'Superadmin operations' },
  conflicts: adminConflicts,
  routes: [
    {
      controller: 'admin',
      action: 'findTenants',
      method: 'GET',
      path: '/admin/tenants',
      field: 'Query.adminTenants',
      status: 200,
      summary: 'List every tenant, with counts',
    },
    {
      controller: 'admin',
      action: 'updateTenant',
      method: 'PATCH',
      path: '/admin/tenants/{tenantId}',
      field: 'Mutation.adminUpdateTenant',
      status: 200,
      summary: 'Suspend or restore a tenant',
    },
    { controller: 'admin', action: 'findUsers', method: 'GET', path: '/admin/users', field: 'Query.adminUsers', status: 200, summary: 'List every user' },
    {
      controller: 'admin',
      action: 'updateUser',
      method: 'PATCH',
      path: '/admin/users/{userId}',
      field: 'Mutation.adminUpdateUser',
      status: 200,
      summary: 'Grant or revoke superadmin',
    },
    { controller: 'admin', action: 'stats', method: 'GET', path: '/admin/stats', field: 'Query.adminStats', status: 200, summary: 'Counts across all tenants' },
  ],
});

declare module '../../services.js' {
  interface Services {
    admin: AdminService;
  }
}
