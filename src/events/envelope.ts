/**
 * The envelope an event travels in, to webhooks and to `tenantEvents`
 * subscribers alike (CONTRACT.md section 6):
 * `{ type, timestamp, tenantId, actor: { type, id }, data }`.
 */
import type { ActorType } from '../generated/prisma/enums.js';

export interface EventEnvelope {
  /** The event id: also the `webhook-id` of its deliveries. */
  id: string;
  type: string;
  /** When the change was committed (ISO 8601 UTC). */
  timestamp: string;
  tenantId: string | null;
  actor: { type: ActorType; id: string | null };
  /** The resource as the API shows it. */
  data: unknown;
}

export interface EnvelopeSource {
  id: string;
  type: string;
  tenantId: string | null;
  actorType: ActorType;
  actorId: string | null;
  data: unknown;
  createdAt: Date;
}

export function envelopeOf(event: EnvelopeSource): EventEnvelope {
  return {
    id: event.id,
    type: event.type,
    timestamp: event.createdAt.toISOString(),
    tenantId: event.tenantId,
    actor: { type: event.actorType, id: event.actorId },
    data: event.data,
  };
}
