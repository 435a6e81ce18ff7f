/** Platform: who uses Tally and how they are told. The lowest domain: it uses none, and every other may use it. */
import { defineDomain } from '../domain.js';
import { adminModule } from './admin/index.js';
import { apiKeyModule } from './api-key/index.js';
import { noteModule } from './note/index.js';
import { notificationModule } from './notification/index.js';
import { tenantModule } from './tenant/index.js';
import { userModule } from './user/index.js';
import { webhookModule } from './webhook/index.js';

export const platformDomain = defineDomain({
  name: 'platform',
  description:
    'The tenants and their settings, members and API keys, superadmin operations, and what every domain builds on: notes, in-app notifications and webhooks.',
  uses: [],
  modules: [tenantModule, userModule, apiKeyModule, adminModule, noteModule, notificationModule, webhookModule],
});
