/**
 * The webhook work the workers run: turning committed events into
 * deliveries (in the outbox dispatcher's transaction), sending one attempt,
 * retrying with backoff, disabling a subscription that keeps failing, and
 * giving up on a delivery whose job keeps failing. Jobs reach it through
 * their JobContext; no resolver can.
 */
import { systemActor } from '../../../auth/actor.js';
import type { Tx } from '../../../db/client.js';
import type { OutboxEvent } from '../../../events/dispatcher.js';
import { envelopeOf } from '../../../events/envelope.js';
import { recordEvent } from '../../../events/outbox.js';
import type { WebhookDelivery, WebhookSubscription } from '../../../generated/prisma/client.js';
import { createSecretBox } from '../../../lib/crypto.js';
import type { Logger } from '../../../lib/logger.js';
import { createOutboundAgents } from '../../../lib/outbound.js';
import type { WorkDependencies } from '../../module.js';
import { sendSignedRequest, type AttemptOutcome } from './webhook.delivery.js';
import { deliveryQueue } from './webhook.jobs.js';

/** After a failed attempt n (1-based), the next waits retryDelays[n - 1]; after the last, the delivery has failed. */
export const retryDelaysMs = [5, 300, 1800, 7200, 18_000, 36_000, 86_400].map((seconds) => seconds * 1000);
const disableAfterFailingMs = 5 * 24 * 3600 * 1000;

