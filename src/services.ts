import type { Db } from './db/client.js';
import { createAdminService } from './modules/admin/admin.service.js';
import { createApiKeyService } from './modules/api-key/api-key.service.js';
import { createNoteService } from './modules/note/note.service.js';
import { createTenantService } from './modules/tenant/tenant.service.js';
import { createUserService } from './modules/user/user.service.js';

/** Every domain service, built once per process and shared by GraphQL, REST, workers and the CLI. */
export function createServices({ db }: { db: Db }) {
  return {
    tenants: createTenantService({ db }),
    users: createUserService({ db }),
    apiKeys: createApiKeyService({ db }),
    notes: createNoteService({ db }),
    admin: createAdminService({ db }),
  };
}

export type Services = ReturnType<typeof createServices>;
