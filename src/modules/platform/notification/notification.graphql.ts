import { builder } from '../../../graphql/builder.js';
import { tenantOperation } from '../../../graphql/operations.js';
import { resourceFields } from '../../../graphql/resource-fields.js';
import type { Notification } from '../../../generated/prisma/client.js';
import { ListNotificationsArgs, NotificationArgs, TenantNotificationsArgs, type NotificationQuery } from './notification.service.js';

const NotificationRef = builder.prismaObject('Notification', {
  description: 'An in-app notification of one member; nobody else ever sees it.',
  fields: (t) => ({
    id: t.exposeID('id'),
    tenantId: t.exposeID('tenantId'),
    tenantUserId: t.exposeID('tenantUserId', { description: 'The recipient' }),
    type: t.exposeString('type', { description: 'The event that caused it, e.g. entry.rejected' }),
    title: t.exposeString('title'),
    body: t.exposeString('body', { nullable: true }),
    data: t.field({
      type: 'JSONObject',
      nullable: true,
      description: 'Ids of what it is about (entryId, taskId, ...)',
      resolve: (notification) => (notification.data as Record<string, unknown> | null) ?? null,
    }),
    eventId: t.exposeID('eventId', { nullable: true }),
    readAt: t.expose('readAt', { type: 'DateTime', nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

const MarkedRead = builder.objectRef<{ count: number }>('MarkedRead').implement({
  description: 'How many notifications were marked read.',
  fields: (t) => ({ count: t.exposeInt('count') }),
});

const markRead = tenantOperation(NotificationArgs, ['update', 'Notification']);
const markAllRead = tenantOperation(TenantNotificationsArgs, ['update', 'Notification']);
const notificationAdded = tenantOperation(TenantNotificationsArgs, ['read', 'Notification']);

builder.mutationFields((t) => ({
  markNotificationRead: t.prismaField({
    type: 'Notification',
    description: 'Marks one of your notifications read.',
    ...markRead.field(t),
    resolve: markRead.resolveQuery((input, access, query: NotificationQuery, { services }) => services.notifications.markRead(access, input.id, query)),
  }),
  markAllNotificationsRead: t.field({
    type: MarkedRead,
    description: 'Marks all your unread notifications in the tenant read.',
    ...markAllRead.field(t),
    resolve: markAllRead.resolve((_input, access, { services }) => services.notifications.markAllRead(access)),
  }),
}));

resourceFields('Notification', {
  subject: 'Notification',
  service: (services) => services.notifications,
  queries: {
    notifications: { list: ListNotificationsArgs, description: "The caller's notifications in the tenant, newest first." },
  },
  mutations: {
    deleteNotification: { remove: NotificationArgs, description: 'Deletes one of your notifications. GraphQL returns the deleted notification.' },
  },
});

builder.subscriptionFields((t) => ({
  notificationAdded: t.field({
    type: NotificationRef,
    description: 'Your new notifications in the tenant, live, whichever server created them (graphql-ws).',
    ...notificationAdded.field(t),
    subscribe: notificationAdded.subscribe((_input, access, { services }) => services.notifications.live(access)),
    resolve: (notification: Notification) => notification,
  }),
}));
