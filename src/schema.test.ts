import { GraphQLObjectType, GraphQLSchema, GraphQLString } from 'graphql';
import { describe, expect, it } from 'vitest';
import { assertEveryOperationDeclaresAccess, schema } from './schema.js';

describe('the schema', () => {
  it('declares access on every query and mutation', () => {
    expect(() => assertEveryOperationDeclaresAccess(schema)).not.toThrow();
  });

  it('would refuse an operation that declares no access', () => {
    const open = new GraphQLSchema({
      query: new GraphQLObjectType({ name: 'Query', fields: { secrets: { type: GraphQLString, resolve: () => 'all of them' } } }),
    });
    expect(() => assertEveryOperationDeclaresAccess(open)).toThrow('Query.secrets declares no access');
  });
});
