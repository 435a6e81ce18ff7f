import { randomBytes } from 'node:crypto';
import { systemActor } from '../../src/auth/actor.js';
import { systemAccess } from '../../src/auth/tenant-access.js';
import type { Tenant } from '../../src/generated/prisma/client.js';
import { apiClient, type ApiClient } from './http.js';
import type { TestServer } from './server.js';

export const uniqueSlug = (prefix = 't'): string => `${prefix}-${randomBytes(5).toString('hex')}`;

export interface TenantWithKey {
  tenant: Tenant;
  key: string;
  apiKeyId: string;
  /** A client authenticated with the tenant's admin API key. */
  api: ApiClient;
}

/** A tenant of the test's own plus an admin API key, made through the services the CLI uses. */
export async function createTenantWithKey(server: TestServer, options: { expiresInDays?: number } = {}): Promise<TenantWithKey> {
  const actor = systemActor('test');
  const tenant = await server.app.services.tenants.create(actor, { name: 'Test tenant', slug: uniqueSlug() });
  const { apiKey, key } = await server.app.services.apiKeys.create(systemAccess(tenant, actor), {
    name: 'test key',
    expiresInDays: options.expiresInDays ?? 90,
  });
  return { tenant, key, apiKeyId: apiKey.id, api: apiClient(server.url, { apiKey: key }) };
}
