/** Billing: the invoices a tenant sends. Uses every domain below it (expenses will reuse the inbox's reader). */
import { defineDomain } from '../domain.js';
import { billingProfileModule } from './billing-profile/index.js';
import { clientInvoiceModule } from './client-invoice/index.js';
import { paymentReminderModule } from './payment-reminder/index.js';
import { recurringInvoiceModule } from './recurring-invoice/index.js';

export const billingDomain = defineDomain({
  name: 'billing',
  description:
    "Billing clients for their time: the seller's billing profile, and invoices and credit notes from approved time, with their PDF and e-invoice files.",
  uses: ['platform', 'tracking', 'inbox', 'time'],
  modules: [billingProfileModule, clientInvoiceModule, paymentReminderModule, recurringInvoiceModule],
});
