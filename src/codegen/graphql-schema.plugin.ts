import { renderGraphQLSchema } from './artifacts.js';

/** GraphQL Code Generator plugin: schema/schema.graphql from the Pothos schema. */
export const plugin = (): string => renderGraphQLSchema();
