import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { artifactPaths, renderGraphQLSchema, renderOpenApi } from '../src/codegen/artifacts.js';

const stale = 'is stale: run `npm run codegen` and commit the result';

describe('generated files', () => {
  it(`${artifactPaths.graphqlSchema} matches the schema the code builds`, () => {
    expect(fs.readFileSync(artifactPaths.graphqlSchema, 'utf8'), `${artifactPaths.graphqlSchema} ${stale}`).toBe(renderGraphQLSchema());
  });

  it(`${artifactPaths.openApi} matches the document the code builds`, () => {
    expect(fs.readFileSync(artifactPaths.openApi, 'utf8'), `${artifactPaths.openApi} ${stale}`).toBe(renderOpenApi());
  });
});
