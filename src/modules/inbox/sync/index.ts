import { crud } from '../../../rest/route.js';
import { defineModule, job, type JobContext } from '../../module.js';
import { syncRunQueue, syncTickQueue } from './sync.jobs.js';
import { createSyncService, type SyncService } from './sync.service.js';
import { createSyncWork, type SyncWork } from './sync.work.js';
import './sync.graphql.js';

const syncs = '/tenants/{tenantId}/syncs';

/** Mailbox syncs: IMAP mailboxes whose invoice attachments are imported, on a schedule or on request. */
export const syncModule = defineModule({
  name: 'syncs',
  createService: createSyncService,
  tag: { name: 'Syncs', description: 'IMAP mailboxes that import invoices' },
  routes: [
    ...crud(
      'sync',
      syncs,
      'syncId',
      { one: 'mailbox sync', many: 'mailbox syncs' },
      {
        list: 'Query.syncs',
        get: 'Query.sync',
        create: { field: 'Mutation.createSync', summary: 'Save a mailbox to import invoices from (the password is write-only)' },
        update: 'Mutation.updateSync',
        remove: { field: 'Mutation.deleteSync', summary: 'Delete a mailbox sync (its invoices stay)' },
      },
    ),
    {
      controller: 'sync',
      action: 'run',
      method: 'POST',
      path: `${syncs}/{syncId}/run`,
      field: 'Mutation.runSync',
      status: 202,
      summary: 'Read the mailbox now, in the background',
    },
  ],
  createWork: createSyncWork,
  jobs: [
    job(syncRunQueue, ({ syncId }, { work, log }: JobContext<SyncWork>) => work.run(syncId, log)),
    job(syncTickQueue, (_data, { work, log }: JobContext<SyncWork>) => work.queueDue(log)),
  ],
  schedules: [{ queue: syncTickQueue, cron: '* * * * *' }],
});

declare module '../../services.js' {
  interface Services {
    syncs: SyncService;
  }
}
