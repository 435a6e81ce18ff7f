import { useGraphQlJit } from '@envelop/graphql-jit';
import { Kind, OperationTypeNode, type DocumentNode, type ExecutionArgs, type GraphQLError, type GraphQLSchema, type OperationDefinitionNode } from 'graphql';
import { createGraphQLError, createYoga, type Plugin } from 'graphql-yoga';
import type { GraphQLContext } from '../graphql/context.js';
import { toGraphQLError } from '../graphql/errors.js';
import { aliasLimitRule, depthLimitRule, nulByteRule } from '../graphql/limits.js';
import { AppError, errorStatus, isErrorCode } from '../lib/errors.js';
import { nulByteMessage, nulBytePath } from '../lib/nul-bytes.js';
import type { HttpResult } from '../lib/problem.js';
import type { Metrics } from './metrics.js';
import type { Logger } from '../lib/logger.js';
import { canonicalJson, requestFingerprint, type Idempotency, type IdempotentRequest } from '../request/idempotency.js';

type ResultWithErrors = { errors?: readonly GraphQLError[] };

/** A refusal before GraphQL runs (401, 403, an Idempotency-Key's 400, 409 or 422), in the shape GraphQL clients read. */
export function graphqlRefusal(error: AppError, requestId: string): HttpResult {
  const extensions = {
    code: error.code,
    ...(error.reason === undefined ? {} : { reason: error.reason }),
    ...(error.errors === undefined ? {} : { errors: error.errors }),
    requestId,
  };
  return {
    status: error.status,
    headers: { 'content-type': 'application/json; charset=utf-8', ...(error.headers ?? {}) },
    body: JSON.stringify({ errors: [{ message: error.message, extensions }] }),
  };
}

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

/** Whether a GraphQL answer failed on our side (an error coded INTERNAL or UNAVAILABLE): it comes as a 200 all the same. */
function failedOnOurSide(body: string): boolean {
  try {
    const errors = (JSON.parse(body) as { errors?: { extensions?: { code?: unknown } }[] }).errors ?? [];
    return errors.some(({ extensions }) => isErrorCode(extensions?.code) && errorStatus[extensions.code] >= 500);
  } catch {
    return true;
  }
}

/**
 * Idempotency-Key on POST /graphql (src/request/idempotency.ts): the key is
 * claimed once yoga has parsed the operation, by its query, variables and
 * operation name; a stored answer is sent as it was, instead of running the
 * operation. The answer of an operation that ran is stored as it went out,
 * unless it streams (subscriptions, incremental delivery) or failed on our
 * side: then the key is released.
 */
function idempotentOperations(idempotency: Idempotency): Plugin<GraphQLContext, GraphQLContext> {
  // By the request's context (one per request; the adapter hands its hooks copies of the Request itself).
  const claims = new WeakMap<object, IdempotentRequest>();
  return {
    onRequestParse({ request, serverContext, requestParser, setRequestParser, endResponse, fetchAPI }) {
      // Most requests carry no key: nothing to copy or check.
      if (!request.headers.has('idempotency-key')) return;
      const refusal = (error: AppError): Response => {
        const { status, headers, body } = graphqlRefusal(error, serverContext.requestId);
        return new fetchAPI.Response(body as string, { status, headers });
      };
      let idempotent: IdempotentRequest | undefined;
      try {
        idempotent = idempotency.requestOf(request.method, Object.fromEntries(request.headers), serverContext.actor, serverContext.log);
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
        return endResponse(refusal(error));
      }
      if (!idempotent || !requestParser) return;
      const parse = requestParser;
      const claimant = idempotent;
      setRequestParser(async (parsing) => {
        const params = await parse(parsing);
        // Batching is off: one operation per request.
        if (params instanceof fetchAPI.Response || Array.isArray(params)) return params;
        const { query, variables, operationName } = params;
        let replay: HttpResult | undefined;
        try {
          const fingerprint = requestFingerprint(parsing.method, new URL(parsing.url), [canonicalJson({ query, variables, operationName })]);
          replay = await claimant.claim(fingerprint);
        } catch (error) {
          if (!(error instanceof AppError)) throw error;
          return refusal(error);
        }
        if (replay)
          return new fetchAPI.Response(replay.body === undefined ? null : new Uint8Array(replay.body as Buffer), {
            status: replay.status,
            headers: replay.headers,
          });
        claims.set(serverContext, claimant);
        return params;
      });
    },
    async onResponse({ serverContext, response }) {
      const claimant = claims.get(serverContext);
      if (!claimant) return;
      claims.delete(serverContext);
      const type = response.headers.get('content-type') ?? '';
      if (type.startsWith('text/event-stream') || type.startsWith('multipart/')) return claimant.settle(undefined);
      const body = await response.clone().text();
      await claimant.settle(failedOnOurSide(body) ? undefined : { status: response.status, headers: { 'content-type': type }, body });
    },
  };
}

/** Marks a request that ran a mutation, so that its caller's next reads see what it wrote (src/db/replicas.ts). */
function markMutations(): Plugin<GraphQLContext> {
  return {
    onExecute({ args }) {
      const document = args.document as DocumentNode;
      if (document.definitions.some((definition) => definition.kind === Kind.OPERATION_DEFINITION && definition.operation === 'mutation')) {
        (args.contextValue as GraphQLContext).writes.mutation = true;
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

export function createGraphQLServer({
  schema,
  log,
  metrics,
  idempotency,
  markingMutations = false,
}: {
  schema: GraphQLSchema;
  log: Logger;
  metrics?: Metrics;
  /** Idempotency-Key on POST /graphql; without it the header is ignored. */
  idempotency?: Idempotency;
  /** Note mutations on the context (`writes`): only read replicas need to know, so only with them is it done. */
  markingMutations?: boolean;
}) {
  const yogaLog = log.child({ component: 'graphql' });
  return createYoga<GraphQLContext>({
    schema,
    graphqlEndpoint: '/graphql',
    landingPage: false,
    batching: false,
    // The server applies the one CORS policy of every path; yoga's own would reflect any Origin with credentials.
    cors: false,
    // The server reads the body (src/http/server.ts, within the 1 MiB JSON limit) and hands yoga the text:
    // yoga's own limit would pipe it through a counting stream again. There are no GraphQL uploads (files
    // go through REST), so no multipart either.
    maxRequestBodySize: false,
    multipart: false,
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
      ...(markingMutations ? [markMutations()] : []),
      ...(metrics ? [operationMetrics(metrics)] : []),
      // After yoga's own parsers (they come first), so that it wraps the one that takes the request.
      ...(idempotency ? [idempotentOperations(idempotency)] : []),
      limits(),
      useGraphQlJit({ disablingCapturingStackErrors: true }, { enableIf: (args) => !isSubscription(args) }),
      errorCodes(),
    ],
  });
}
