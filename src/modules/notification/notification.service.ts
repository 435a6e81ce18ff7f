import { z } from 'zod';
import type { TenantAccess } from '../../auth/tenant-access.js';
import type { Tx } from '../../db/client.js';
import { newestFirst } from '../../db/list.js';
import type { PrismaQuery } from '../../db/query.js';
import type { OutboxEvent } from '../../events/dispatcher.js';
import type { Notification, Prisma } from '../../generated/prisma/client.js';
import type { TenantRole } from '../../generated/prisma/enums.js';
import { args, fields, pagination } from '../../lib/dto.js';
import { forbidden, notFound } from '../../lib/errors.js';
import type { ServiceDependencies } from '../module.js';
import { settingsOf } from '../tenant/tenant.service.js';
import { namedRecipients, notificationsFor, notifiedRoles, type Audience, type Member } from './notification.rules.js';

const tenantId = fields.id('Tenant id');
const notificationId = fields.id('Notification id');
export const ListNotificationsArgs = args({
  tenantId,
  unreadOnly: z.boolean().default(false).describe('Only notifications not read yet'),
  ...pagination,
});
export const NotificationArgs = args({ tenantId, id: notificationId });
export const TenantNotificationsArgs = args({ tenantId });

export type NotificationQuery = PrismaQuery<Prisma.NotificationInclude, Prisma.NotificationSelect>;

const memberSelect = { id: true, tenantId: true, userId: true, role: true, status: true, name: true, email: true } as const;

/**
 * In-app notifications: created by the outbox dispatcher from events, read
 * and cleared by their recipient only (everyone's own, whatever the role).
 */
export function createNotificationService({ db, live }: Pick<ServiceDependencies, 'db' | 'live'>) {
  async function findOwn(access: TenantAccess, id: string, action: 'update' | 'delete'): Promise<Notification> {
    // Everyone's own only: another member's notification is not found (an API key, which has none, finds none).
    const notification = await db.notification.findFirst({ where: { id, ...access.scope(action, 'Notification') } });
    if (!notification) throw notFound('Notification', id);
    return notification;
  }

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
    const roleFilters = [...byRole].map(([tenant, roles]) => ({ tenantId: tenant, role: { in: [...roles] }, status: 'active' as const }));
    const members: Member[] =
      named.length === 0 && roleFilters.length === 0
        ? []
        : await tx.tenantUser.findMany({ where: { OR: [...(named.length ? [{ id: { in: named } }] : []), ...roleFilters] }, select: memberSelect });
    const needsZone = [...new Set(events.flatMap((event) => (event.type.startsWith('entry.') && event.tenantId ? [event.tenantId] : [])))];
    const tenants = needsZone.length ? await tx.tenant.findMany({ where: { id: { in: needsZone } }, select: { id: true, settings: true } }) : [];
    const zones = new Map(tenants.map((tenant) => [tenant.id, settingsOf(tenant).timezone]));
    const byId = new Map(members.map((member) => [member.id, member]));
    return {
      member: (id) => byId.get(id),
      withRoles: (tenant, roles) => members.filter((member) => member.tenantId === tenant && member.status === 'active' && roles.includes(member.role)),
      timeZone: (tenant) => zones.get(tenant) ?? 'UTC',
    };
  }

  return {
    /** The caller's notifications in the tenant, newest first. */
    async list(access: TenantAccess, input: z.output<typeof ListNotificationsArgs>, query: NotificationQuery = {}): Promise<Notification[]> {
      return db.notification.findMany({
        ...query,
        where: { ...(input.unreadOnly ? { readAt: null } : {}), ...access.scope('read', 'Notification') },
        orderBy: newestFirst,
        take: input.limit,
        skip: input.offset,
      });
    },

    /** Marks one of the caller's notifications read (keeping the first time it was read). */
    async markRead(access: TenantAccess, id: string, query: NotificationQuery = {}): Promise<Notification> {
      const own = await findOwn(access, id, 'update');
      return db.notification.update({ ...query, where: { id: own.id }, data: { readAt: own.readAt ?? new Date() } });
    },

    /** Marks every unread notification of the caller read; returns how many. */
    async markAllRead(access: TenantAccess): Promise<{ count: number }> {
      return db.notification.updateMany({ where: { readAt: null, ...access.scope('update', 'Notification') }, data: { readAt: new Date() } });
    },

    /** Deletes one of the caller's notifications. */
    async remove(access: TenantAccess, id: string, query: NotificationQuery = {}): Promise<Notification> {
      const own = await findOwn(access, id, 'delete');
      return db.notification.delete({ ...query, where: { id: own.id } });
    },

    /**
     * The caller's new notifications as they are created, by any process:
     * each pushed id is read back as the caller, so nothing else leaks.
     */
    async live(access: TenantAccess): Promise<AsyncIterable<Notification>> {
      const readable = access.scope('read', 'Notification');
      // The stream is keyed by recipient: a caller who owns no notifications (an API key) has none to follow.
      const recipient = readable.tenantUserId;
      if (typeof recipient !== 'string') throw forbidden('Notifications belong to members; an API key has none');
      const ids = await live.notificationsOf(recipient);
      async function* notifications(): AsyncGenerator<Notification> {
        try {
          for await (const id of ids) {
            const notification = await db.notification.findFirst({ where: { id, ...readable } });
            if (notification) yield notification;
          }
        } finally {
          await ids.return();
        }
      }
      return notifications();
    },

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

export type NotificationService = ReturnType<typeof createNotificationService>;
