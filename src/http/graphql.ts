import { useGraphQlJit } from '@envelop/graphql-jit';
import { Kind, OperationTypeNode, type DocumentNode, type ExecutionArgs, type GraphQLError, type GraphQLSchema, type OperationDefinitionNode } from 'graphql';
import { createGraphQLError, createYoga, type Plugin } from 'graphql-yoga';
import type { GraphQLContext } from '../graphql/context.js';
import { toGraphQLError } from '../graphql/errors.js';
import { aliasLimitRule, depthLimitRule, nulByteRule } from '../graphql/limits.js';
import { nulByteMessage, nulBytePath } from '../lib/nul-bytes.js';
import type { Metrics } from './metrics.js';
import type { Logger } from '../lib/logger.js';
import { jsonBodyLimit } from '../rest/body.js';

type ResultWithErrors = { errors?: readonly GraphQLError[] };

/** The result with each error coded as the contract says (internal ones logged and hidden); undefined when it had none. */
function coded<Result extends ResultWithErrors>(result: Result, context: GraphQLContext): Result | undefined {
  if (!result.errors) return undefined;
  return { ...result, errors: result.errors.map((error) => toGraphQLError(error, context.log, context.requestId)) };
}

/** Every error of a result, and of each push of a subscription, gets its contract code. */
function errorCodes(): Plugin<GraphQLContext> {
  return {
    onExecute() {
      return {
        onExecuteDone({ args, result, setResult }) {
          if (!('errors' in result)) return;
          const recoded = coded(result, args.contextValue as GraphQLContext);
          if (recoded) setResult(recoded);
        },
      };
    },
    onSubscribe() {
      return {
        onSubscribeResult({ args, result, setResult }) {
          const context = args.contextValue as GraphQLContext;
          if (!(Symbol.asyncIterator in result)) {
            const recoded = coded(result, context);
            if (recoded) setResult(recoded);
            return undefined;
          }
          return {
            onNext({ result: pushed, setResult: setPushed }) {
              const recoded = coded(pushed, context);
              if (recoded) setPushed(recoded);
            },
          };
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
      addValidationRule(nulByteRule);
    },
    onParams({ params }) {
      const nul = nulBytePath(params.variables ?? {});
      if (nul !== undefined) {
        throw createGraphQLError(`Variable ${nul} ${nulByteMessage}`, {
          extensions: { code: 'VALIDATION_FAILED', http: { status: 400 }, errors: [{ path: nul, message: nulByteMessage }] },
        });
      }
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

/** Counts each operation by type and whether it ended with errors. */
function operationMetrics(metrics: Metrics): Plugin<GraphQLContext> {
  return {
    onExecute({ args }) {
      const document = args.document as DocumentNode;
      const operation = document.definitions.find((definition): definition is OperationDefinitionNode => definition.kind === Kind.OPERATION_DEFINITION);
      const type = operation?.operation ?? 'unknown';
      return {
        onExecuteDone({ result }) {
          const failed = 'errors' in result && Array.isArray(result.errors) && result.errors.length > 0;
          metrics.graphqlOperation(type, failed ? 'error' : 'ok');
        },
      };
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
/**
 * graphql-jit 0.8.9 hands a subscription field's `subscribe` the operation's
 * variables instead of the field's arguments, so subscriptions run on
 * graphql-js (they are long-lived; compiling them gains little).
 */
function isSubscription({ document, operationName }: ExecutionArgs): boolean {
  return document.definitions.some(
    (definition) =>
      definition.kind === Kind.OPERATION_DEFINITION &&
      definition.operation === OperationTypeNode.SUBSCRIPTION &&
      (!operationName || definition.name?.value === operationName),
  );
}

export function createGraphQLServer({ schema, log, metrics }: { schema: GraphQLSchema; log: Logger; metrics?: Metrics }) {
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
    plugins: [
      ...(metrics ? [operationMetrics(metrics)] : []),
      declaredBodyLimit(),
      limits(),
      useGraphQlJit({ disablingCapturingStackErrors: true }, { enableIf: (args) => !isSubscription(args) }),
      errorCodes(),
    ],
  });
}
