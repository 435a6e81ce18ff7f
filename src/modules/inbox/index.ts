/** Inbox: the invoices a tenant receives. Uses the platform and tracking (a received invoice is assigned to a project). */
import { defineDomain } from '../domain.js';
import { receivedInvoiceModule } from './received-invoice/index.js';
import { syncModule } from './sync/index.js';

export const inboxDomain = defineDomain({
  name: 'inbox',
  description: 'Received invoices and receipts: uploaded or fetched from a mailbox (IMAP sync), read exactly as e-invoices, else with OCR.',
  uses: ['platform', 'tracking'],
  modules: [receivedInvoiceModule, syncModule],
});
