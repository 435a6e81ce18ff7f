import { builder } from '../../../graphql/builder.js';
import { graphqlEnum } from '../../../graphql/inputs.js';
import { tenantOperation } from '../../../graphql/operations.js';
import { resourceFields } from '../../../graphql/resource-fields.js';
import { CreateSyncArgs, ListSyncsArgs, SyncArgs, UpdateSyncArgs, syncStatus, type SyncQuery } from './sync.service.js';

builder.prismaObject('Sync', {
  description: 'An IMAP mailbox whose PDF and image attachments become invoices. The password is write-only.',
  fields: (t) => ({
    id: t.exposeID('id'),
    tenantId: t.exposeID('tenantId'),
    name: t.exposeString('name'),
    host: t.exposeString('host'),
    port: t.exposeInt('port'),
    secure: t.exposeBoolean('secure', { description: 'TLS from the first byte' }),
    username: t.exposeString('username'),
    mailbox: t.exposeString('mailbox'),
    fromFilter: t.exposeString('fromFilter', { nullable: true, description: 'Only messages from senders containing this' }),
    enabled: t.exposeBoolean('enabled', { description: 'False stops scheduled runs' }),
    intervalMinutes: t.exposeInt('intervalMinutes'),
    status: t.expose('status', { type: graphqlEnum(syncStatus), description: 'idle, running or error' }),
    lastSyncedAt: t.expose('lastSyncedAt', { type: 'DateTime', nullable: true, description: 'When the last run ended' }),
    lastError: t.exposeString('lastError', { nullable: true, description: 'Why the last run failed' }),
    uidValidity: t.string({ nullable: true, description: "The mailbox's IMAP UIDVALIDITY last seen", resolve: (sync) => sync.uidValidity?.toString() ?? null }),
    lastUid: t.string({ nullable: true, description: 'The UID of the last message read', resolve: (sync) => sync.lastUid?.toString() ?? null }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

resourceFields('Sync', {
  subject: 'Sync',
  service: (services) => services.syncs,
  queries: {
    syncs: { list: ListSyncsArgs, description: "The tenant's mailbox syncs, newest first." },
    sync: { get: SyncArgs, description: 'One mailbox sync.' },
  },
  mutations: {
    createSync: { create: CreateSyncArgs, description: 'Saves a mailbox to read invoices from; its server must have a public address.' },
    updateSync: {
      update: UpdateSyncArgs,
      description: 'Changes a mailbox sync; another server, user or mailbox starts from its first message.',
    },
    deleteSync: { remove: SyncArgs, description: 'Deletes a mailbox sync; the invoices it imported stay. GraphQL returns the deleted sync.' },
  },
});

const runSync = tenantOperation(SyncArgs, ['update', 'Sync']);

builder.mutationFields((t) => ({
  runSync: t.prismaField({
    type: 'Sync',
    description: 'Reads the mailbox now, in the background (watch `status` and `lastSyncedAt`).',
    ...runSync.field(t),
    resolve: runSync.resolveQuery((input, access, query: SyncQuery, { services }) => services.syncs.runNow(access, input.id, query)),
  }),
}));
