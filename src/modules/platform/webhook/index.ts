import { crud } from '../../../rest/route.js';
import { defineModule, job, type JobContext } from '../../module.js';
import { abandonedDeliveryQueue, deliveryQueue } from './webhook.jobs.js';
import { webhookConflicts, createWebhookService, type WebhookService } from './webhook.service.js';
import { createWebhookWork, type WebhookWork } from './webhook.work.js';
import './webhook.graphql.js';

const webhooks = '/tenants/{tenantId}/webhooks';

/** Webhooks: subscriptions (owners and admins), signed deliveries with retries, and their log. */
export const webhookModule = defineModule({
  name: 'webhooks',
  createService: createWebhookService,
  tag: { name: 'Webhooks', description: 'Webhook subscriptions and their deliveries' },
  conflicts: webhookConflicts,
  routes: [
    ...crud(
      'webhook',
      webhooks,
      'webhookId',
      { one: 'webhook', many: 'webhooks' },
      {
        list: 'Query.webhooks',
        create: { field: 'Mutation.createWebhook', summary: 'Subscribe a URL to events (the signing secret is shown once)' },
        get: 'Query.webhook',
        update: { field: 'Mutation.updateWebhook', summary: 'Change a webhook; enabling a disabled one clears its failures' },
        remove: { field: 'Mutation.deleteWebhook', summary: 'Delete a webhook and its delivery log' },
      },
    ),
    {
      controller: 'webhook',
      action: 'findDeliveries',
      method: 'GET',
      path: `${webhooks}/{webhookId}/deliveries`,
      field: 'Query.webhookDeliveries',
      status: 200,
      summary: 'List the deliveries of a webhook, with every attempt',
    },
    {
      controller: 'webhook',
      action: 'test',
      method: 'POST',
      path: `${webhooks}/{webhookId}/test`,
      field: 'Mutation.testWebhook',
      status: 202,
      summary: 'Send a webhook.test event to this webhook',
    },
    {
      controller: 'webhook',
      action: 'rotateSecret',
      method: 'POST',
      path: `${webhooks}/{webhookId}/rotate-secret`,
      field: 'Mutation.rotateWebhookSecret',
      status: 200,
      summary: 'Replace the signing secret (the new one is shown once)',
    },
    {
      controller: 'webhook',
      action: 'redeliver',
      method: 'POST',
      path: `${webhooks}/{webhookId}/deliveries/{deliveryId}/redeliver`,
      field: 'Mutation.redeliverWebhookDelivery',
      status: 202,
      summary: 'Send a delivery again, with the same webhook-id',
    },
  ],
  createWork: createWebhookWork,
  jobs: [
    job(deliveryQueue, ({ deliveryId }, { work, log }: JobContext<WebhookWork>) => work.deliver(deliveryId, log)),
    job(abandonedDeliveryQueue, ({ deliveryId }, { work, log }: JobContext<WebhookWork>) => work.abandon(deliveryId, log)),
  ],
  reactsToEvents: (work, tx, events) => work.fanOut(tx, events),
});

declare module '../../services.js' {
  interface Services {
    webhooks: WebhookService;
  }
}
