import { renderOpenApi } from './artifacts.js';

/** GraphQL Code Generator plugin: schema/openapi.json from the route table. */
export const plugin = (): string => renderOpenApi();
