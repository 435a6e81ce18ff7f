import { actorOf } from '../../graphql/context.js';
import { builder } from '../../graphql/builder.js';
import { plainOperation } from '../../graphql/inputs.js';
import { args, fields } from '../../lib/dto.js';
import { TenantRecord } from '../tenant/tenant.graphql.js';
import {
  ListAdminTenantsArgs,
  ListAdminUsersArgs,
  UpdateAdminTenantDto,
  UpdateAdminUserDto,
  type AdminStats,
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

builder.queryFields((t) => ({
  adminTenants: t.prismaField({
    type: [AdminTenant],
    description: 'Every tenant, newest first, with counts. Superadmins only.',
    ...plainOperation(t, ListAdminTenantsArgs, 'superadmin'),
    resolve: (query, _root, input, context) => context.services.admin.listTenants(actorOf(context), input, query),
  }),
  adminUsers: t.prismaField({
    type: ['User'],
    description: 'Every user, newest first. Superadmins only.',
    ...plainOperation(t, ListAdminUsersArgs, 'superadmin'),
    resolve: (query, _root, input, context) => context.services.admin.listUsers(actorOf(context), input, query),
  }),
  adminStats: t.field({
    type: AdminStatsObject,
    description: 'Counts across all tenants. Superadmins only.',
    ...plainOperation(t, args({}), 'superadmin'),
    resolve: (_root, _input, context) => context.services.admin.stats(actorOf(context)),
  }),
}));

builder.mutationFields((t) => ({
  adminUpdateTenant: t.prismaField({
    type: AdminTenant,
    description: 'Suspends or restores a tenant. Superadmins only.',
    ...plainOperation(t, args({ tenantId: fields.id('Tenant id'), input: UpdateAdminTenantDto }), 'superadmin'),
    resolve: (query, _root, input, context) =>
      context.services.admin.updateTenant(actorOf(context), input.tenantId, input.input, query),
  }),
  adminUpdateUser: t.prismaField({
    type: 'User',
    description: 'Grants or revokes superadmin rights; the last superadmin stays. Superadmins only.',
    ...plainOperation(t, args({ userId: fields.id('User id'), input: UpdateAdminUserDto }), 'superadmin'),
    resolve: (query, _root, input, context) =>
      context.services.admin.updateUser(actorOf(context), input.userId, input.input, query),
  }),
}));
