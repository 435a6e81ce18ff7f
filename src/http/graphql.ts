import { useGraphQlJit } from '@envelop/graphql-jit';
import type { GraphQLSchema } from 'graphql';
import { createGraphQLError, createYoga, type Plugin } from 'graphql-yoga';
import type { GraphQLContext } from '../graphql/context.js';
import { toGraphQLError } from '../graphql/errors.js';
import { aliasLimitRule, depthLimitRule } from '../graphql/limits.js';
import type { Logger } from '../lib/logger.js';
import { jsonBodyLimit } from '../rest/body.js';

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

/**
 * A body declared over 1 MiB is refused before it is read, with our code;
 * yoga's own limit (set to the same size) stops a chunked body that grows
 * past it while streaming.
 */
function declaredBodyLimit(): Plugin<GraphQLContext> {
  return {
    onRequestParse({ request }) {
      const declared = Number(request.headers.get('content-length'));
      if (Number.isFinite(declared) && declared > jsonBodyLimit) {
        throw createGraphQLError('The body is larger than 1 MiB', { extensions: { http: { status: 413 }, code: 'PAYLOAD_TOO_LARGE' } });
      }
    },
  };
}

export type GraphQLServer = ReturnType<typeof createGraphQLServer>;

/**
 * graphql-yoga at /graphql, fed the Node request and response directly. Our
 * context is the server context. GraphiQL is bundled (no CDN) and loaded on
 * its first request only: it is tens of megabytes that most processes never
 * serve.
 */
export function createGraphQLServer({ schema, log }: { schema: GraphQLSchema; log: Logger }) {
  const yogaLog = log.child({ component: 'graphql' });
  return createYoga<GraphQLContext>({
    schema,
    graphqlEndpoint: '/graphql',
    landingPage: false,
    batching: false,
    // The server applies the one CORS policy of every path; yoga's own would reflect any Origin with credentials.
    cors: false,
    maxRequestBodySize: jsonBodyLimit,
    renderGraphiQL: async (options) => (await import('@graphql-yoga/render-graphiql')).renderGraphiQL(options),
    graphiql: { title: 'Tally GraphQL', credentials: 'include' },
    // Codes and masking are applied by errorCodes(); yoga's own masking would hide our messages.
    maskedErrors: false,
    logging: {
      debug: (...args: unknown[]) => yogaLog.debug({ args }, 'yoga'),
      info: (...args: unknown[]) => yogaLog.info({ args }, 'yoga'),
      warn: (...args: unknown[]) => yogaLog.warn({ args }, 'yoga'),
      error: (...args: unknown[]) => yogaLog.error({ args }, 'yoga'),
    },
    // Each distinct document is compiled once (graphql-jit) and run as plain code after that.
    plugins: [declaredBodyLimit(), limits(), useGraphQlJit({ disablingCapturingStackErrors: true }), errorCodes()],
  });
}
