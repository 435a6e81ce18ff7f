import { builder } from '../../graphql/builder.js';
import { graphqlEnum } from '../../graphql/inputs.js';
import { tenantOperation } from '../../graphql/operations.js';
import type { EventEnvelope } from '../../events/envelope.js';
import { enums } from '../../lib/enums.js';
import { TenantEventsArgs } from './event.service.js';

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

const tenantEvents = tenantOperation(TenantEventsArgs, ['read', 'Webhook']);

builder.subscriptionFields((t) => ({
  tenantEvents: t.field({
    type: EnvelopeRef,
    description: "The tenant's events as they commit, on any server (owners and admins; graphql-ws).",
    ...tenantEvents.field(t),
    subscribe: tenantEvents.subscribe((input, access, { services }) => services.events.live(access, input)),
    resolve: (envelope: EventEnvelope) => envelope,
  }),
}));
