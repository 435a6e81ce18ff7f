import { crud } from '../../../rest/route.js';
import { defineModule } from '../../module.js';
import { clientConflicts, createClientService, type ClientService } from './client.service.js';
import './client.graphql.js';

/** Clients: who the work is for, with the currency and rate their projects take. */
export const clientModule = defineModule({
  name: 'clients',
  createService: createClientService,
  tag: { name: 'Clients', description: 'Clients: who the work is for' },
  conflicts: clientConflicts,
  routes: crud(
    'client',
    '/tenants/{tenantId}/clients',
    'clientId',
    { one: 'client', many: 'clients' },
    {
      list: 'Query.clients',
      get: 'Query.client',
      create: 'Mutation.createClient',
      update: 'Mutation.updateClient',
      remove: { field: 'Mutation.deleteClient', summary: 'Delete a client without projects (archive it otherwise)' },
    },
  ),
});

declare module '../../services.js' {
  interface Services {
    clients: ClientService;
  }
}
