/**
 * Every module, once. The services (src/services.ts), the GraphQL schema
 * (src/schema.ts) and the REST route table (src/routes.ts) are built from
 * this list; adding a resource is a folder and one line here. The import
 * order is the order of the schema's types and fields, so keep it the list's.
 */
import { tenantModule } from './tenant/index.js';
import { userModule } from './user/index.js';
import { apiKeyModule } from './api-key/index.js';
import { noteModule } from './note/index.js';
import { adminModule } from './admin/index.js';

export const modules = [tenantModule, userModule, apiKeyModule, noteModule, adminModule] as const;
