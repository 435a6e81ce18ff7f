/** Insight: what reads across the other domains. The highest: every domain is below it, and none uses it. */
import { defineDomain } from '../domain.js';
import { eventModule } from './event/index.js';
import { reportModule } from './report/index.js';
import { searchModule } from './search/index.js';

export const insightDomain = defineDomain({
  name: 'insight',
  description: 'Reading across the domains: reports and their files, full-text search over entries, projects and invoices, and the change feed.',
  uses: ['platform', 'tracking', 'inbox', 'time', 'billing'],
  modules: [reportModule, searchModule, eventModule],
});
