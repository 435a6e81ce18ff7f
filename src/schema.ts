/**
 * The GraphQL schema, assembled from the module list: importing the modules
 * registers their types, queries and mutations on the builder.
 */
import type { GraphQLSchema } from 'graphql';
import { builder } from './graphql/builder.js';
import { operationExtensionsOf } from './graphql/operations.js';
import { withoutRestOnlyTypes } from './graphql/rest-only.js';
// Importing the modules registers each one's types, queries and mutations on the builder.
import './modules/index.js';

/**
 * Every query, mutation and subscription says who may run it (tenantOperation or
 * plainOperation); one that does not would be open to any caller, so the
 * schema refuses to build.
 */
export function assertEveryOperationDeclaresAccess(built: GraphQLSchema): void {
  for (const root of [built.getQueryType(), built.getMutationType(), built.getSubscriptionType()]) {
    for (const field of Object.values(root?.getFields() ?? {})) {
      const { permission, access } = operationExtensionsOf(field.extensions);
      if (!permission && !access) {
        throw new Error(`${root?.name}.${field.name} declares no access: define it with tenantOperation or plainOperation`);
      }
    }
  }
}

/**
 * Every type the modules declare, REST-only ones too (src/graphql/rest-only.ts): what REST compiles its rows and
 * renders its records against. Built once per process. Field order follows the definitions, so the printed SDL is stable.
 */
export const schemaWithRestTypes = builder.toSchema();
/** The schema GraphQL serves (and schema/schema.graphql prints). */
export const schema = withoutRestOnlyTypes(schemaWithRestTypes);
assertEveryOperationDeclaresAccess(schema);
