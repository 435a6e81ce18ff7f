/**
 * What a module is: a name (its key in `context.services`), a service
 * factory, its REST rows, and its GraphQL types (registered on the builder by
 * importing its `.graphql.ts` from the manifest). src/modules/index.ts lists
 * the modules once; the services, the schema and the route table are built
 * from that list.
 */
import type { Config } from '../config.js';
import type { Db, Sql } from '../db/client.js';
import type { Logger } from '../lib/logger.js';
import type { Secrets } from '../lib/secrets.js';
import type { RouteSpec } from '../rest/route.js';

/** What a service factory may use. Services declare the parts they need. */
export interface ServiceDependencies {
  db: Db;
  sql: Sql;
  log: Logger;
  config: Config;
  secrets: Secrets;
}

export interface ModuleDefinition<Name extends string = string, Service = unknown> {
  name: Name;
  createService(dependencies: ServiceDependencies): Service;
  /** REST rows: a `crud()` block plus the irregular rows beside it. */
  routes: readonly RouteSpec[];
}

export function defineModule<const Name extends string, Service>(module: ModuleDefinition<Name, Service>): ModuleDefinition<Name, Service> {
  return module;
}
