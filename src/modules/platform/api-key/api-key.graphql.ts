import { builder } from '../../../graphql/builder.js';
import { graphqlEnum } from '../../../graphql/inputs.js';
import { tenantOperation } from '../../../graphql/operations.js';
import type { ApiKey } from '../../../generated/prisma/client.js';
import { enums } from '../../../lib/enums.js';
import { defineEnum } from '../../../lib/vocabulary.js';
import { CreateApiKeyArgs, ListApiKeysArgs, RevokeApiKeyArgs, type ApiKeyQuery } from './api-key.service.js';

const ApiKeyStatusEnum = graphqlEnum(defineEnum('ApiKeyStatus', ['active', 'revoked', 'expired']));

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
      resolve: (key, _args, context) => context.services.apiKeys.status(key),
    }),
    createdByType: t.expose('createdByType', { type: graphqlEnum(enums.ActorType) }),
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

const listApiKeys = tenantOperation(ListApiKeysArgs, ['read', 'ApiKey']);
const createApiKey = tenantOperation(CreateApiKeyArgs, ['create', 'ApiKey']);
const revokeApiKey = tenantOperation(RevokeApiKeyArgs, ['delete', 'ApiKey']);

builder.queryFields((t) => ({
  apiKeys: t.prismaField({
    type: ['ApiKey'],
    description: "The tenant's API keys, newest first, revoked and expired ones included.",
    ...listApiKeys.field(t),
    resolve: listApiKeys.resolveQuery((input, access, query: ApiKeyQuery, { services }) => services.apiKeys.list(access, input, query)),
  }),
}));

builder.mutationFields((t) => ({
  createApiKey: t.field({
    type: CreatedApiKey,
    description: 'Creates an API key; the response is the only time its secret is shown.',
    ...createApiKey.field(t),
    resolve: createApiKey.resolve(async (input, access, { services }) => {
      const { apiKey, key } = await services.apiKeys.create(access, input.input);
      return { ...apiKey, key };
    }),
  }),
  revokeApiKey: t.prismaField({
    type: 'ApiKey',
    description: 'Revokes an API key; it stops working at once, on every server.',
    ...revokeApiKey.field(t),
    resolve: revokeApiKey.resolveQuery((input, access, query: ApiKeyQuery, { services }) => services.apiKeys.revoke(access, input.id, query)),
  }),
}));
