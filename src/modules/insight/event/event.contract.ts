/**
 * What the event stream is, declared once: the filters of the change feed
 * (REST query parameters and GraphQL arguments alike), its paging, and the
 * record it answers with, the backing shape of the GraphQL type
 * `ChangeEvent` that REST and GraphQL both render it through.
 */
import { z } from 'zod';
import type { EventEnvelope } from '../../../events/envelope.js';
import { eventTypes } from '../../../events/outbox.js';
import { args, fields, pagination } from '../../../lib/dto.js';
import { enums } from '../../../lib/enums.js';

const tenantId = fields.id('Tenant id');
const eventTypeList = z.array(z.string().pipe(z.enum(eventTypes, { error: `must be an event type (${eventTypes.join(', ')})` }))).max(eventTypes.length);

export const TenantEventsArgs = args({
  tenantId,
  types: eventTypeList.optional().describe('Only these event types (default: all)'),
});

/** What the change feed may be narrowed to, over REST (query parameters) and GraphQL (arguments) alike. */
const feedFilters = {
  types: eventTypeList.optional().describe('Only these event types, comma-separated (default: all)'),
  subjectId: fields.id('Only events about this resource (an entry id, a project id...)').optional(),
  actorType: enums.ActorType.schema('Only events caused by this kind of actor').optional(),
  actorId: fields.id('Only events caused by this actor: a user id or an API key id').optional(),
  from: fields.dateTime('Only events committed at or after this time').optional(),
  to: fields.dateTime('Only events committed before this time').optional(),
};

/** A page of the feed: events by default, and at most (REST's `limit`, GraphQL's `first`). */
export const feedPage = { usual: 100, largest: 1000 } as const;

export const EventFeedParameters = z.strictObject({
  tenantId,
  after: fields.id('The id of the last event already read: the feed goes on after it (leave out to start from the oldest)').optional(),
  ...feedFilters,
  limit: z.number().int().min(1).max(feedPage.largest).default(feedPage.usual).describe(`Events per page, 1 to ${feedPage.largest}`),
});
export const EventsConnectionArgs = args({ tenantId, ...feedFilters });

export const EntryHistoryArgs = args({ tenantId, id: fields.id('Entry id'), ...pagination });

export type FeedFilters = z.output<z.ZodObject<typeof feedFilters>>;

/** An event as the feed and the history show it: the webhook envelope, plus what it is about. */
export interface FeedEvent extends EventEnvelope {
  /** The resource the event is about (the entry of `entry.deleted`). */
  subjectId: string | null;
}
