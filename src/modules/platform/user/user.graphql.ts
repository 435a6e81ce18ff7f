import { actionEnum, subjectEnum, type Grant } from '../../../auth/permissions.js';
import { builder } from '../../../graphql/builder.js';
import { graphqlEnum } from '../../../graphql/inputs.js';
import { tenantOperation } from '../../../graphql/operations.js';
import { currencyField, rateField, rateFieldBy, tenantCurrency } from '../../../graphql/rates.js';
import type { TenantUser } from '../../../generated/prisma/client.js';
import { enums } from '../../../lib/enums.js';
import { InviteUserArgs, ListUsersArgs, TenantArgs, UpdateUserArgs, UserArgs, type Membership, type TenantUserQuery } from './user.service.js';

const RoleEnum = graphqlEnum(enums.TenantRole);
const MemberStatusEnum = graphqlEnum(enums.TenantUserStatus);
const ActorTypeEnum = graphqlEnum(enums.ActorType);
const ActionEnum = graphqlEnum(actionEnum);
const SubjectEnum = graphqlEnum(subjectEnum);

builder.prismaObject('TenantUser', {
  description: "A person's membership of a tenant; its id is the `tenantUserId`.",
  fields: (t) => ({
    id: t.exposeID('id'),
    tenantId: t.exposeID('tenantId'),
    userId: t.exposeID('userId', { nullable: true, description: 'The signed-in user; null while invited' }),
    email: t.exposeString('email'),
    name: t.exposeString('name', { nullable: true }),
    role: t.expose('role', { type: RoleEnum }),
    status: t.expose('status', { type: MemberStatusEnum }),
    hourlyRate: t.field(
      rateField<'hourlyRate', TenantUser>('hourlyRate', "Billable rate per hour, after the project member's, project's and client's.", tenantCurrency),
    ),
    costRate: t.field(rateField<'costRate', TenantUser>('costRate', "Cost rate per hour, copied onto the member's entries.", tenantCurrency)),
    currency: t.field(currencyField<TenantUser>("ISO 4217: the currency of the member's own rates, the tenant's", () => null)),
    holidayRegion: t.exposeString('holidayRegion', { nullable: true, description: "The member's own public-holiday region (DE-BY); null: the tenant's" }),
    employmentStart: t.expose('employmentStart', {
      type: 'Date',
      nullable: true,
      description: 'The first day of employment: nothing is expected before it, vacation is pro rata from it; null: from the membership',
    }),
    employmentEnd: t.expose('employmentEnd', {
      type: 'Date',
      nullable: true,
      description: 'The last day of employment: nothing is expected after it, vacation is pro rata up to it; null: open-ended',
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

const PermissionObject = builder.objectRef<Grant>('Permission').implement({
  description: 'A granted (action, subject) pair; `own` limits it to the caller\u2019s own records.',
  fields: (t) => ({
    action: t.expose('action', { type: ActionEnum }),
    subject: t.expose('subject', { type: SubjectEnum }),
    own: t.exposeBoolean('own'),
  }),
});

const memberField = <Key extends keyof TenantUser>(membership: Membership, key: Key): TenantUser[Key] | null =>
  membership.member ? membership.member[key] : null;

const MembershipObject = builder.objectRef<Membership>('Membership').implement({
  description: 'The caller in a tenant: their member record (empty for API keys, and for superadmins who are not members), role and permissions.',
  fields: (t) => ({
    id: t.id({ nullable: true, description: 'The tenantUserId', resolve: (membership) => memberField(membership, 'id') }),
    tenantId: t.exposeID('tenantId'),
    userId: t.id({ nullable: true, resolve: (membership) => memberField(membership, 'userId') }),
    email: t.string({ nullable: true, resolve: (membership) => memberField(membership, 'email') }),
    name: t.string({ nullable: true, resolve: (membership) => memberField(membership, 'name') }),
    role: t.expose('role', { type: RoleEnum, description: 'Effective role: an API key is admin, a superadmin owner' }),
    status: t.field({ type: MemberStatusEnum, nullable: true, resolve: (membership) => memberField(membership, 'status') }),
    hourlyRate: t.field(rateFieldBy<Membership>('Billable rate per hour.', (membership) => memberField(membership, 'hourlyRate'), tenantCurrency)),
    costRate: t.field(rateFieldBy<Membership>('Cost rate per hour.', (membership) => memberField(membership, 'costRate'), tenantCurrency)),
    currency: t.field(currencyField<Membership>("ISO 4217: the currency of the member's own rates, the tenant's", () => null)),
    actorType: t.expose('actorType', { type: ActorTypeEnum, description: 'How the caller authenticated' }),
    permissions: t.field({ type: [PermissionObject], resolve: (membership) => [...membership.permissions] }),
    createdAt: t.field({ type: 'DateTime', nullable: true, resolve: (membership) => memberField(membership, 'createdAt') }),
    updatedAt: t.field({ type: 'DateTime', nullable: true, resolve: (membership) => memberField(membership, 'updatedAt') }),
  }),
});

const listUsers = tenantOperation(ListUsersArgs, ['read', 'TenantUser']);
const readMe = tenantOperation(TenantArgs, ['read', 'Tenant']);
const readUser = tenantOperation(UserArgs, ['read', 'TenantUser']);
const inviteUser = tenantOperation(InviteUserArgs, ['create', 'TenantUser']);
const updateUser = tenantOperation(UpdateUserArgs, ['update', 'TenantUser']);
const removeUser = tenantOperation(UserArgs, ['delete', 'TenantUser']);

builder.queryFields((t) => ({
  users: t.prismaField({
    type: ['TenantUser'],
    description: 'Members of the tenant, newest first.',
    ...listUsers.field(t),
    resolve: listUsers.resolveQuery((input, access, query: TenantUserQuery, { services }) => services.users.list(access, input, query)),
  }),
  me: t.field({
    type: MembershipObject,
    description: 'The caller in this tenant: member record, role and permissions.',
    ...readMe.field(t),
    resolve: readMe.resolve((_input, access, { services }) => services.users.me(access)),
  }),
  user: t.prismaField({
    type: 'TenantUser',
    description: 'One member of the tenant.',
    ...readUser.field(t),
    resolve: readUser.resolveQuery((input, access, query: TenantUserQuery, { services }) => services.users.get(access, input.id, query)),
  }),
}));

builder.mutationFields((t) => ({
  inviteUser: t.prismaField({
    type: 'TenantUser',
    description: 'Invites a person by e-mail with a role; they become active when they sign in.',
    ...inviteUser.field(t),
    resolve: inviteUser.resolveQuery((input, access, query: TenantUserQuery, { services }) => services.users.invite(access, input.input, query)),
  }),
  updateUser: t.prismaField({
    type: 'TenantUser',
    description: "Changes a member's role, status, name or rates. Only owners change the owner role; the last owner stays.",
    ...updateUser.field(t),
    resolve: updateUser.resolveQuery((input, access, query: TenantUserQuery, { services }) => services.users.update(access, input.id, input.input, query)),
  }),
  removeUser: t.prismaField({
    type: 'TenantUser',
    description: 'Removes a member (deactivates them, or deletes an unaccepted invitation). The last owner stays.',
    ...removeUser.field(t),
    resolve: removeUser.resolveQuery((input, access, query: TenantUserQuery, { services }) => services.users.remove(access, input.id, query)),
  }),
}));