export function createWebhookWork({ db, config, secrets, jobs, clock }: Pick<WorkDependencies, 'db' | 'config' | 'secrets' | 'jobs' | 'clock'>) {
  const box = createSecretBox(secrets.encryptionKey);
  const agents = createOutboundAgents({ allowPrivate: config.webhookAllowPrivateUrls });

  /** Stops deliveries to a subscription and tells the tenant's admins (through `webhook.disabled`). */
  async function disable(tx: Tx, subscription: WebhookSubscription, reason: string): Promise<void> {
    const disabled = await tx.webhookSubscription.update({
      where: { id: subscription.id },
      data: { enabled: false, disabledAt: clock.now(), disabledReason: reason },
    });
    const { secretEncrypted: _secret, ...shown } = disabled;
    await recordEvent(
      tx,
      { tenantId: subscription.tenantId, actor: systemActor('webhooks') },
      { type: 'webhook.disabled', subjectId: subscription.id, data: shown },
    );
  }

  /** Writes what one attempt did: the log row, the delivery's state, the subscription's failures, the next attempt. */
  async function recordAttempt(delivery: WebhookDelivery, subscription: WebhookSubscription, outcome: AttemptOutcome, log: Logger): Promise<void> {
    await db.$transaction(async (tx) => {
      const now = clock.now();
      const result = { responseStatus: outcome.responseStatus, lastError: outcome.error };
      // The row lock orders attempts that race (a redelivery beside a retry); the count numbers them.
      // A success settles the delivery in the same statement: the common path is two statements.
      const { attempts } = await tx.webhookDelivery.update({
        where: { id: delivery.id },
        data: { attempts: { increment: 1 }, ...(outcome.ok ? { ...result, status: 'succeeded', deliveredAt: now, nextAttemptAt: null } : {}) },
        select: { attempts: true },
      });
      await tx.webhookDeliveryAttempt.create({
        data: {
          deliveryId: delivery.id,
          attempt: attempts,
          responseStatus: outcome.responseStatus,
          responseBody: outcome.responseBody,
          error: outcome.error,
          durationMs: outcome.durationMs,
        },
      });
      if (outcome.ok) {
        // A subscription read as healthy needs no reset; one that failed meanwhile is reset by its next success.
        if (subscription.failureCount > 0) {
          await tx.webhookSubscription.updateMany({ where: { id: subscription.id, failureCount: { gt: 0 } }, data: { failureCount: 0, failingSince: null } });
        }
        log.debug({ deliveryId: delivery.id, attempt: attempts, status: outcome.responseStatus, ms: outcome.durationMs }, 'webhook delivered');
        return;
      }
      log.info(
        { deliveryId: delivery.id, webhookId: subscription.id, tenantId: subscription.tenantId, attempt: attempts, error: outcome.error },
        'webhook attempt failed',
      );
      const failing = await tx.webhookSubscription.update({
        where: { id: subscription.id },
        data: { failureCount: { increment: 1 }, failingSince: subscription.failingSince ?? now },
      });
      const gone = outcome.responseStatus === 410;
      const failingTooLong = failing.failingSince !== null && now.getTime() - failing.failingSince.getTime() >= disableAfterFailingMs;
      if ((gone || failingTooLong) && subscription.enabled) {
        await disable(tx, failing, gone ? 'The receiver answered 410 Gone' : 'Deliveries failed for 5 days');
      }
      const delay = retryDelaysMs[attempts - 1];
      if (gone || failingTooLong || delay === undefined) {
        await tx.webhookDelivery.update({ where: { id: delivery.id }, data: { ...result, status: 'failed', nextAttemptAt: null } });
        return;
      }
      const nextAttemptAt = new Date(now.getTime() + delay);
      await tx.webhookDelivery.update({ where: { id: delivery.id }, data: { ...result, status: 'pending', nextAttemptAt } });
      await jobs.send(tx, deliveryQueue, { deliveryId: delivery.id }, { startAfterSeconds: Math.ceil(delay / 1000) });
    });
  }

  return {
    /** Outbox reaction: a delivery (and its job) for each enabled subscription that wants the event. */
    async fanOut(tx: Tx, committed: readonly OutboxEvent[]): Promise<void> {
      const tenants = [...new Set(committed.flatMap((event) => (event.tenantId && event.type !== 'webhook.test' ? [event.tenantId] : [])))];
      if (tenants.length === 0) return;
      // Across the batch's tenants, in one statement: no access exists here (test/architecture/tenant-scope.test.ts).
      const subscriptions = await tx.webhookSubscription.findMany({
        where: { tenantId: { in: tenants }, enabled: true },
        select: { id: true, tenantId: true, events: true },
      });
      if (subscriptions.length === 0) return;
      // A subscription made after an event committed does not get it, however late the dispatcher reaches the event
      // (a worker behind, or the linger of a wake-up): the pairs where the subscription's creating snapshot saw the
      // event's transaction. Mostly none; one statement per batch that has subscriptions.
      const before = await tx.$queryRawUnsafe<{ eventId: string; subscriptionId: string }[]>(
        `SELECT e.id AS "eventId", s.id AS "subscriptionId" FROM events e, webhook_subscriptions s
          WHERE e.id = ANY($1::text[]) AND s.id = ANY($2::text[]) AND pg_visible_in_snapshot(e.txid, s."createdSnapshot")`,
        committed.map((event) => event.id),
        subscriptions.map((subscription) => subscription.id),
      );
      const older = new Set(before.map((pair) => `${pair.eventId} ${pair.subscriptionId}`));
      const now = clock.now();
      const rows = committed.flatMap((event) =>
        subscriptions
          .filter(
            (subscription) =>
              subscription.tenantId === event.tenantId &&
              event.type !== 'webhook.test' &&
              (subscription.events.includes('*') || subscription.events.includes(event.type)) &&
              !older.has(`${event.id} ${subscription.id}`),
          )
          .map((subscription) => ({
            tenantId: subscription.tenantId,
            subscriptionId: subscription.id,
            eventId: event.id,
            eventType: event.type,
            nextAttemptAt: now,
          })),
      );
      if (rows.length === 0) return;
      const created = await tx.webhookDelivery.createManyAndReturn({ data: rows, skipDuplicates: true, select: { id: true } });
      await jobs.sendMany(
        tx,
        deliveryQueue,
        created.map(({ id }) => ({ deliveryId: id })),
      );
    },

    /**
     * Worker: one attempt of a delivery. A job that finds its delivery done,
     * deleted, or scheduled later (a redelivery overtook it) does nothing.
     */
    async deliver(deliveryId: string, log: Logger): Promise<void> {
      const delivery = await db.webhookDelivery.findUnique({ where: { id: deliveryId }, include: { subscription: true, event: true } });
      if (!delivery || delivery.status !== 'pending') return;
      if (delivery.nextAttemptAt && delivery.nextAttemptAt.getTime() > clock.now().getTime() + 1000) return;
      const { subscription, event, ...row } = delivery;
      if (!subscription.enabled && row.eventType !== 'webhook.test') {
        await db.webhookDelivery.updateMany({
          where: { id: row.id, status: 'pending' },
          data: { status: 'failed', nextAttemptAt: null, lastError: 'not sent: the webhook is disabled' },
        });
        return;
      }
      const outcome = await sendSignedRequest(
        { url: subscription.url, secret: box.open(subscription.secretEncrypted), messageId: event.id, payload: JSON.stringify(envelopeOf(event)) },
        agents,
      );
      await recordAttempt(row, subscription, outcome, log);
    },

    /** Worker: a delivery whose job kept failing (not the receiver: the worker) is recorded as failed. */
    async abandon(deliveryId: string, log: Logger): Promise<void> {
      const { count } = await db.webhookDelivery.updateMany({
        where: { id: deliveryId, status: 'pending' },
        data: { status: 'failed', nextAttemptAt: null, lastError: 'given up: the delivery job failed repeatedly (see the worker logs)' },
      });
      if (count > 0) log.error({ deliveryId }, 'a webhook delivery was abandoned after its job failed repeatedly');
    },
  };
}

export type WebhookWork = ReturnType<typeof createWebhookWork>;
