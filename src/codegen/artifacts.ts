/**
 * The generated files of the repository, rendered from the running code.
 * `npm run codegen` writes them (codegen.ts); a test fails when the committed
 * copies differ from what these functions return.
 */
import { printSchema } from 'graphql';
import { loadConfig } from '../config.js';
import { compileRestApi, openApiDocumentOf } from '../rest/rest-api.js';
import { routeTable } from '../routes.js';
import { schema, schemaWithRestTypes } from '../schema.js';
import { version } from '../version.js';

export const artifactPaths = {
  graphqlSchema: 'schema/schema.graphql',
  openApi: 'schema/openapi.json',
} as const;

export function renderGraphQLSchema(): string {
  return `${printSchema(schema)}\n`;
}

/** The document as served with the default BASE_URL. */
export function renderOpenApi(): string {
  const { baseUrl } = loadConfig({});
  return `${JSON.stringify(openApiDocumentOf(compileRestApi(schemaWithRestTypes, routeTable), baseUrl, version), null, 2)}\n`;
}
