import { buildSchema, getIntrospectionQuery, parse, validate } from 'graphql';
import { describe, expect, it } from 'vitest';
import { aliasLimitRule, depthLimitRule, maxIntrospectionDepth, nulByteRule } from './limits.js';

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

  it('lets introspection as deep as the standard introspection query through, and no deeper', () => {
    expect(maxIntrospectionDepth).toBe(15);
    expect(validate(schema, parse(getIntrospectionQuery({ descriptions: true, inputValueDeprecation: true, oneOf: true })), [depthLimitRule])).toEqual([]);
    const ofTypes = (count: number) => `{ __schema { types { fields { type { ${'ofType { '.repeat(count)}name${' }'.repeat(count)} } } } } }`;
    expect(errorsOf(ofTypes(10))).toEqual([]);
    expect(errorsOf(ofTypes(11))).toEqual(['The operation is 16 levels deep; the limit is 15']);
    expect(errorsOf(ofTypes(200))).toEqual(['The operation is 205 levels deep; the limit is 15']);
    // Introspection inside an ordinary query counts against 12.
    expect(errorsOf(`{ node { ${'child { '.repeat(9)}__typename${' }'.repeat(9)} } }`)).toEqual([]);
    expect(errorsOf(`{ node { ${'child { '.repeat(11)}__typename${' }'.repeat(11)} } }`)).toEqual(['The operation is 13 levels deep; the limit is 12']);
  });

  it('refuses a NUL character in a string literal', () => {
    const withNul = validate(buildSchema('type Query { echo(text: String): String }'), parse('{ echo(text: "a\\u0000b") }'), [nulByteRule]);
    expect(withNul.map((error) => error.extensions.code)).toEqual(['VALIDATION_FAILED']);
    expect(validate(buildSchema('type Query { echo(text: String): String }'), parse('{ echo(text: "ab") }'), [nulByteRule])).toEqual([]);
  });

  it('allows 30 aliases and refuses 31', () => {
    const aliases = (count: number) => `{ ${Array.from({ length: count }, (_, index) => `a${index}: node { id }`).join(' ')} }`;
    expect(errorsOf(aliases(30))).toEqual([]);
    expect(errorsOf(aliases(31))).toEqual(['The document uses 31 aliases; the limit is 30']);
  });
});
