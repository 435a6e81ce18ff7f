import { nativeRoute } from '../../../rest/route.js';
import { defineModule, job, type JobContext } from '../../module.js';
import { eventPruneQueue } from './event.jobs.js';
import { EventFeedParameters } from './event.contract.js';
import { createEventService, type EventService } from './event.service.js';
import { createEventWork, type EventWork } from './event.work.js';
import './event.graphql.js';

/**
 * The event stream: live over graphql-ws (`tenantEvents`), as a change feed
 * to sync from and an audit trail (`events`, an entry's `history`); webhooks
 * carry the same envelopes. Old events are pruned daily.
 */
export const eventModule = defineModule({
  name: 'events',
  createService: createEventService,
  tag: { name: 'Events', description: 'The change feed and audit trail: every committed change, with who made it' },
  routes: [
    nativeRoute({
      controller: 'event',
      action: 'findAll',
      method: 'GET',
      path: '/tenants/{tenantId}/events',
      summary: "The change feed: the tenant's committed events, oldest first, after `after`",
      description:
        'Every committed change with who made it (owners, admins, API keys). To sync: read from the start (no `after`), apply each event ' +
        '(`*.created`/`*.updated`: `data` is the resource now; `*.deleted`: drop `subjectId`), then ask again with `after` = the last id read. ' +
        'An empty page means nothing new yet. Events appear once every transaction older than theirs has ended, so the feed never skips one ' +
        'that commits late. Events older than EVENT_RETENTION_DAYS (default 400) are pruned; an `after` that is not (or no longer) ' +
        "an event of this tenant's feed is a 400.",
      access: ['read', 'Event'],
      parameters: EventFeedParameters,
      responses: { '200': { description: 'The next events, oldest first (empty when there are none yet)', graphqlType: 'ChangeEvent', list: true } },
      async handler({ access, parameters, context, respond }) {
        return respond('ChangeEvent', await context.services.events.feed(access, parameters), 200);
      },
    }),
    {
      controller: 'event',
      action: 'history',
      method: 'GET',
      path: '/tenants/{tenantId}/entries/{entryId}/history',
      field: 'Query.entryHistory',
      status: 200,
      summary: 'What happened to one entry, oldest first, and by whom (owners and admins; others: their own entries)',
    },
  ],
  createWork: createEventWork,
  jobs: [
    job(eventPruneQueue, async (_data, { work, log }: JobContext<EventWork>) => {
      await work.prune(log);
    }),
  ],
  schedules: [{ queue: eventPruneQueue, cron: '17 3 * * *' }],
});

declare module '../../services.js' {
  interface Services {
    events: EventService;
  }
}
