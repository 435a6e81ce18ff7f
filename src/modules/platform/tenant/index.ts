import { defineModule } from '../../module.js';
import { tenantConflicts, createTenantService, type TenantService } from './tenant.service.js';
import './tenant.graphql.js';

/** Tenants: creation (superadmins), the caller's tenants, settings. */
export const tenantModule = defineModule({
  name: 'tenants',
  createService: createTenantService,
  tag: { name: 'Tenants', description: 'Tenants (organisations) and their settings' },
  conflicts: tenantConflicts,
  routes: [
    {
      controller: 'tenant',
      action: 'create',
      method: 'POST',
      path: '/tenants',
      field: 'Mutation.createTenant',
      status: 201,
      summary: 'Create a tenant (superadmin)',
    },
    { controller: 'tenant', action: 'findAll', method: 'GET', path: '/tenants', field: 'Query.tenants', status: 200, summary: "List the caller's tenants" },
    {
      controller: 'tenant',
      action: 'findOne',
      method: 'GET',
      path: '/tenants/{tenantId}',
      field: 'Query.tenant',
      status: 200,
      summary: 'Get a tenant and its settings',
    },
    {
      controller: 'tenant',
      action: 'update',
      method: 'PATCH',
      path: '/tenants/{tenantId}',
      field: 'Mutation.updateTenant',
      status: 200,
      summary: 'Change a tenant or its settings',
    },
  ],
});

declare module '../../services.js' {
  interface Services {
    tenants: TenantService;
  }
}
