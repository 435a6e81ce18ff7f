import { defineModule } from '../../module.js';
import { createSearchService, type SearchService } from './search.service.js';
import './search.graphql.js';

/** Full-text search across entries, invoices and projects. */
export const searchModule = defineModule({
  name: 'search',
  createService: createSearchService,
  tag: { name: 'Search', description: 'Full-text search over entries, invoices and projects' },
  routes: [
    {
      controller: 'search',
      action: 'search',
      method: 'GET',
      path: '/tenants/{tenantId}/search',
      field: 'Query.search',
      status: 200,
      summary: 'Search entries, invoices and projects',
    },
  ],
});

declare module '../../services.js' {
  interface Services {
    search: SearchService;
  }
}
