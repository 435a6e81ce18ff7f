import { z } from 'zod';
import type { TenantAccess } from '../../auth/tenant-access.js';
import { envelopeOf, type EventEnvelope } from '../../events/envelope.js';
import { eventTypes } from '../../events/outbox.js';
import { args, fields } from '../../lib/dto.js';
import type { ServiceDependencies } from '../module.js';

export const TenantEventsArgs = args({
  tenantId: fields.id('Tenant id'),
  types: z
    .array(z.string().pipe(z.enum(eventTypes, { error: `must be an event type (${eventTypes.join(', ')})` })))
    .max(eventTypes.length)
    .optional()
    .describe('Only these event types (default: all)'),
});

/** The tenant's events as they commit, for admins: the envelopes webhooks carry, over a socket. */
export function createEventService({ db, live }: Pick<ServiceDependencies, 'db' | 'live'>) {
  return {
    /** The tenant's events from now on, optionally of some types only, from any process. */
    async live(access: TenantAccess, input: z.output<typeof TenantEventsArgs>): Promise<AsyncIterable<EventEnvelope>> {
      access.assert('read', 'Webhook');
      const wanted = input.types && input.types.length > 0 ? new Set<string>(input.types) : undefined;
      const feed = await live.eventsOf(access.tenantId);
      async function* envelopes(): AsyncGenerator<EventEnvelope> {
        try {
          for await (const pushed of feed) {
            if (wanted && !wanted.has(pushed.type)) continue;
            const event = await db.event.findFirst({ where: { id: pushed.id, tenantId: access.tenantId } });
            if (event) yield envelopeOf(event);
          }
        } finally {
          await feed.return();
        }
      }
      return envelopes();
    },
  };
}

export type EventService = ReturnType<typeof createEventService>;
