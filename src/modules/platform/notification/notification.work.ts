/**
 * What the workers make of committed events: the notifications they cause,
 * in the outbox dispatcher's transaction (idempotent per event and
 * recipient). Only the dispatcher reaches it.
 */
import type { Tx } from '../../../db/client.js';
import type { OutboxEvent } from '../../../events/dispatcher.js';
import type { TenantRole } from '../../../generated/prisma/enums.js';
import { timezoneOf } from '../tenant/tenant.settings.js';
import { namedRecipients, notificationsFor, notifiedRoles, type Audience, type Member } from './notification.rules.js';

const memberSelect = { id: true, tenantId: true, userId: true, role: true, status: true, name: true, email: true } as const;

export function createNotificationWork() {
  /** Who the events of a batch may notify: one query for the members they name or address by role, one for time zones. */
  async function audienceOf(tx: Tx, events: readonly OutboxEvent[]): Promise<Audience> {
    const named = [...new Set(events.flatMap(namedRecipients))];
    const byRole = new Map<string, Set<TenantRole>>();
    for (const event of events) {
      if (event.tenantId === null) continue;
      for (const role of notifiedRoles(event)) {
        const roles = byRole.get(event.tenantId) ?? new Set<TenantRole>();
        roles.add(role);
        byRole.set(event.tenantId, roles);
      }
    }
    const members: Member[] =
      named.length === 0 && byRole.size === 0
        ? []
        : await tx.tenantUser.findMany({
            where: {
              OR: [
                ...(named.length ? [{ id: { in: named } }] : []),
                // Across the batch's tenants, in one statement: no access exists here (test/architecture/tenant-scope.test.ts).
                ...[...byRole].map(([tenant, roles]) => ({ tenantId: tenant, role: { in: [...roles] }, status: 'active' as const })),
              ],
            },
            select: memberSelect,
          });
    const needsZone = [...new Set(events.flatMap((event) => (event.type.startsWith('entry.') && event.tenantId ? [event.tenantId] : [])))];
    const tenants = needsZone.length ? await tx.tenant.findMany({ where: { id: { in: needsZone } }, select: { id: true, settings: true } }) : [];
    const zones = new Map(tenants.map((tenant) => [tenant.id, timezoneOf(tenant)]));
    const byId = new Map(members.map((member) => [member.id, member]));
    return {
      member: (id) => byId.get(id),
      withRoles: (tenant, roles) => members.filter((member) => member.tenantId === tenant && member.status === 'active' && roles.includes(member.role)),
      timeZone: (tenant) => zones.get(tenant) ?? 'UTC',
    };
  }

  return {
    /** Outbox reaction: the notifications a batch of events causes (idempotent per event and recipient). */
    async fanOut(tx: Tx, events: readonly OutboxEvent[]): Promise<void> {
      const relevant = events.filter((event) => event.tenantId !== null && (namedRecipients(event).length > 0 || notifiedRoles(event).length > 0));
      if (relevant.length === 0) return;
      const audience = await audienceOf(tx, relevant);
      const drafts = relevant.flatMap((event) => notificationsFor(event, audience));
      if (drafts.length === 0) return;
      await tx.notification.createMany({ data: drafts, skipDuplicates: true });
    },
  };
}

export type NotificationWork = ReturnType<typeof createNotificationWork>;
