/**
 * Query cost guards: depth 12 and 30 aliases per operation (batching is off
 * in yoga), and no NUL characters in string literals (PostgreSQL cannot
 * store them). They run as validation rules, before any resolver.
 *
 * Introspection counts too: an operation that only introspects may be as
 * deep as graphql-js's own introspection query (what GraphiQL and codegen
 * send), and no deeper, so `__schema { types { fields { type { ofType ...` a
 * hundred levels down is refused like any other deep query.
 */
import {
  getIntrospectionQuery,
  GraphQLError,
  Kind,
  parse,
  type ASTVisitor,
  type DocumentNode,
  type FragmentDefinitionNode,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type ValidationContext,
} from 'graphql';

export const maxQueryDepth = 12;
export const maxAliases = 30;

function depthOf(selectionSet: SelectionSetNode | undefined, fragments: Record<string, FragmentDefinitionNode>, visiting: Set<string>): number {
  if (!selectionSet) return 0;
  let deepest = 0;
  for (const selection of selectionSet.selections) {
    let depth = 0;
    if (selection.kind === Kind.FIELD) {
      depth = 1 + depthOf(selection.selectionSet, fragments, visiting);
    } else if (selection.kind === Kind.INLINE_FRAGMENT) {
      depth = depthOf(selection.selectionSet, fragments, visiting);
    } else {
      const name = selection.name.value;
      const fragment = fragments[name];
      if (!fragment || visiting.has(name)) continue; // unknown or cyclic: other rules report it
      visiting.add(name);
      depth = depthOf(fragment.selectionSet, fragments, visiting);
      visiting.delete(name);
    }
    deepest = Math.max(deepest, depth);
  }
  return deepest;
}

function fragmentsOf(document: DocumentNode): Record<string, FragmentDefinitionNode> {
  return Object.fromEntries(
    document.definitions
      .filter((definition): definition is FragmentDefinitionNode => definition.kind === Kind.FRAGMENT_DEFINITION)
      .map((fragment) => [fragment.name.value, fragment]),
  );
}

/** How deep the standard introspection query is (with descriptions, deprecations and all). */
export const maxIntrospectionDepth = (() => {
  const document = parse(
    getIntrospectionQuery({
      descriptions: true,
      specifiedByUrl: true,
      directiveIsRepeatable: true,
      schemaDescription: true,
      inputValueDeprecation: true,
      oneOf: true,
    }),
  );
  const fragments = fragmentsOf(document);
  return Math.max(
    ...document.definitions.map((definition) => (definition.kind === Kind.OPERATION_DEFINITION ? depthOf(definition.selectionSet, fragments, new Set()) : 0)),
  );
})();

/** An operation whose root fields are all introspection (`__schema`, `__type`, `__typename`). */
const onlyIntrospects = (operation: OperationDefinitionNode): boolean =>
  operation.selectionSet.selections.every((selection) => selection.kind === Kind.FIELD && selection.name.value.startsWith('__'));

export function depthLimitRule(context: ValidationContext): ASTVisitor {
  const fragments = fragmentsOf(context.getDocument());
  return {
    OperationDefinition(operation) {
      const depth = depthOf(operation.selectionSet, fragments, new Set());
      const limit = onlyIntrospects(operation) ? Math.max(maxQueryDepth, maxIntrospectionDepth) : maxQueryDepth;
      if (depth > limit) {
        context.reportError(
          new GraphQLError(`The operation is ${depth} levels deep; the limit is ${limit}`, {
            nodes: [operation],
            extensions: { code: 'BAD_REQUEST' },
          }),
        );
      }
    },
  };
}

export function aliasLimitRule(context: ValidationContext): ASTVisitor {
  let aliases = 0;
  return {
    Field(field) {
      if (field.alias) aliases += 1;
    },
    Document: {
      leave(document) {
        if (aliases > maxAliases) {
          context.reportError(
            new GraphQLError(`The document uses ${aliases} aliases; the limit is ${maxAliases}`, {
              nodes: [document],
              extensions: { code: 'BAD_REQUEST' },
            }),
          );
        }
      },
    },
  };
}

/** A string literal with a NUL is refused (variables are checked as they arrive, in src/http/graphql.ts). */
export function nulByteRule(context: ValidationContext): ASTVisitor {
  return {
    StringValue(node) {
      if (node.value.includes('\u0000')) {
        context.reportError(
          new GraphQLError('A string in the document contains a NUL character (U+0000), which cannot be stored', {
            nodes: [node],
            extensions: { code: 'VALIDATION_FAILED' },
          }),
        );
      }
    },
  };
}
