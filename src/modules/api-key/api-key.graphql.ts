import { builder } from '../../graphql/builder.js';
import { graphqlEnum, tenantOperation } from '../../graphql/inputs.js';
import type { ApiKey } from '../../generated/prisma/client.js';
import { args, fields } from '../../lib/dto.js';
import { ActorTypeEnum } from '../user/user.graphql.js';
import { CreateApiKeyDto, ListApiKeysArgs } from './api-key.service.js';

const ApiKeyStatusEnum = graphqlEnum('ApiKeyStatus', ['active', 'revoked', 'expired']);

/** The fields of a key record, shared by `ApiKey` and `CreatedApiKey`. Never the hash. */
const ApiKeyRecord = builder.interfaceRef<ApiKey>('ApiKeyRecord').implement({
  description: 'What is known of an API key: never the secret, which is shown once at creation.',
  fields: (t) => ({
    id: t.exposeID('id'),
    tenantId: t.exposeID('tenantId'),
    name: t.exposeString('name'),
    prefix: t.exposeString('prefix', { description: 'The first 8 characters of the key, to recognise it' }),
    status: t.field({
      type: ApiKeyStatusEnum,
      resolve: (key) => (key.revokedAt ? 'revoked' : key.expiresAt <= new Date() ? 'expired' : 'active'),
    }),
    createdByType: t.expose('createdByType', { type: ActorTypeEnum }),
    createdById: t.exposeID('createdById', { nullable: true, description: 'tenantUserId, API key id, or null for the system' }),
    expiresAt: t.expose('expiresAt', { type: 'DateTime' }),
    revokedAt: t.expose('revokedAt', { type: 'DateTime', nullable: true }),
    lastUsedAt: t.expose('lastUsedAt', { type: 'DateTime', nullable: true, description: 'Kept to the minute' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

builder.prismaObject('ApiKey', {
  description: 'A tenant API key for admin scripts (`Authorization: Bearer svc_...`); it acts as admin of its tenant.',
  interfaces: [ApiKeyRecord],
  fields: () => ({}),
});

const CreatedApiKey = builder.objectRef<ApiKey & { key: string }>('CreatedApiKey').implement({
  description: 'A new API key: the record plus the whole secret, which is shown only this once.',
  interfaces: [ApiKeyRecord],
  fields: (t) => ({
    key: t.exposeString('key', { description: 'The whole `svc_...` key; store it now, it cannot be shown again' }),
  }),
});

const tenantId = fields.id('Tenant id');

builder.queryFields((t) => ({
  apiKeys: t.prismaField({
    type: ['ApiKey'],
    description: "The tenant's API keys, newest first, revoked and expired ones included.",
    ...tenantOperation(t, ListApiKeysArgs, ['read', 'ApiKey']),
    resolve: async (query, _root, input, context) =>
      context.services.apiKeys.list(await context.tenantAccess(input.tenantId), input, query),
  }),
}));

builder.mutationFields((t) => ({
  createApiKey: t.field({
    type: CreatedApiKey,
    description: 'Creates an API key; the response is the only time its secret is shown.',
    ...tenantOperation(t, args({ tenantId, input: CreateApiKeyDto }), ['create', 'ApiKey']),
    resolve: async (_root, input, context) => {
      const { apiKey, key } = await context.services.apiKeys.create(await context.tenantAccess(input.tenantId), input.input);
      return { ...apiKey, key };
    },
  }),
  revokeApiKey: t.prismaField({
    type: 'ApiKey',
    description: 'Revokes an API key; it stops working at once, on every server.',
    ...tenantOperation(t, args({ tenantId, id: fields.id('API key id') }), ['delete', 'ApiKey']),
    resolve: async (query, _root, input, context) =>
      context.services.apiKeys.revoke(await context.tenantAccess(input.tenantId), input.id, query),
  }),
}));
