import { defineModule } from '../../module.js';
import { createNotificationService, type NotificationService } from './notification.service.js';
import { createNotificationWork } from './notification.work.js';
import './notification.graphql.js';

const notifications = '/tenants/{tenantId}/notifications';

/** In-app notifications: made from events by the workers, pushed live, read by their recipient alone. */
export const notificationModule = defineModule({
  name: 'notifications',
  createService: createNotificationService,
  tag: { name: 'Notifications', description: "The caller's in-app notifications" },
  routes: [
    {
      controller: 'notification',
      action: 'findAll',
      method: 'GET',
      path: notifications,
      field: 'Query.notifications',
      status: 200,
      summary: 'List your notifications, newest first',
    },
    {
      controller: 'notification',
      action: 'markRead',
      method: 'POST',
      path: `${notifications}/{notificationId}/read`,
      field: 'Mutation.markNotificationRead',
      status: 200,
      summary: 'Mark a notification read',
    },
    {
      controller: 'notification',
      action: 'markAllRead',
      method: 'POST',
      path: `${notifications}/read-all`,
      field: 'Mutation.markAllNotificationsRead',
      status: 200,
      summary: 'Mark all your notifications read',
    },
    {
      controller: 'notification',
      action: 'remove',
      method: 'DELETE',
      path: `${notifications}/{notificationId}`,
      field: 'Mutation.deleteNotification',
      status: 204,
      summary: 'Delete a notification',
    },
  ],
  createWork: createNotificationWork,
  reactsToEvents: (work, tx, events) => work.fanOut(tx, events),
});

declare module '../../services.js' {
  interface Services {
    notifications: NotificationService;
  }
}
