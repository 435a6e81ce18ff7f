import { builder } from '../../graphql/builder.js';
import { rateField } from '../../graphql/rates.js';
import { restrictedField } from '../../graphql/visibility.js';
import { resourceFields } from '../../graphql/resource-fields.js';
import { ClientArgs, CreateClientArgs, ListClientsArgs, UpdateClientArgs } from './client.service.js';

builder.prismaObject('Client', {
  description: 'Who the work is for: projects belong to at most one client, and take its currency and rate.',
  fields: (t) => ({
    id: t.exposeID('id'),
    tenantId: t.exposeID('tenantId'),
    name: t.exposeString('name', { description: 'Unique in the tenant' }),
    currency: t.exposeString('currency', { description: 'ISO 4217; entries of its projects are in it' }),
    hourlyRate: t.field(rateField('hourlyRate', "Billable rate per hour, after the project's and the project member's.")),
    notes: t.field(restrictedField('notes', ['read', 'ClientNotes'], 'Free text; null for those who do not manage clients (members read names only)')),
    archived: t.exposeBoolean('archived', { description: 'Archived clients take no new projects' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

resourceFields('Client', {
  subject: 'Client',
  service: (services) => services.clients,
  queries: {
    clients: { list: ListClientsArgs, description: "The tenant's clients, newest first." },
    client: { get: ClientArgs, description: 'One client.' },
  },
  mutations: {
    createClient: {
      create: CreateClientArgs,
      description: "Creates a client; its name is unique in the tenant (409 otherwise), its currency the tenant's unless given.",
    },
    updateClient: { update: UpdateClientArgs, description: 'Changes a client; set archived to retire it.' },
    deleteClient: {
      remove: ClientArgs,
      description: 'Deletes a client without projects (409 otherwise: archive it). GraphQL returns the deleted client.',
    },
  },
});
