/** Billing: the invoices a tenant sends, and the expenses billed on them. Uses every domain below it (expenses re-bill the inbox's received invoices). */
import { defineDomain } from '../domain.js';
import { billingProfileModule } from './billing-profile/index.js';
import { clientInvoiceModule } from './client-invoice/index.js';
import { expenseModule } from './expense/index.js';
import { paymentReminderModule } from './payment-reminder/index.js';
import { recurringInvoiceModule } from './recurring-invoice/index.js';

export const billingDomain = defineDomain({
  name: 'billing',
  description:
    "Billing clients for their time and expenses: the seller's billing profile, members' expenses, and invoices and credit notes from approved time and expenses, with their PDF and e-invoice files.",
  uses: ['platform', 'tracking', 'inbox', 'time'],
  modules: [billingProfileModule, expenseModule, clientInvoiceModule, paymentReminderModule, recurringInvoiceModule],
});
