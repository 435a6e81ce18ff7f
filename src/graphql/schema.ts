/**
 * The GraphQL schema: importing a module's .graphql.ts registers its types,
 * queries and mutations on the builder. A new resource adds one line here.
 */
import { builder } from './builder.js';
import '../modules/tenant/tenant.graphql.js';
import '../modules/user/user.graphql.js';
import '../modules/api-key/api-key.graphql.js';
import '../modules/note/note.graphql.js';
import '../modules/admin/admin.graphql.js';

/** Built once per process. Field order follows the definitions, so the printed SDL is stable. */
export const schema = builder.toSchema();
