import { GraphQLObjectType, GraphQLSchema, GraphQLString } from 'graphql';
import { describe, expect, it } from 'vitest';
import { DecimalScalar } from './graphql/scalars.js';
import { decimalFieldProblems } from './graphql/money.js';
import { rateExtensions } from './graphql/rates.js';
import { assertEveryOperationDeclaresAccess, schema, schemaWithRestTypes } from './schema.js';

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

  it('says what every Decimal field holds, and marks every rate and amount outside an invoice for the Rate rule', () => {
    expect(decimalFieldProblems(schemaWithRestTypes)).toEqual([]);
  });

  it('would refuse a rate without the Rate mark, a Decimal that says nothing, and money passed off as a quantity', () => {
    const decimal = (extensions?: Record<string, unknown>) => ({ type: DecimalScalar, ...(extensions ? { extensions } : {}) });
    const Thing = new GraphQLObjectType({
      name: 'Thing',
      fields: {
        hourlyRate: decimal({ decimal: 'money' }),
        costRate: decimal({ ...rateExtensions }),
        weight: decimal(),
        budgetAmount: decimal({ decimal: 'quantity' }),
      },
    });
    expect(decimalFieldProblems(new GraphQLSchema({ query: new GraphQLObjectType({ name: 'Query', fields: { thing: { type: Thing } } }) }))).toEqual([
      'Thing.hourlyRate is a rate or amount without the Rate mark: define it with rateField',
      'Thing.weight does not say what it holds: use rateField, moneyField, percentField or quantityExtensions',
      'Thing.budgetAmount is named like money but marked as a quantity',
    ]);
  });
});
