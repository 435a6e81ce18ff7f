import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { TenantAccess } from '../../../auth/tenant-access.js';
import type { Db, Tx } from '../../../db/client.js';
import { newestFirst, tenantPage } from '../../../db/list.js';
import type { PrismaQuery } from '../../../db/query.js';
import { eventTypes } from '../../../events/outbox.js';
import type { Prisma, WebhookDelivery, WebhookSubscription } from '../../../generated/prisma/client.js';
import { WebhookDeliveryStatus } from '../../../generated/prisma/enums.js';
import { createSecretBox } from '../../../lib/crypto.js';
import { args, dto, fields, pagination } from '../../../lib/dto.js';
import { conflictReasons, notFound, validationFailed } from '../../../lib/errors.js';
import { outboundHostProblem } from '../../../lib/outbound.js';
import { defineEnum } from '../../../lib/vocabulary.js';
import type { ServiceDependencies } from '../../module.js';
import { deliveryQueue } from './webhook.jobs.js';

export const maxWebhooksPerTenant = 25;

/** Why a write to a webhook is refused with 409. */
export const webhookConflicts = conflictReasons('Webhook', {
  WEBHOOK_LIMIT: { code: 'CONFLICT', description: `The tenant has ${maxWebhooksPerTenant} webhooks, the most allowed; delete one first` },
  WEBHOOK_DISABLED: { code: 'INVALID_STATE', description: 'The webhook is disabled; enable it before redelivering' },
});

export const deliveryStatus = defineEnum(
  'WebhookDeliveryStatus',
  WebhookDeliveryStatus,
  'Where a delivery stands: pending (an attempt is due), succeeded, failed (no more attempts)',
);

const subscribableEvents = [...eventTypes.filter((type) => type !== 'webhook.test'), '*'] as const;

const url = z
  .string()
  .trim()
  .max(2048)
  .pipe(z.url({ protocol: /^https?$/, error: 'must be an http or https URL' }))
  .refine((value) => {
    // Refinements run after a failed format check too; that one has said what is wrong.
    const parsed = URL.parse(value);
    return parsed === null || (parsed.username === '' && parsed.password === '');
  }, 'must not carry credentials; receivers check the signature instead')
  .describe('Where deliveries are POSTed (http or https; public addresses only)');

const events = z
  .array(z.string().pipe(z.enum(subscribableEvents, { error: `must be an event type or "*" (${subscribableEvents.join(', ')})` })))
  .min(1)
  .max(subscribableEvents.length)
  .refine((list) => new Set(list).size === list.length, 'must not repeat an event type')
  .describe('Event types to deliver, or "*" for all');

const description = z.string().trim().max(500).describe('What the webhook is for');

export const CreateWebhookDto = dto('CreateWebhookDto', 'A new webhook subscription.', {
  url,
  events,
  description: description.optional(),
  enabled: z.boolean().default(true).describe('Deliver events (default true)'),
});

export const UpdateWebhookDto = dto('UpdateWebhookDto', 'Changes to a webhook subscription; enabling one that was disabled clears its failures.', {
  url: url.optional(),
  events: events.optional(),
  description: description.nullable().optional(),
  enabled: z.boolean().optional(),
});

const tenantId = fields.id('Tenant id');
const webhookId = fields.id('Webhook id');
export const ListWebhooksArgs = args({ tenantId, ...pagination });
export const WebhookArgs = args({ tenantId, id: webhookId });
export const CreateWebhookArgs = args({ tenantId, input: CreateWebhookDto });
export const UpdateWebhookArgs = args({ tenantId, id: webhookId, input: UpdateWebhookDto });
export const ListDeliveriesArgs = args({
  tenantId,
  webhookId,
  status: deliveryStatus.schema('Only deliveries in this state').optional(),
  ...pagination,
});
export const RedeliverArgs = args({ tenantId, webhookId, deliveryId: fields.id('Delivery id') });

export type WebhookQuery = PrismaQuery<Prisma.WebhookSubscriptionInclude, Prisma.WebhookSubscriptionSelect>;
export type DeliveryQuery = PrismaQuery<Prisma.WebhookDeliveryInclude, Prisma.WebhookDeliverySelect>;

