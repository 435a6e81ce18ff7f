import { builder } from '../../../graphql/builder.js';
import { graphqlEnum } from '../../../graphql/inputs.js';
import { tenantOperation } from '../../../graphql/operations.js';
import type { EventEnvelope } from '../../../events/envelope.js';
import { enums } from '../../../lib/enums.js';
import { validationFailed } from '../../../lib/errors.js';
import { EntryHistoryArgs, EventsConnectionArgs, type FeedEvent, feedPage, TenantEventsArgs } from './event.contract.js';

const ActorRef = builder.objectRef<EventEnvelope['actor']>('EventActor').implement({
  description: 'Who caused an event: a user (their user id), an API key (its id), or the system.',
  fields: (t) => ({
    type: t.expose('type', { type: graphqlEnum(enums.ActorType) }),
    id: t.exposeID('id', { nullable: true }),
  }),
});

const EnvelopeRef = builder.objectRef<EventEnvelope>('EventEnvelope').implement({
  description: 'An event as webhooks deliver it.',
  fields: (t) => ({
    id: t.exposeID('id', { description: 'The event id (the `webhook-id` of its deliveries)' }),
    type: t.exposeString('type'),
    timestamp: t.exposeString('timestamp', { description: 'When the change was committed (ISO 8601 UTC)' }),
    tenantId: t.exposeID('tenantId', { nullable: true }),
    actor: t.field({ type: ActorRef, resolve: (envelope) => envelope.actor }),
    data: t.field({
      type: 'JSONObject',
      description: 'The resource as the API shows it',
      resolve: (envelope) => envelope.data as Record<string, unknown>,
    }),
  }),
});

const ChangeEventRef = builder.objectRef<FeedEvent>('ChangeEvent').implement({
  description: 'A committed change, with who made it: an event of the change feed and of an entry’s history.',
  fields: (t) => ({
    id: t.exposeID('id', { description: 'The event id: the cursor to read the feed on from' }),
    type: t.exposeString('type'),
    timestamp: t.exposeString('timestamp', { description: 'When the change was committed (ISO 8601 UTC)' }),
    tenantId: t.exposeID('tenantId', { nullable: true }),
    actor: t.field({ type: ActorRef, resolve: (event) => event.actor }),
    subjectId: t.exposeID('subjectId', { nullable: true, description: 'The resource it is about (the entry of `entry.deleted`)' }),
    data: t.field({
      type: 'JSONObject',
      description: 'The resource as the API showed it after the change (before it, for a deletion)',
      resolve: (event) => event.data as Record<string, unknown>,
    }),
  }),
});

const tenantEvents = tenantOperation(TenantEventsArgs, ['read', 'Event']);
const readEvents = tenantOperation(EventsConnectionArgs, ['read', 'Event']);
const readHistory = tenantOperation(EntryHistoryArgs, ['read', 'EntryHistory']);

builder.queryFields((t) => ({
  events: t.connection(
    {
      type: ChangeEventRef,
      description:
        "The change feed: the tenant's committed events, oldest first, after the cursor `after` (owners, admins, API keys). " +
        'Read on from the last `endCursor` to sync incrementally, deletions included.',
      ...readEvents.field(t),
      resolve: (parent, args, context, info) =>
        readEvents.resolve(async (input, access, { services }) => {
          if (args.last != null || args.before != null) {
            throw validationFailed([{ path: 'last', message: 'the feed is read forwards: use first and after' }]);
          }
          const first = args.first ?? feedPage.usual;
          if (first < 1 || first > feedPage.largest) throw validationFailed([{ path: 'first', message: `must be 1 to ${feedPage.largest}` }]);
          const { events, hasMore } = await services.events.feedConnection(access, input, { after: args.after ?? undefined, first });
          return {
            edges: events.map((event) => ({ cursor: event.id, node: event })),
            pageInfo: {
              hasNextPage: hasMore,
              hasPreviousPage: args.after != null,
              startCursor: events[0]?.id ?? null,
              endCursor: events.at(-1)?.id ?? args.after ?? null,
            },
          };
        })(parent, args, context, info),
    },
    { name: 'ChangeEventConnection' },
    { name: 'ChangeEventEdge' },
  ),
  entryHistory: t.field({
    type: [ChangeEventRef],
    description: 'What happened to one entry, oldest first, and by whom (owners and admins: any entry; others: their own).',
    ...readHistory.field(t),
    resolve: readHistory.resolve((input, access, { services }) => services.events.entryHistory(access, input)),
  }),
}));

builder.subscriptionFields((t) => ({
  tenantEvents: t.field({
    type: EnvelopeRef,
    description: "The tenant's events as they commit, on any server (owners and admins; graphql-ws).",
    ...tenantEvents.field(t),
    subscribe: tenantEvents.subscribe((input, access, { services }) => services.events.live(access, input)),
    resolve: (envelope: EventEnvelope) => envelope,
  }),
}));
