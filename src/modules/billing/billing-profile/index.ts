import { defineModule } from '../../module.js';
import { createBillingProfileService, type BillingProfileService } from './billing-profile.service.js';
import './billing-profile.graphql.js';

const path = '/tenants/{tenantId}/billing-profile';

/** The billing profile: the seller on a tenant's client invoices (one per tenant). */
export const billingProfileModule = defineModule({
  name: 'billingProfile',
  createService: createBillingProfileService,
  tag: { name: 'BillingProfile', description: "The seller on the tenant's client invoices" },
  routes: [
    {
      controller: 'billingProfile',
      action: 'findOne',
      method: 'GET',
      path,
      field: 'Query.billingProfile',
      status: 200,
      summary: 'Get the billing profile (its defaults until changed)',
    },
    {
      controller: 'billingProfile',
      action: 'update',
      method: 'PATCH',
      path,
      field: 'Mutation.updateBillingProfile',
      status: 200,
      summary: 'Change the billing profile',
    },
  ],
});

declare module '../../services.js' {
  interface Services {
    billingProfile: BillingProfileService;
  }
}
