import { z } from 'zod';
import type { TenantAccess } from '../../../auth/tenant-access.js';
import { newestFirst } from '../../../db/list.js';
import type { PrismaQuery } from '../../../db/query.js';
import { readEach } from '../../../events/live.js';
import type { Notification, Prisma } from '../../../generated/prisma/client.js';
import { args, fields, pagination } from '../../../lib/dto.js';
import { forbidden, notFound } from '../../../lib/errors.js';
import type { ServiceDependencies } from '../../module.js';

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

/**
 * In-app notifications: created by the outbox dispatcher from events
 * (notification.work.ts), read and cleared by their recipient only (everyone's own, whatever the role).
 */
export function createNotificationService({ db, reads, live, clock }: Pick<ServiceDependencies, 'db' | 'reads' | 'live' | 'clock'>) {
  async function findOwn(access: TenantAccess, id: string, action: 'update' | 'delete'): Promise<Notification> {
    // Everyone's own only: another member's notification is not found (an API key, which has none, finds none).
    const notification = await db.notification.findFirst({ where: { id, ...access.scope(action, 'Notification') } });
    if (!notification) throw notFound('Notification', id);
    return notification;
  }

  return {
    /** The caller's notifications in the tenant, newest first. */
    async list(access: TenantAccess, input: z.output<typeof ListNotificationsArgs>, query: NotificationQuery = {}): Promise<Notification[]> {
      return reads.run(access, ({ db }) =>
        db.notification.findMany({
          ...query,
          where: { ...(input.unreadOnly ? { readAt: null } : {}), ...access.scope('read', 'Notification') },
          orderBy: newestFirst,
          take: input.limit,
          skip: input.offset,
        }),
      );
    },

    /** Marks one of the caller's notifications read (keeping the first time it was read). */
    async markRead(access: TenantAccess, id: string, query: NotificationQuery = {}): Promise<Notification> {
      const own = await findOwn(access, id, 'update');
      return db.notification.update({ ...query, where: { id: own.id }, data: { readAt: own.readAt ?? clock.now() } });
    },

    /** Marks every unread notification of the caller read; returns how many. */
    async markAllRead(access: TenantAccess): Promise<{ count: number }> {
      return db.notification.updateMany({ where: { readAt: null, ...access.scope('update', 'Notification') }, data: { readAt: clock.now() } });
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
      return readEach(ids, async (id) => (await db.notification.findFirst({ where: { id, ...readable } })) ?? undefined);
    },
  };
}

export type NotificationService = ReturnType<typeof createNotificationService>;
