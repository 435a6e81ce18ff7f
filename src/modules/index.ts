/**
 * Every domain, once, lowest first; each domain's manifest lists its modules
 * (src/modules/domain.ts). The services (src/services.ts), the GraphQL
 * schema (src/schema.ts), the REST route table (src/routes.ts) and the
 * workers (src/worker.ts) are built from `modules`: adding a resource is a
 * module folder in its domain and one line in the domain's manifest.
 */
import { billingDomain } from './billing/index.js';
import { inboxDomain } from './inbox/index.js';
import { insightDomain } from './insight/index.js';
import type { DomainDefinition } from './domain.js';
import type { ModuleDefinition } from './module.js';
import { platformDomain } from './platform/index.js';
import { timeDomain } from './time/index.js';
import { trackingDomain } from './tracking/index.js';

export const domains = [platformDomain, trackingDomain, inboxDomain, timeDomain, billingDomain, insightDomain] as const;

/**
 * The order the REST document (schema/openapi.json) has listed the modules' tags and paths in since before
 * the modules were grouped into domains, by module name. Clients generated from it and every diff of it read
 * that order, so it stays: these modules come first, in this order, and a module not named here follows
 * them in the order of the domains and their manifests. A new module needs no line here.
 */
const publishedOrder: readonly string[] = [
  'tenants',
  'users',
  'apiKeys',
  'notes',
  'admin',
  'clients',
  'billingProfile',
  'projects',
  'projectMembers',
  'taskLists',
  'tasks',
  'vehicles',
  'entries',
  'invoices',
  'clientInvoices',
  'syncs',
  'search',
  'reports',
  'imports',
  'notifications',
  'webhooks',
  'events',
  'workSchedules',
  'holidays',
  'absenceTypes',
  'absences',
  'timeBalances',
  'vacations',
  'timesheets',
  'calendars',
];

/** `list` in the published order, the rest after it in their own order (a stable sort). */
function inPublishedOrder<Module extends ModuleDefinition>(list: readonly Module[]): readonly Module[] {
  const rank = (module: Module) => {
    const index = publishedOrder.indexOf(module.name);
    return index === -1 ? publishedOrder.length : index;
  };
  return [...list].sort((a, b) => rank(a) - rank(b));
}

/** A module of one of `Domains`, with its own name, service and work types (the services and work objects are typed from them). */
type ModuleOf<Domains extends readonly Pick<DomainDefinition, 'modules'>[]> = Domains[number]['modules'][number];

/** Every module, once: those of every domain. */
export const modules = inPublishedOrder(domains.flatMap<ModuleOf<typeof domains>>((domain) => domain.modules));
