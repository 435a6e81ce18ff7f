import { buildSchema, parse, validate } from 'graphql';
import { describe, expect, it } from 'vitest';
import { aliasLimitRule, depthLimitRule } from './limits.js';

const schema = buildSchema(`
  type Node { id: ID!, child: Node }
  type Query { node: Node }
`);

/** `{ node { child { child ... { id } } } }` with `depth` fields on the deepest path. */
function nested(depth: number): string {
  let selection = 'id';
  for (let level = 1; level < depth - 1; level += 1) selection = `child { ${selection} }`;
  return `{ node { ${selection} } }`;
}

const errorsOf = (query: string) => validate(schema, parse(query), [depthLimitRule, aliasLimitRule]).map((error) => error.message);

describe('GraphQL limits', () => {
  it('allows 12 levels and refuses 13', () => {
    expect(errorsOf(nested(12))).toEqual([]);
    expect(errorsOf(nested(13))).toEqual(['The operation is 13 levels deep; the limit is 12']);
  });

  it('counts depth through fragments and inline fragments', () => {
    const viaFragments = `
      { node { ...A } }
      fragment A on Node { child { ... on Node { child { ...B } } } }
      fragment B on Node { ${nested(11).slice(9, -3)} }
    `;
    expect(errorsOf(viaFragments)[0]).toMatch(/levels deep/);
  });

  it('does not count introspection, which GraphiQL needs', () => {
    expect(errorsOf('{ __schema { types { fields { type { ofType { ofType { ofType { ofType { ofType { ofType { ofType { ofType { name } } } } } } } } } } } } }')).toEqual([]);
  });

  it('allows 30 aliases and refuses 31', () => {
    const aliases = (count: number) => `{ ${Array.from({ length: count }, (_, index) => `a${index}: node { id }`).join(' ')} }`;
    expect(errorsOf(aliases(30))).toEqual([]);
    expect(errorsOf(aliases(31))).toEqual(['The document uses 31 aliases; the limit is 30']);
  });
});
