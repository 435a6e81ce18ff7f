import { renderGraphiQL } from '@graphql-yoga/render-graphiql';
import type { GraphQLSchema } from 'graphql';
import { createYoga, type Plugin } from 'graphql-yoga';
import type { GraphQLContext } from '../graphql/context.js';
import { toGraphQLError } from '../graphql/errors.js';
import { aliasLimitRule, depthLimitRule } from '../graphql/limits.js';
import type { Logger } from '../lib/logger.js';

/** Every error of a result gets its contract code (and internal ones are logged and hidden). */
function errorCodes(): Plugin<GraphQLContext> {
  return {
    onExecute() {
      return {
        onExecuteDone({ args, result, setResult }) {
          if (!('errors' in result) || !result.errors) return;
          const context = args.contextValue as GraphQLContext;
          setResult({
            ...result,
            errors: result.errors.map((error) => toGraphQLError(error, context.log, context.requestId)),
          });
        },
      };
    },
  };
}

function limits(): Plugin<GraphQLContext> {
  return {
    onValidate({ addValidationRule }) {
      addValidationRule(depthLimitRule);
      addValidationRule(aliasLimitRule);
    },
  };
}

export type GraphQLServer = ReturnType<typeof createGraphQLServer>;

/** graphql-yoga at /graphql, with GraphiQL bundled (no CDN). The caller passes our context as the server context. */
export function createGraphQLServer({ schema, log }: { schema: GraphQLSchema; log: Logger }) {
  const yogaLog = log.child({ component: 'graphql' });
  return createYoga<GraphQLContext>({
    schema,
    graphqlEndpoint: '/graphql',
    landingPage: false,
    // The server applies the one CORS policy of every path; yoga's own would reflect any Origin with credentials.
    cors: false,
    batching: false,
    renderGraphiQL,
    graphiql: { title: 'Tally GraphQL', credentials: 'include' },
    // Codes and masking are applied by errorCodes(); yoga's own masking would hide our messages.
    maskedErrors: false,
    logging: {
      debug: (...args: unknown[]) => yogaLog.debug({ args }, 'yoga'),
      info: (...args: unknown[]) => yogaLog.info({ args }, 'yoga'),
      warn: (...args: unknown[]) => yogaLog.warn({ args }, 'yoga'),
      error: (...args: unknown[]) => yogaLog.error({ args }, 'yoga'),
    },
    plugins: [limits(), errorCodes()],
  });
}
