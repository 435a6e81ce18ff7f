/**
 * Query cost guards: depth 12 and 30 aliases per
 * operation (batching is off in yoga). They run as validation rules, before
 * any resolver.
 */
import {
  GraphQLError,
  Kind,
  type ASTVisitor,
  type FragmentDefinitionNode,
  type SelectionSetNode,
  type ValidationContext,
} from 'graphql';

export const maxQueryDepth = 12;
export const maxAliases = 30;

function depthOf(
  selectionSet: SelectionSetNode | undefined,
  fragments: Record<string, FragmentDefinitionNode>,
  visiting: Set<string>,
): number {
  if (!selectionSet) return 0;
  let deepest = 0;
  for (const selection of selectionSet.selections) {
    let depth = 0;
    if (selection.kind === Kind.FIELD) {
      // Introspection meta-fields do not count: GraphiQL's schema query is deep by nature.
      if (selection.name.value.startsWith('__')) continue;
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

export function depthLimitRule(context: ValidationContext): ASTVisitor {
  const fragments = Object.fromEntries(
    context
      .getDocument()
      .definitions.filter((definition): definition is FragmentDefinitionNode => definition.kind === Kind.FRAGMENT_DEFINITION)
      .map((fragment) => [fragment.name.value, fragment]),
  );
  return {
    OperationDefinition(operation) {
      const depth = depthOf(operation.selectionSet, fragments, new Set());
      if (depth > maxQueryDepth) {
        context.reportError(
          new GraphQLError(`The operation is ${depth} levels deep; the limit is ${maxQueryDepth}`, {
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
