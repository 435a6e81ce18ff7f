import { builder } from '../../../graphql/builder.js';
import { graphqlEnum } from '../../../graphql/inputs.js';
import { resourceFields } from '../../../graphql/resource-fields.js';
import type { Import } from '../../../generated/prisma/client.js';
import { ImportArgs, ListImportsArgs, importEntryStatus, importSource, importStatus } from './import.service.js';

const ImportCountsRef = builder.objectRef<Import>('ImportCounts').implement({
  description: 'How the rows ended: each row is exactly one of imported, skipped (zero length, or imported before) and failed.',
  fields: (t) => ({
    rows: t.int({ description: 'Data rows read so far (blank lines are not rows)', resolve: (found) => found.rowsDone }),
    imported: t.exposeInt('imported'),
    skipped: t.exposeInt('skipped'),
    failed: t.exposeInt('failed'),
  }),
});

const ImportCreatedRef = builder.objectRef<Import>('ImportCreated').implement({
  description: 'What the import created because the file named it and the tenant had none (a dry run: would create).',
  fields: (t) => ({
    clients: t.exposeInt('createdClients'),
    projects: t.exposeInt('createdProjects'),
    tasks: t.exposeInt('createdTasks'),
    members: t.exposeInt('createdMembers', { description: 'People invited (files without emails: at <name>@import.invalid, for an admin to correct)' }),
  }),
});

interface RowError {
  row: number;
  message: string;
}

const ImportRowErrorRef = builder.objectRef<RowError>('ImportRowError').implement({
  description: 'Why one row failed.',
  fields: (t) => ({
    row: t.exposeInt('row', { description: 'The data row, counting from 1 after the header' }),
    message: t.exposeString('message'),
  }),
});

builder.prismaObject('Import', {
  description: "A CSV file of another time tracker's entries, imported in the background. Watch `status` and `counts`.",
  fields: (t) => ({
    id: t.exposeID('id'),
    tenantId: t.exposeID('tenantId'),
    source: t.expose('source', { type: graphqlEnum(importSource) }),
    status: t.expose('status', { type: graphqlEnum(importStatus), description: 'queued, running, done or failed' }),
    dryRun: t.exposeBoolean('dryRun', { description: 'Counted what a real run would do; wrote nothing' }),
    timezone: t.exposeString('timezone', { description: "The zone the file's local times were read in" }),
    entryStatus: t.field({
      type: graphqlEnum(importEntryStatus),
      description: 'The status imported entries get',
      resolve: (found) => found.entryStatus as 'approved' | 'draft',
    }),
    fileName: t.exposeString('fileName'),
    fileSize: t.exposeInt('fileSize', { description: 'Bytes' }),
    counts: t.field({ type: ImportCountsRef, resolve: (found) => found }),
    errors: t.field({
      type: [ImportRowErrorRef],
      description: 'The first 100 failed rows and why',
      resolve: (found) => (found.errors as unknown as RowError[] | null) ?? [],
    }),
    created: t.field({ type: ImportCreatedRef, resolve: (found) => found }),
    lastError: t.exposeString('lastError', { nullable: true, description: 'Why the whole import failed (a row’s problem is in `errors`)' }),
    createdById: t.exposeID('createdById', { nullable: true, description: 'The member who started it (null for an API key)' }),
    startedAt: t.expose('startedAt', { type: 'DateTime', nullable: true }),
    finishedAt: t.expose('finishedAt', { type: 'DateTime', nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

resourceFields('Import', {
  subject: 'Import',
  service: (services) => services.imports,
  queries: {
    imports: {
      list: ListImportsArgs,
      description: "The tenant's imports, newest first (owners and admins). Files are uploaded with REST: POST /tenants/{tenantId}/imports.",
    },
    import: { get: ImportArgs, description: 'One import, with its progress.' },
  },
});
