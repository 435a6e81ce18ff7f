import { builder } from '../../../graphql/builder.js';
import { plainOperation } from '../../../graphql/operations.js';
import { TenantRecord } from '../tenant/tenant.graphql.js';
import {
  AdminStatsArgs,
  ListAdminTenantsArgs,
  ListAdminUsersArgs,
  UpdateAdminTenantArgs,
  UpdateAdminUserArgs,
  type AdminStats,
  type AdminTenantQuery,
  type AdminUserQuery,
} from './admin.service.js';

const AdminTenant = builder.prismaObject('Tenant', {
  variant: 'AdminTenant',
  description: 'A tenant as superadmins see it, with counts.',
  interfaces: [TenantRecord],
  fields: (t) => ({
    memberCount: t.relationCount('users', { where: { status: 'active' }, description: 'Active members' }),
    apiKeyCount: t.relationCount('apiKeys', { where: { revokedAt: null }, description: 'API keys not revoked' }),
    noteCount: t.relationCount('notes'),
    entryCount: t.relationCount('entries'),
    invoiceCount: t.relationCount('invoices'),
  }),
});

builder.prismaObject('User', {
  description: 'A person who signed in (global, not per tenant).',
  fields: (t) => ({
    id: t.exposeID('id'),
    name: t.exposeString('name'),
    email: t.exposeString('email'),
    emailVerified: t.exposeBoolean('emailVerified', { description: 'The identity provider verified the address' }),
    image: t.exposeString('image', { nullable: true }),
    isSuperadmin: t.exposeBoolean('isSuperadmin'),
    membershipCount: t.relationCount('memberships', { where: { status: 'active' }, description: 'Active memberships' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

const AdminStatsObject = builder.objectRef<AdminStats>('AdminStats').implement({
  description: 'Counts across all tenants.',
  fields: (t) => ({
    tenants: t.exposeInt('tenants'),
    suspendedTenants: t.exposeInt('suspendedTenants'),
    users: t.exposeInt('users'),
    superadmins: t.exposeInt('superadmins'),
    activeSessions: t.exposeInt('activeSessions'),
    activeApiKeys: t.exposeInt('activeApiKeys'),
    notes: t.exposeInt('notes'),
    entries: t.exposeInt('entries'),
    invoices: t.exposeInt('invoices'),
    pendingEvents: t.exposeInt('pendingEvents', { description: 'Outbox events not yet fanned out' }),
    pendingWebhookDeliveries: t.exposeInt('pendingWebhookDeliveries'),
  }),
});

const listTenants = plainOperation(ListAdminTenantsArgs, 'superadmin');
const listUsers = plainOperation(ListAdminUsersArgs, 'superadmin');
const readStats = plainOperation(AdminStatsArgs, 'superadmin');
const updateTenant = plainOperation(UpdateAdminTenantArgs, 'superadmin');
const updateUser = plainOperation(UpdateAdminUserArgs, 'superadmin');

builder.queryFields((t) => ({
  adminTenants: t.prismaField({
    type: [AdminTenant],
    description: 'Every tenant, newest first, with counts. Superadmins only.',
    ...listTenants.field(t),
    resolve: listTenants.resolveQuery((input, actor, query: AdminTenantQuery, { services }) => services.admin.listTenants(actor, input, query)),
  }),
  adminUsers: t.prismaField({
    type: ['User'],
    description: 'Every user, newest first. Superadmins only.',
    ...listUsers.field(t),
    resolve: listUsers.resolveQuery((input, actor, query: AdminUserQuery, { services }) => services.admin.listUsers(actor, input, query)),
  }),
  adminStats: t.field({
    type: AdminStatsObject,
    description: 'Counts across all tenants. Superadmins only.',
    ...readStats.field(t),
    resolve: readStats.resolve((_input, actor, { services }) => services.admin.stats(actor)),
  }),
}));

builder.mutationFields((t) => ({
  adminUpdateTenant: t.prismaField({
    type: AdminTenant,
    description: 'Suspends or restores a tenant. Superadmins only.',
    ...updateTenant.field(t),
    resolve: updateTenant.resolveQuery((input, actor, query: AdminTenantQuery, { services }) =>
      services.admin.updateTenant(actor, input.tenantId, input.input, query),
    ),
  }),
  adminUpdateUser: t.prismaField({
    type: 'User',
    description: 'Grants or revokes superadmin rights; the last superadmin stays. Superadmins only.',
    ...updateUser.field(t),
    resolve: updateUser.resolveQuery((input, actor, query: AdminUserQuery, { services }) => services.admin.updateUser(actor, input.userId, input.input, query)),
  }),
}));
