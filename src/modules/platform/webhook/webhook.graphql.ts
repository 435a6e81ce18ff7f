import { builder } from '../../../graphql/builder.js';
import { graphqlEnum } from '../../../graphql/inputs.js';
import { tenantOperation } from '../../../graphql/operations.js';
import { resourceFields } from '../../../graphql/resource-fields.js';
import type { WebhookDeliveryAttempt, WebhookSubscription } from '../../../generated/prisma/client.js';
import {
  CreateWebhookArgs,
  ListDeliveriesArgs,
  ListWebhooksArgs,
  RedeliverArgs,
  UpdateWebhookArgs,
  WebhookArgs,
  deliveryStatus,
  type DeliveryQuery,
  type WebhookWithSecret,
} from './webhook.service.js';

/** The fields of a subscription, shared by `Webhook` and `WebhookWithSecret`. Never the secret itself. */
const WebhookRecord = builder.interfaceRef<WebhookSubscription>('WebhookRecord').implement({
  description: 'A webhook subscription: where events are POSTed, signed by the Standard Webhooks scheme.',
  fields: (t) => ({
    id: t.exposeID('id'),
    tenantId: t.exposeID('tenantId'),
    url: t.exposeString('url'),
    events: t.exposeStringList('events', { description: 'Event types delivered, or "*" for all' }),
    description: t.exposeString('description', { nullable: true }),
    enabled: t.exposeBoolean('enabled', { description: 'False when turned off, or disabled after 410 Gone or 5 days of failures' }),
    failureCount: t.exposeInt('failureCount', { description: 'Failed attempts since the last success' }),
    failingSince: t.expose('failingSince', { type: 'DateTime', nullable: true, description: 'First failure since the last success' }),
    disabledAt: t.expose('disabledAt', { type: 'DateTime', nullable: true, description: 'When deliveries were stopped automatically' }),
    disabledReason: t.exposeString('disabledReason', { nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

builder.prismaObject('WebhookSubscription', {
  name: 'Webhook',
  description: 'A webhook subscription; its signing secret is shown only at creation and rotation.',
  interfaces: [WebhookRecord],
  fields: () => ({}),
});

const WebhookWithSecretRef = builder.objectRef<WebhookWithSecret>('WebhookWithSecret').implement({
  description: 'A webhook subscription with its signing secret, shown only this once.',
  interfaces: [WebhookRecord],
  fields: (t) => ({
    secret: t.exposeString('secret', { description: 'The `whsec_...` signing secret; store it now, it cannot be shown again' }),
  }),
});

const AttemptRef = builder.objectRef<WebhookDeliveryAttempt>('WebhookDeliveryAttempt').implement({
  description: 'One HTTP attempt of a delivery.',
  fields: (t) => ({
    attempt: t.exposeInt('attempt', { description: '1 for the first attempt' }),
    responseStatus: t.exposeInt('responseStatus', { nullable: true, description: "The receiver's HTTP status, when it answered" }),
    responseBody: t.exposeString('responseBody', { nullable: true, description: 'The start of its answer (2 KiB at most)' }),
    error: t.exposeString('error', { nullable: true, description: 'Why the attempt failed' }),
    durationMs: t.exposeInt('durationMs', { description: 'Latency of the attempt' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

builder.prismaObject('WebhookDelivery', {
  description: 'One event sent to one subscription; `eventId` is its `webhook-id` header on every attempt.',
  fields: (t) => ({
    id: t.exposeID('id'),
    tenantId: t.exposeID('tenantId'),
    webhookId: t.exposeID('subscriptionId'),
    eventId: t.exposeID('eventId', { description: 'The event, and the `webhook-id` header' }),
    eventType: t.exposeString('eventType'),
    status: t.expose('status', { type: graphqlEnum(deliveryStatus) }),
    attempts: t.exposeInt('attempts'),
    responseStatus: t.exposeInt('responseStatus', { nullable: true, description: 'Status of the latest answer' }),
    lastError: t.exposeString('lastError', { nullable: true }),
    nextAttemptAt: t.expose('nextAttemptAt', { type: 'DateTime', nullable: true, description: 'When the next attempt is due (pending only)' }),
    deliveredAt: t.expose('deliveredAt', { type: 'DateTime', nullable: true }),
    attemptLog: t.field({
      type: [AttemptRef],
      description: 'Every attempt, first to last',
      // Loaded with the deliveries in the same query, however many there are.
      select: { attemptLog: { orderBy: { attempt: 'asc' } } },
      resolve: (delivery) => delivery.attemptLog,
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

const createWebhook = tenantOperation(CreateWebhookArgs, ['create', 'Webhook']);
const listDeliveries = tenantOperation(ListDeliveriesArgs, ['read', 'Webhook']);
const changeWebhook = tenantOperation(WebhookArgs, ['update', 'Webhook']);
const redeliver = tenantOperation(RedeliverArgs, ['update', 'Webhook']);

// Creating answers with the secret, shown this once: a type of its own.
builder.mutationFields((t) => ({
  createWebhook: t.field({
    type: WebhookWithSecretRef,
    description: 'Subscribes a URL to events (at most 25 per tenant); the response is the only time the signing secret is shown.',
    ...createWebhook.field(t),
    resolve: createWebhook.resolve((input, access, { services }) => services.webhooks.create(access, input.input)),
  }),
}));

resourceFields('WebhookSubscription', {
  subject: 'Webhook',
  service: (services) => services.webhooks,
  queries: {
    webhooks: { list: ListWebhooksArgs, description: "The tenant's webhook subscriptions, newest first." },
    webhook: { get: WebhookArgs, description: 'One webhook subscription.' },
  },
  mutations: {
    updateWebhook: { update: UpdateWebhookArgs, description: 'Changes a webhook; enabling a disabled one clears its failures.' },
    deleteWebhook: { remove: WebhookArgs, description: 'Deletes a webhook and its delivery log. GraphQL returns the deleted webhook.' },
  },
});

builder.queryFields((t) => ({
  webhookDeliveries: t.prismaField({
    type: ['WebhookDelivery'],
    description: 'The deliveries of a webhook with every attempt, newest first.',
    ...listDeliveries.field(t),
    resolve: listDeliveries.resolveQuery((input, access, query: DeliveryQuery, { services }) => services.webhooks.listDeliveries(access, input, query)),
  }),
}));

builder.mutationFields((t) => ({
  rotateWebhookSecret: t.field({
    type: WebhookWithSecretRef,
    description: 'Replaces the signing secret; the response is the only time the new one is shown.',
    ...changeWebhook.field(t),
    resolve: changeWebhook.resolve((input, access, { services }) => services.webhooks.rotateSecret(access, input.id)),
  }),
  testWebhook: t.prismaField({
    type: 'WebhookDelivery',
    description: 'Sends a `webhook.test` event to this webhook alone; returns the delivery, whose attempts follow.',
    ...changeWebhook.field(t),
    resolve: changeWebhook.resolveQuery((input, access, query: DeliveryQuery, { services }) => services.webhooks.test(access, input.id, query)),
  }),
  redeliverWebhookDelivery: t.prismaField({
    type: 'WebhookDelivery',
    description: 'Sends a delivery again now, with the same `webhook-id`.',
    ...redeliver.field(t),
    resolve: redeliver.resolveQuery((input, access, query: DeliveryQuery, { services }) => services.webhooks.redeliver(access, input, query)),
  }),
}));
