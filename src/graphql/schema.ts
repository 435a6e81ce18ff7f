/**
 * The GraphQL schema: importing a module's .graphql.ts registers its types,
 * queries and mutations on the builder. A new resource adds one line here.
 */
import type { GraphQLSchema } from 'graphql';
import { builder } from './builder.js';
import { operationExtensionsOf } from './inputs.js';
import '../modules/tenant/tenant.graphql.js';
import '../modules/user/user.graphql.js';
import '../modules/api-key/api-key.graphql.js';
import '../modules/note/note.graphql.js';
import '../modules/admin/admin.graphql.js';

/**
 * Every query and mutation says who may run it (tenantOperation or
 * plainOperation); one that does not would be open to any caller, so the
 * schema refuses to build.
 */
export function assertEveryOperationDeclaresAccess(built: GraphQLSchema): void {
  for (const root of [built.getQueryType(), built.getMutationType()]) {
    for (const field of Object.values(root?.getFields() ?? {})) {
      const { permission, access } = operationExtensionsOf(field.extensions);
      if (!permission && !access) {
        throw new Error(`${root?.name}.${field.name} declares no access: define it with tenantOperation or plainOperation`);
      }
    }
  }
}

/** Built once per process. Field order follows the definitions, so the printed SDL is stable. */
export const schema = builder.toSchema();
assertEveryOperationDeclaresAccess(schema);
