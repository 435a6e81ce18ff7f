/**
 * The GraphQL schema: importing a module's .graphql.ts registers its types,
 * queries and mutations on the builder. A new resource adds one line here.
 */
import { builder } from './builder.js';
import '../modules/note/note.graphql.js';

/** Built once per process. Field order follows the definitions, so the printed SDL is stable. */
export const schema = builder.toSchema();
