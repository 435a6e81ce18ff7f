import { builder } from '../../../graphql/builder.js';
import { graphqlEnum } from '../../../graphql/inputs.js';
import { rateField } from '../../../graphql/rates.js';
import { quantityExtensions } from '../../../graphql/money.js';
import type { Entry } from '../../../generated/prisma/client.js';
import { tenantOperation } from '../../../graphql/operations.js';
import { resourceFields } from '../../../graphql/resource-fields.js';
import {
  CreateEntryArgs,
  EntriesConnectionArgs,
  EntryArgs,
  entryOrder,
  entryStatus,
  ListEntriesArgs,
  RejectEntryArgs,
  UpdateEntryArgs,
  type EntryQuery,
} from './entry.dto.js';

builder.prismaObject('Entry', {
  description: 'Time worked by a member: finished, or a running timer while `endedAt` is null.',
  fields: (t) => ({
    id: t.exposeID('id'),
    tenantId: t.exposeID('tenantId'),
    tenantUserId: t.exposeID('tenantUserId', { description: 'Whose time it is' }),
    tenantUser: t.relation('tenantUser', { description: 'Whose time it is' }),
    projectId: t.exposeID('projectId', { nullable: true }),
    project: t.relation('project', { nullable: true }),
    taskId: t.exposeID('taskId', { nullable: true }),
    task: t.relation('task', { nullable: true }),
    vehicleId: t.exposeID('vehicleId', { nullable: true }),
    vehicle: t.relation('vehicle', { nullable: true }),
    distanceKm: t.expose('distanceKm', { type: 'Decimal', nullable: true, description: 'Kilometres driven', extensions: quantityExtensions }),
    startedAt: t.expose('startedAt', { type: 'DateTime' }),
    endedAt: t.expose('endedAt', { type: 'DateTime', nullable: true, description: 'Null while the timer runs' }),
    breakMinutes: t.exposeInt('breakMinutes'),
    durationMinutes: t.exposeInt('durationMinutes', {
      nullable: true,
      description: "Worked minutes: the span minus the break, after the tenant's rounding; null while running",
    }),
    description: t.exposeString('description', { nullable: true }),
    billable: t.exposeBoolean('billable'),
    tags: t.exposeStringList('tags'),
    hourlyRate: t.field(
      rateField<'hourlyRate', Entry>(
        'hourlyRate',
        "Billable rate per hour: the first set of project member, project, client, member and tenant default, copied at the currency's scale when the entry is created and when a draft or rejected entry changes its project, task or times.",
      ),
    ),
    costRate: t.field(rateField<'costRate', Entry>('costRate', "The member's cost rate per hour, copied like hourlyRate.")),
    billableAmount: t.field(
      rateField<'billableAmount', Entry>(
        'billableAmount',
        "durationMinutes / 60 x hourlyRate when billable, else 0, rounded half-up to the currency's minor units; null while running or without a rate.",
      ),
    ),
    costAmount: t.field(
      rateField<'costAmount', Entry>(
        'costAmount',
        "durationMinutes / 60 x costRate, rounded half-up to the currency's minor units; null while running or without a cost rate.",
      ),
    ),
    currency: t.exposeString('currency', { nullable: true, description: "ISO 4217: the client's currency, else the tenant's, when the rates were copied" }),
    status: t.expose('status', { type: graphqlEnum(entryStatus) }),
    clientInvoiceId: t.exposeID('clientInvoiceId', {
      nullable: true,
      description: 'The live client invoice (a draft included) that bills it; while set, the entry is read-only',
    }),
    submittedAt: t.expose('submittedAt', { type: 'DateTime', nullable: true }),
    reviewedById: t.exposeID('reviewedById', { nullable: true, description: 'The tenantUserId who approved or rejected it' }),
    reviewedBy: t.relation('reviewedBy', { nullable: true }),
    reviewedAt: t.expose('reviewedAt', { type: 'DateTime', nullable: true }),
    rejectionReason: t.exposeString('rejectionReason', { nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

builder.prismaObjectField('Project', 'entriesConnection', (t) =>
  t.relatedConnection(
    'entries',
    {
      cursor: 'id',
      totalCount: true,
      description: "The project's entries the caller may read, newest first",
      // Reached without a guard of its own: the entries the caller reads in the tenant whose project this is.
      query: (_args, context) => ({ where: context.scopeOfEnteredTenants('read', 'Entry'), orderBy: entryOrder }),
    },
    { name: 'ProjectEntryConnection' },
    { name: 'ProjectEntryEdge' },
  ),
);

resourceFields('Entry', {
  subject: 'Entry',
  service: (services) => services.entries,
  queries: {
    entries: { list: ListEntriesArgs, description: 'The entries the caller may read (members: their own), by start, newest first.' },
    entriesConnection: {
      connection: EntriesConnectionArgs,
      totalCount: true,
      description: 'The entries the caller may read, as a Relay connection with a total count.',
    },
    entry: { get: EntryArgs, description: 'One entry (members: their own).' },
  },
  mutations: {
    createEntry: { create: CreateEntryArgs, description: 'Records time, or starts a timer when `endedAt` is left out.' },
    updateEntry: { update: UpdateEntryArgs, description: 'Changes an entry; approved and locked entries are read-only.' },
    deleteEntry: { remove: EntryArgs, description: 'Deletes an entry that is not approved or locked. GraphQL returns the deleted entry.' },
  },
});

// The life of an entry (timer, review): state changes with rules of their own.
const stopEntry = tenantOperation(EntryArgs, ['update', 'Entry']);
const submitEntry = tenantOperation(EntryArgs, ['update', 'Entry']);
const approveEntry = tenantOperation(EntryArgs, ['approve', 'Entry']);
const rejectEntry = tenantOperation(RejectEntryArgs, ['approve', 'Entry']);
const reopenEntry = tenantOperation(EntryArgs, ['reopen', 'Entry']);

builder.mutationFields((t) => ({
  stopEntry: t.prismaField({
    type: 'Entry',
    description: 'Stops a running timer now.',
    ...stopEntry.field(t),
    resolve: stopEntry.resolveQuery((input, access, query: EntryQuery, { services }) => services.entries.stop(access, input.id, query)),
  }),
  submitEntry: t.prismaField({
    type: 'Entry',
    description: 'Submits a draft for approval (approves it at once when the tenant requires no approval).',
    ...submitEntry.field(t),
    resolve: submitEntry.resolveQuery((input, access, query: EntryQuery, { services }) => services.entries.submit(access, input.id, query)),
  }),
  approveEntry: t.prismaField({
    type: 'Entry',
    description: 'Approves a submitted entry; managers do not approve their own.',
    ...approveEntry.field(t),
    resolve: approveEntry.resolveQuery((input, access, query: EntryQuery, { services }) => services.entries.approve(access, input.id, query)),
  }),
  rejectEntry: t.prismaField({
    type: 'Entry',
    description: 'Rejects a submitted entry with a reason; its owner edits it, which makes it a draft again.',
    ...rejectEntry.field(t),
    resolve: rejectEntry.resolveQuery((input, access, query: EntryQuery, { services }) => services.entries.reject(access, input.id, input.input.reason, query)),
  }),
  reopenEntry: t.prismaField({
    type: 'Entry',
    description: 'Reopens an approved entry as a draft. Owners and admins only.',
    ...reopenEntry.field(t),
    resolve: reopenEntry.resolveQuery((input, access, query: EntryQuery, { services }) => services.entries.reopen(access, input.id, query)),
  }),
}));
