import { actorOf } from '../../graphql/context.js';
import { builder } from '../../graphql/builder.js';
import { graphqlEnum, plainOperation, tenantOperation } from '../../graphql/inputs.js';
import type { Tenant } from '../../generated/prisma/client.js';
import { args, fields } from '../../lib/dto.js';
import { CreateTenantDto, ListTenantsArgs, settingsOf, UpdateTenantDto, type TenantSettings } from './tenant.service.js';

const TenantStatusEnum = graphqlEnum('TenantStatus', ['active', 'suspended']);
const WeekStartEnum = graphqlEnum('WeekStart', ['monday', 'sunday', 'saturday']);

const TenantSettingsObject = builder.objectRef<TenantSettings>('TenantSettings').implement({
  description: 'How a tenant tracks time.',
  fields: (t) => ({
    timezone: t.exposeString('timezone', { description: 'IANA time zone' }),
    currency: t.exposeString('currency', { description: 'ISO 4217 currency code' }),
    weekStart: t.expose('weekStart', { type: WeekStartEnum }),
    approvalRequired: t.exposeBoolean('approvalRequired', { description: 'Entries must be submitted and approved' }),
    lockedUntil: t.expose('lockedUntil', { type: 'Date', nullable: true, description: 'Entries on or before this date are read-only' }),
    preventOverlap: t.exposeBoolean('preventOverlap', { description: 'Overlapping entries of one member are refused' }),
    roundingMinutes: t.exposeInt('roundingMinutes', { description: 'Durations are rounded to this many minutes (0: none)' }),
  }),
});

/** The fields of a tenant, shared by `Tenant` and the superadmins' `AdminTenant`. */
export const TenantRecord = builder.interfaceRef<Tenant>('TenantRecord').implement({
  description: 'What every view of a tenant shows.',
  fields: (t) => ({
    id: t.exposeID('id'),
    name: t.exposeString('name'),
    slug: t.exposeString('slug', { description: 'Unique short name' }),
    status: t.expose('status', { type: TenantStatusEnum, description: 'A suspended tenant answers 403 TENANT_SUSPENDED' }),
    settings: t.field({ type: TenantSettingsObject, resolve: (tenant) => settingsOf(tenant) }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

builder.prismaObject('Tenant', {
  description: 'An organisation: its members, projects and time live inside it.',
  interfaces: [TenantRecord],
  fields: () => ({}),
});

const tenantId = fields.id('Tenant id');

builder.queryFields((t) => ({
  tenants: t.prismaField({
    type: ['Tenant'],
    description: "The caller's tenants, newest first: all of them for a superadmin, its own for an API key.",
    ...plainOperation(t, ListTenantsArgs),
    resolve: (query, _root, input, context) => context.services.tenants.list(actorOf(context), input, query),
  }),
  tenant: t.prismaField({
    type: 'Tenant',
    description: 'One tenant, with its settings.',
    ...tenantOperation(t, args({ tenantId }), ['read', 'Tenant']),
    resolve: async (query, _root, input, context) =>
      context.services.tenants.get(await context.tenantAccess(input.tenantId), query),
  }),
}));

builder.mutationFields((t) => ({
  createTenant: t.prismaField({
    type: 'Tenant',
    description: 'Creates a tenant, optionally inviting its owner. Superadmins only.',
    ...plainOperation(t, args({ input: CreateTenantDto }), 'superadmin'),
    resolve: (query, _root, input, context) => context.services.tenants.create(actorOf(context), input.input, query),
  }),
  updateTenant: t.prismaField({
    type: 'Tenant',
    description: 'Renames a tenant or changes its settings.',
    ...tenantOperation(t, args({ tenantId, input: UpdateTenantDto }), ['update', 'Tenant']),
    resolve: async (query, _root, input, context) =>
      context.services.tenants.update(await context.tenantAccess(input.tenantId), input.input, query),
  }),
}));