/** A subscription with its signing secret, as creation and rotation return it (the only times). */
export type WebhookWithSecret = WebhookSubscription & { secret: string };

const newSecret = (): string => `whsec_${randomBytes(24).toString('base64')}`;

/**
 * Webhook subscriptions (owners and admins) and their deliveries. Sending
 * them is the workers' (webhook.work.ts).
 */
export function createWebhookService({
  db,
  reads,
  config,
  secrets,
  jobs,
  clock,
}: Pick<ServiceDependencies, 'db' | 'reads' | 'config' | 'secrets' | 'jobs' | 'clock'>) {
  const box = createSecretBox(secrets.encryptionKey);
  const allowPrivate = config.webhookAllowPrivateUrls;

  async function assertReachable(target: string): Promise<void> {
    const problem = await outboundHostProblem(new URL(target).hostname, { allowPrivate });
    if (problem) throw validationFailed([{ path: 'url', message: problem }]);
  }

  async function findSubscription(tx: Tx | Db, access: TenantAccess, id: string): Promise<WebhookSubscription> {
    const subscription = await tx.webhookSubscription.findFirst({ where: { id, ...access.scope('read', 'Webhook') } });
    if (!subscription) throw notFound('Webhook', id);
    return subscription;
  }

  /** Records a delivery of `eventId` to one subscription of the tenant, and its first attempt's job. */
  async function enqueueDelivery(
    tx: Tx,
    access: TenantAccess,
    subscription: WebhookSubscription,
    eventId: string,
    eventType: string,
  ): Promise<WebhookDelivery> {
    const delivery = await tx.webhookDelivery.create({
      data: access.stamp({ subscriptionId: subscription.id, eventId, eventType, nextAttemptAt: clock.now() }),
    });
    await jobs.send(tx, deliveryQueue, { deliveryId: delivery.id });
    return delivery;
  }

  return {
    /** The tenant's webhook subscriptions, newest first. */
    async list(access: TenantAccess, page: z.output<typeof ListWebhooksArgs>, query: WebhookQuery = {}): Promise<WebhookSubscription[]> {
      return reads.run(access, ({ db }) => db.webhookSubscription.findMany({ ...query, ...tenantPage(access.scope('read', 'Webhook'), page) }));
    },

    /** One subscription of the tenant. */
    async get(access: TenantAccess, id: string, query: WebhookQuery = {}): Promise<WebhookSubscription> {
      const subscription = await db.webhookSubscription.findFirst({ ...query, where: { id, ...access.scope('read', 'Webhook') } });
      if (!subscription) throw notFound('Webhook', id);
      return subscription;
    },

    /** Subscribes a URL to events; the signing secret is returned this once. At most 25 per tenant. */
    async create(access: TenantAccess, data: z.output<typeof CreateWebhookDto>): Promise<WebhookWithSecret> {
      access.assert('create', 'Webhook');
      await assertReachable(data.url);
      const secret = newSecret();
      return db.$transaction(async (tx) => {
        // Serialises creations in one tenant, so that two at once cannot both be the 25th.
        await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext('webhooks:' || ${access.tenantId}))`;
        const count = await tx.webhookSubscription.count({ where: access.tenantWide('Webhook') });
        if (count >= maxWebhooksPerTenant) {
          throw webhookConflicts.refuse('WEBHOOK_LIMIT', `The tenant has ${count} webhooks, the most allowed; delete one first`);
        }
        const subscription = await tx.webhookSubscription.create({
          data: access.stamp({
            url: data.url,
            events: data.events,
            description: data.description ?? null,
            enabled: data.enabled,
            secretEncrypted: box.seal(secret),
          }),
        });
        return { ...subscription, secret };
      });
    },

    /** Changes a subscription; enabling a disabled one starts it afresh. */
    async update(access: TenantAccess, id: string, data: z.output<typeof UpdateWebhookDto>, query: WebhookQuery = {}): Promise<WebhookSubscription> {
      access.assert('update', 'Webhook');
      const existing = await findSubscription(db, access, id);
      if (data.url !== undefined && data.url !== existing.url) await assertReachable(data.url);
      const restart = data.enabled === true && !existing.enabled ? { failureCount: 0, failingSince: null, disabledAt: null, disabledReason: null } : {};
      return db.webhookSubscription.update({ ...query, where: { id: existing.id }, data: { ...data, ...restart } });
    },

    /** Deletes a subscription with its delivery log. */
    async remove(access: TenantAccess, id: string, query: WebhookQuery = {}): Promise<WebhookSubscription> {
      access.assert('delete', 'Webhook');
      const existing = await findSubscription(db, access, id);
      return db.webhookSubscription.delete({ ...query, where: { id: existing.id } });
    },

    /** A new signing secret, returned this once; deliveries sign with it from now on. */
    async rotateSecret(access: TenantAccess, id: string): Promise<WebhookWithSecret> {
      access.assert('update', 'Webhook');
      const existing = await findSubscription(db, access, id);
      const secret = newSecret();
      const subscription = await db.webhookSubscription.update({ where: { id: existing.id }, data: { secretEncrypted: box.seal(secret) } });
      return { ...subscription, secret };
    },

    /** Sends a `webhook.test` event to this subscription only (even while disabled); returns its delivery. */
    async test(access: TenantAccess, id: string, query: DeliveryQuery = {}): Promise<WebhookDelivery> {
      access.assert('update', 'Webhook');
      return db.$transaction(async (tx) => {
        const subscription = await findSubscription(tx, access, id);
        const { secretEncrypted: _secret, ...shown } = subscription;
        const event = await tx.event.create({
          data: access.stamp({
            type: 'webhook.test',
            actorType: 'system',
            actorId: null,
            subjectId: subscription.id,
            data: { message: 'A test delivery from Tally', webhook: JSON.parse(JSON.stringify(shown)) as Prisma.InputJsonValue },
            // Delivered here, to this subscription alone: the dispatcher has nothing to do with it.
            processedAt: clock.now(),
          }),
        });
        const delivery = await enqueueDelivery(tx, access, subscription, event.id, event.type);
        return tx.webhookDelivery.findUniqueOrThrow({ ...query, where: { id: delivery.id } });
      });
    },

    /** The deliveries of one subscription with every attempt, newest first. */
    async listDeliveries(access: TenantAccess, input: z.output<typeof ListDeliveriesArgs>, query: DeliveryQuery = {}): Promise<WebhookDelivery[]> {
      access.assert('read', 'Webhook');
      const subscription = await findSubscription(db, access, input.webhookId);
      return db.webhookDelivery.findMany({
        ...query,
        where: { subscriptionId: subscription.id, ...(input.status ? { status: input.status } : {}) },
        orderBy: newestFirst,
        take: input.limit,
        skip: input.offset,
      });
    },

    /** Sends one delivery again now, with its `webhook-id`; the subscription must be enabled. */
    async redeliver(access: TenantAccess, input: z.output<typeof RedeliverArgs>, query: DeliveryQuery = {}): Promise<WebhookDelivery> {
      access.assert('update', 'Webhook');
      return db.$transaction(async (tx) => {
        const subscription = await findSubscription(tx, access, input.webhookId);
        const delivery = await tx.webhookDelivery.findFirst({ where: { id: input.deliveryId, subscriptionId: subscription.id } });
        if (!delivery) throw notFound('Delivery', input.deliveryId);
        if (!subscription.enabled && delivery.eventType !== 'webhook.test') {
          throw webhookConflicts.refuse('WEBHOOK_DISABLED', 'The webhook is disabled; enable it before redelivering');
        }
        await tx.webhookDelivery.update({ where: { id: delivery.id }, data: { status: 'pending', nextAttemptAt: clock.now() } });
        await jobs.send(tx, deliveryQueue, { deliveryId: delivery.id });
        return tx.webhookDelivery.findUniqueOrThrow({ ...query, where: { id: delivery.id } });
      });
    },
  };
}

export type WebhookService = ReturnType<typeof createWebhookService>;
