import { contentDisposition } from '../../../lib/content-disposition.js';
import { defineModule, job, type JobContext } from '../../module.js';
import { nativeRoute } from '../../../rest/route.js';
import { paymentReminderSweepQueue } from './payment-reminder.jobs.js';
import { createPaymentReminderService, type PaymentReminderService, ReminderArgs } from './payment-reminder.service.js';
import { createPaymentReminderWork, type PaymentReminderWork } from './payment-reminder.work.js';
import './payment-reminder.graphql.js';

const reminders = '/tenants/{tenantId}/client-invoices/{clientInvoiceId}/reminders';

/** Payment reminders: overdue invoices raised level by level by a daily sweep, each with its kept PDF (CONTRACT.md section 11). */
export const paymentReminderModule = defineModule({
  name: 'paymentReminders',
  createService: createPaymentReminderService,
  tag: { name: 'ClientInvoices', description: 'Invoices to clients from approved time: gapless numbers, EN 16931 taxes, credit notes' },
  routes: [
    {
      controller: 'clientInvoice',
      action: 'findReminders',
      method: 'GET',
      path: reminders,
      field: 'Query.clientInvoiceReminders',
      status: 200,
      summary: "List the invoice's payment reminders, by level",
    },
    {
      controller: 'clientInvoice',
      action: 'sendReminder',
      method: 'POST',
      path: `${reminders}/{reminderId}/send`,
      field: 'Mutation.sendClientInvoiceReminder',
      status: 200,
      summary: 'Send a payment reminder by e-mail with its PDF (without SMTP configured: only mark it sent)',
    },
    nativeRoute({
      controller: 'clientInvoice',
      action: 'reminderPdf',
      method: 'GET',
      path: `${reminders}/{reminderId}/pdf`,
      summary: 'A payment reminder as a PDF',
      description: 'The reminder in the language the invoice was issued in, with its fee and the open amount, as written when it was made.',
      access: ['read', 'ClientInvoice'],
      parameters: ReminderArgs,
      responses: {
        '200': {
          description: 'The PDF',
          contentType: 'application/pdf',
          headers: { 'content-disposition': 'attachment, e.g. reminder-2-invoice-2026-0042.pdf' },
        },
      },
      async handler({ access, parameters, context }) {
        const file = await context.services.paymentReminders.file(access, parameters.clientInvoiceId, parameters.reminderId);
        return {
          status: 200,
          headers: { 'content-type': 'application/pdf', 'content-disposition': contentDisposition(file.fileName), 'x-content-type-options': 'nosniff' },
          body: file.content,
        };
      },
    }),
  ],
  createWork: createPaymentReminderWork,
  jobs: [job(paymentReminderSweepQueue, async (_data, { work, log }: JobContext<PaymentReminderWork>) => void (await work.remindOverdue(log)))],
  // Daily, and on every worker's start (a worker that was down on the day catches up).
  schedules: [{ queue: paymentReminderSweepQueue, cron: '15 6 * * *', onStart: true }],
});

declare module '../../services.js' {
  interface Services {
    paymentReminders: PaymentReminderService;
  }
}
