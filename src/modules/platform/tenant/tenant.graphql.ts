import { builder } from '../../../graphql/builder.js';
import { graphqlEnum } from '../../../graphql/inputs.js';
import { plainOperation, tenantOperation } from '../../../graphql/operations.js';
import type { Tenant } from '../../../generated/prisma/client.js';
import { enums } from '../../../lib/enums.js';
import { rateField } from '../../../graphql/rates.js';
import { WeekMinutesObject } from './week-minutes.graphql.js';
import { CreateTenantArgs, ListTenantsArgs, TenantArgs, UpdateTenantArgs, type TenantQuery } from './tenant.service.js';
import { settingsOf, type TenantSettings } from './tenant.settings.js';

const TenantSettingsObject = builder.objectRef<TenantSettings & { tenantId: string }>('TenantSettings').implement({
  description: 'How a tenant tracks time.',
  fields: (t) => ({
    timezone: t.exposeString('timezone', { description: 'IANA time zone' }),
    currency: t.exposeString('currency', { description: 'ISO 4217 currency code' }),
    weekStart: t.expose('weekStart', { type: graphqlEnum(enums.WeekStart) }),
    approvalRequired: t.exposeBoolean('approvalRequired', { description: 'Entries must be submitted and approved (default true; false: submitting approves)' }),
    lockedUntil: t.expose('lockedUntil', { type: 'Date', nullable: true, description: 'Entries on or before this date are read-only' }),
    preventOverlap: t.exposeBoolean('preventOverlap', { description: 'Overlapping entries of one member are refused' }),
    roundingMinutes: t.exposeInt('roundingMinutes', { description: 'Durations are rounded to this many minutes (0: none)' }),
    defaultHourlyRate: t.field(
      rateField<'defaultHourlyRate', TenantSettings & { tenantId: string }>(
        'defaultHourlyRate',
        'Billable rate per hour when no project member, project, client or member rate is set, in the tenant’s currency.',
      ),
    ),
    membersSeeRates: t.exposeBoolean('membersSeeRates', { description: 'Members see rates and amounts (otherwise they read null)' }),
    defaultWorkSchedule: t.field({
      type: WeekMinutesObject,
      description: 'Expected minutes per weekday of members without a work schedule of their own',
      resolve: (settings) => settings.defaultWorkSchedule,
    }),
    holidayRegion: t.exposeString('holidayRegion', {
      nullable: true,
      description: 'Public holidays of this date-holidays region (DE-BY) reduce expected time',
    }),
    balanceCapMinutes: t.exposeInt('balanceCapMinutes', {
      nullable: true,
      description: 'Time balances above this many minutes are flagged; an overtime account crossing it notifies the member and the admins',
    }),
    workingTimeRules: t.expose('workingTimeRules', {
      type: graphqlEnum(enums.WorkingTimeRuleSet),
      description: 'The working-time law days are checked against (unless chosen: de when the holiday region is in DE, else eu)',
    }),
    deductStatutoryBreaks: t.exposeBoolean('deductStatutoryBreaks', {
      description: "A day's worked minutes lose what its breaks lack of the statutory minimum (balance, timesheets; never billable amounts)",
    }),
  }),
});

/** The fields of a tenant, shared by `Tenant` and the superadmins' `AdminTenant`. */
export const TenantRecord = builder.interfaceRef<Tenant>('TenantRecord').implement({
  description: 'What every view of a tenant shows.',
  fields: (t) => ({
    id: t.exposeID('id'),
    name: t.exposeString('name'),
    slug: t.exposeString('slug', { description: 'Unique short name' }),
    status: t.expose('status', { type: graphqlEnum(enums.TenantStatus), description: 'A suspended tenant answers 403 TENANT_SUSPENDED' }),
    settings: t.field({ type: TenantSettingsObject, resolve: (tenant) => ({ ...settingsOf(tenant), tenantId: tenant.id }) }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

builder.prismaObject('Tenant', {
  description: 'An organisation: its members, projects and time live inside it.',
  interfaces: [TenantRecord],
  fields: () => ({}),
});

const listTenants = plainOperation(ListTenantsArgs);
const readTenant = tenantOperation(TenantArgs, ['read', 'Tenant']);
const createTenant = plainOperation(CreateTenantArgs, 'superadmin');
const updateTenant = tenantOperation(UpdateTenantArgs, ['update', 'Tenant']);

builder.queryFields((t) => ({
  tenants: t.prismaField({
    type: ['Tenant'],
    description: "The caller's tenants, newest first: all of them for a superadmin, its own for an API key.",
    ...listTenants.field(t),
    resolve: listTenants.resolveQuery((input, actor, query: TenantQuery, { services }) => services.tenants.list(actor, input, query)),
  }),
  tenant: t.prismaField({
    type: 'Tenant',
    description: 'One tenant, with its settings.',
    ...readTenant.field(t),
    resolve: readTenant.resolveQuery((_input, access, query: TenantQuery, { services }) => services.tenants.get(access, query)),
  }),
}));

builder.mutationFields((t) => ({
  createTenant: t.prismaField({
    type: 'Tenant',
    description: 'Creates a tenant, optionally inviting its owner. Superadmins only.',
    ...createTenant.field(t),
    resolve: createTenant.resolveQuery((input, actor, query: TenantQuery, { services }) => services.tenants.create(actor, input.input, query)),
  }),
  updateTenant: t.prismaField({
    type: 'Tenant',
    description: 'Renames a tenant or changes its settings.',
    ...updateTenant.field(t),
    resolve: updateTenant.resolveQuery((input, access, query: TenantQuery, { services }) => services.tenants.update(access, input.input, query)),
  }),
}));
