import { builder } from '../../../graphql/builder.js';
import { moneyField } from '../../../graphql/money.js';
import { tenantOperation } from '../../../graphql/operations.js';
import { ListRemindersArgs, type ReminderView, SendReminderArgs } from './payment-reminder.service.js';

const ReminderObject = builder.objectRef<ReminderView>('ClientInvoiceReminder').implement({
  description: 'A payment reminder of an overdue invoice: its level, fee and the amount open when it was made.',
  fields: (t) => ({
    id: t.exposeID('id'),
    level: t.exposeInt('level', { description: '1 for the first level of the billing profile’s reminderLevels' }),
    daysOverdue: t.exposeInt('daysOverdue', { description: 'Days past the due date when it was made' }),
    feeAmount: t.field(
      moneyField<ReminderView>(
        'The fee it adds',
        (reminder) => reminder.feeAmount,
        (reminder) => reminder.currency,
      ),
    ),
    openAmount: t.field(
      moneyField<ReminderView>(
        'What was open of the invoice (without the fee)',
        (reminder) => reminder.openAmount,
        (reminder) => reminder.currency,
      ),
    ),
    currency: t.exposeString('currency'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    sentAt: t.expose('sentAt', { type: 'DateTime', nullable: true, description: 'Null until it is sent' }),
  }),
});

const listReminders = tenantOperation(ListRemindersArgs, ['read', 'ClientInvoice']);

builder.queryField('clientInvoiceReminders', (t) =>
  t.field({
    type: [ReminderObject],
    description: "The invoice's payment reminders, by level.",
    ...listReminders.field(t),
    resolve: listReminders.resolve((input, access, { services }) => services.paymentReminders.list(access, input)),
  }),
);

const sendReminder = tenantOperation(SendReminderArgs, ['update', 'ClientInvoice']);

builder.mutationField('sendClientInvoiceReminder', (t) =>
  t.field({
    type: ReminderObject,
    description:
      'Sends a payment reminder by e-mail with its PDF, from a worker (with SMTP configured: sentAt once the SMTP server accepted it), or only marks it sent.',
    ...sendReminder.field(t),
    resolve: sendReminder.resolve((input, access, { services }) => services.paymentReminders.send(access, input)),
  }),
);
