import type { CodegenConfig } from '@graphql-codegen/cli';

/**
 * `npm run codegen` writes the committed artifacts from the code:
 * schema/schema.graphql (Pothos) and schema/openapi.json (route table).
 */
const config: CodegenConfig = {
  overwrite: true,
  schema: { 'src/schema.ts': { loader: './src/codegen/schema-loader.ts' } },
  generates: {
    'schema/schema.graphql': { plugins: ['./src/codegen/graphql-schema.plugin.ts'] },
    'schema/openapi.json': { plugins: ['./src/codegen/openapi.plugin.ts'] },
  },
  hooks: {},
};

export default config;
