import { defineModule } from '../../module.js';
import { createApiKeyService, type ApiKeyService } from './api-key.service.js';
import './api-key.graphql.js';

/** Tenant API keys (`svc_...`) for admin scripts: shown once, stored as SHA-256, revocable at once. */
export const apiKeyModule = defineModule({
  name: 'apiKeys',
  createService: createApiKeyService,
  tag: { name: 'ApiKeys', description: 'API keys for admin scripts' },
  routes: [
    {
      controller: 'apiKey',
      action: 'findAll',
      method: 'GET',
      path: '/tenants/{tenantId}/api-keys',
      field: 'Query.apiKeys',
      status: 200,
      summary: 'List API keys',
    },
    {
      controller: 'apiKey',
      action: 'create',
      method: 'POST',
      path: '/tenants/{tenantId}/api-keys',
      field: 'Mutation.createApiKey',
      status: 201,
      summary: 'Create an API key (its secret is shown once)',
    },
    {
      controller: 'apiKey',
      action: 'remove',
      method: 'DELETE',
      path: '/tenants/{tenantId}/api-keys/{apiKeyId}',
      field: 'Mutation.revokeApiKey',
      status: 204,
      summary: 'Revoke an API key',
    },
  ],
});

declare module '../../services.js' {
  interface Services {
    apiKeys: ApiKeyService;
  }
}
