import { crud, steps } from '../../../rest/route.js';
import { entryConflicts } from './entry.rules.js';
import { defineModule } from '../../module.js';
import { createEntryService, type EntryService } from './entry.service.js';
import './entry.graphql.js';

const entries = '/tenants/{tenantId}/entries';

/** The irregular rows: a POST to `entries/{entryId}/<verb>`. */
const step = steps('entry', entries, 'entryId');

/** Time entries: timers, manual entries, and their approval. */
export const entryModule = defineModule({
  name: 'entries',
  createService: createEntryService,
  tag: { name: 'Entries', description: 'Time entries, timers and approval' },
  conflicts: entryConflicts,
  routes: [
    ...crud(
      'entry',
      entries,
      'entryId',
      { one: 'time entry', many: 'time entries' },
      {
        list: { field: 'Query.entries', summary: 'List time entries, by start, newest first (members: their own)' },
        create: { field: 'Mutation.createEntry', summary: 'Record time, or start a timer (no endedAt)' },
        get: 'Query.entry',
        update: { field: 'Mutation.updateEntry', summary: 'Change a time entry (not when approved or locked)' },
        remove: { field: 'Mutation.deleteEntry', summary: 'Delete a time entry (not when approved or locked)' },
      },
    ),
    step('stop', 'Mutation.stopEntry', 'Stop a running timer'),
    step('submit', 'Mutation.submitEntry', 'Submit an entry for approval'),
    step('approve', 'Mutation.approveEntry', 'Approve a submitted entry'),
    step('reject', 'Mutation.rejectEntry', 'Reject a submitted entry, with a reason'),
    step('reopen', 'Mutation.reopenEntry', 'Reopen an approved entry as a draft (owners and admins)'),
  ],
});

declare module '../../services.js' {
  interface Services {
    entries: EntryService;
  }
}
