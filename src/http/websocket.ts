/**
 * GraphQL over WebSocket (graphql-ws) at /graphql, on the HTTP server. The
 * connection passes the same gate as HTTP: a key in `connectionParams.authorization`
 * or the session cookie of the upgrade request (whose Origin must then be
 * trusted: browsers send cookies with cross-site upgrades). Anything else is
 * closed with 4403. Operations run through yoga's plugins, as over HTTP.
 *
 * A connection lives longer than its credential may: every open one is
 * checked again every 30 s, and API-key connections at once when a key of
 * any tenant is revoked (the `api_key.revoked` event, from any process). One
 * that no longer authenticates is closed with 4401, ending its subscriptions.
 */
import { randomUUID } from 'node:crypto';
import type http from 'node:http';
import type { ExecutionArgs } from 'graphql';
import type { ServerOptions } from 'graphql-ws';
import type { WebSocketServer } from 'ws';
import type { Actor } from '../auth/actor.js';
import type { Authenticator } from '../auth/authenticate.js';
import { type ReadRouting, rememberWrite } from '../db/replicas.js';
import type { LiveEvents } from '../events/live.js';
import type { GraphQLContext } from '../graphql/context.js';
import type { Logger } from '../lib/logger.js';
import { jsonBodyLimit } from '../rest/body.js';
import type { Gate, RequestState } from '../request/request.js';
import type { GraphQLServer } from './graphql.js';

/** What the WebSocket endpoint needs from the process (the App satisfies it). */
export interface GraphQLWebSocketDependencies {
  log: Logger;
  authenticator: Authenticator;
  gate: Pick<Gate, 'admit' | 'clientAddress'>;
  graphql: GraphQLServer;
  contextFor(actor: Actor | null, state: RequestState): GraphQLContext;
  /** With read replicas: a mutation over the socket is remembered for its caller, as over HTTP. */
  reads: Pick<ReadRouting, 'replicated' | 'wrote'>;
}

interface Connection {
  actor: Actor;
  connectionId: string;
  /** Authenticates the connection's credential again; false when it no longer does. */
  stillValid(): Promise<boolean>;
  close(code: number, reason: string): void;
}

export interface GraphQLWebSocketOptions {
  live: LiveEvents;
  /** How often open connections re-check their credential (default 30 s). */
  credentialRecheckMs?: number;
}

/** graphql-ws's close code for a credential that no longer holds. */
const unauthorizedClose = 4401;
const tooManyRequestsClose = 4429;

type OperationResult = ReturnType<NonNullable<ServerOptions['execute']>>;

/** yoga's execute and subscribe, with its plugins (error codes, limits) around them. */
interface Enveloped {
  execute: (args: ExecutionArgs) => OperationResult;
  subscribe: (args: ExecutionArgs) => OperationResult;
}

export interface GraphQLWebSocket {
  /** Closes every connection (1001) and stops accepting new ones. */
  close(): Promise<void>;
}

interface Endpoint {
  sockets: WebSocketServer;
  dispose(): Promise<void>;
}

/** The graphql-ws endpoint, built on the first upgrade: a process nobody subscribes to never loads it. */
async function createEndpoint(app: GraphQLWebSocketDependencies, { live, credentialRecheckMs = 30_000 }: GraphQLWebSocketOptions): Promise<Endpoint> {
  const [{ WebSocketServer }, { useServer }] = await Promise.all([import('ws'), import('graphql-ws/use/ws')]);
  const sockets = new WebSocketServer({ noServer: true, maxPayload: jsonBodyLimit });
  const open = new Set<Connection>();

  async function recheck(connections: Iterable<Connection>): Promise<void> {
    for (const connection of [...connections]) {
      const valid = await connection.stillValid().catch(() => true); // a database hiccup is not a revocation
      if (!valid) {
        open.delete(connection);
        app.log.info({ connectionId: connection.connectionId, actor: connection.actor.type }, 'credential ended: closing its WebSocket');
        connection.close(unauthorizedClose, 'Unauthorized: the credential has ended');
      }
    }
  }
  const recheckTimer = setInterval(() => {
    recheck(open).catch((error: unknown) => app.log.error({ err: error }, 'rechecking WebSocket credentials failed'));
  }, credentialRecheckMs);
  recheckTimer.unref();
  const stopWatchingKeys = await live.onEvent((event) => {
    if (event.type !== 'api_key.revoked') return;
    recheck([...open].filter((connection) => connection.actor.type === 'api_key')).catch((error: unknown) =>
      app.log.error({ err: error }, 'rechecking WebSocket credentials failed'),
    );
  });
  const graphqlWs = useServer<Record<string, unknown>, { connection: Connection }>(
    {
      onConnect: async (context) => {
        const { request, socket } = context.extra;
        const fromParams = context.connectionParams?.authorization;
        const authorization = typeof fromParams === 'string' ? fromParams : request.headers.authorization;
        const connectionId = randomUUID();
        const state: RequestState = {
          requestId: connectionId,
          log: app.log.child({ connectionId }),
          actor: null,
          clientAddress: app.gate.clientAddress(request),
        };
        // The same gate as HTTP; the session cookie of an upgrade must come from a trusted origin even though it is a GET.
        const admitted = await app.gate.admit(request, state, { authorization, originAlways: true });
        if ('error' in admitted) {
          // Over the caller's budget, the socket closes with 4429; any other refusal is graphql-ws's 4403.
          if (admitted.error.code === 'RATE_LIMITED') socket.close(tooManyRequestsClose, 'Too many requests: try again later');
          return false;
        }
        const connection: Connection = {
          actor: admitted.actor,
          connectionId,
          stillValid: async () => (await app.authenticator.authenticate(request.headers, authorization)).actor !== null,
          close: (code, reason) => socket.close(code, reason),
        };
        context.extra.connection = connection;
        open.add(connection);
        socket.once('close', () => open.delete(connection));
        app.log.debug({ connectionId, actor: admitted.actor.type }, 'graphql-ws connected');
        return true;
      },
      onSubscribe: async (context, _id, payload) => {
        const connection = context.extra.connection as Connection;
        const requestId = randomUUID();
        const log = app.log.child({ requestId, connectionId: connection.connectionId });
        const { schema, execute, subscribe, contextFactory, parse, validate } = app.graphql.getEnveloped({
          ...app.contextFor(connection.actor, { requestId, log, actor: connection.actor, clientAddress: app.gate.clientAddress(context.extra.request) }),
          req: context.extra.request,
          params: payload,
        });
        const document = parse(payload.query);
        const errors = validate(schema, document);
        if (errors.length > 0) return errors;
        const enveloped: Enveloped = { execute: execute as Enveloped['execute'], subscribe: subscribe as Enveloped['subscribe'] };
        return {
          schema,
          document,
          operationName: payload.operationName ?? null,
          variableValues: payload.variables ?? null,
          contextValue: await contextFactory(),
          rootValue: enveloped,
        };
      },
      execute: async (args) => {
        const result = await (args.rootValue as Enveloped).execute(args);
        const context = args.contextValue as GraphQLContext;
        // A mutation's caller reads their write next, over HTTP or this socket: the primary's position is
        // remembered for them (no header to carry it: a socket's answers have none).
        if (app.reads.replicated && context.writes.mutation && context.actor !== null) await rememberWrite(app.reads, { actor: context.actor }, app.log);
        return result;
      },
      subscribe: (args) => (args.rootValue as Enveloped).subscribe(args),
    },
    sockets,
  );
  return {
    sockets,
    async dispose() {
      clearInterval(recheckTimer);
      stopWatchingKeys();
      await graphqlWs.dispose();
      await new Promise<void>((resolve) => sockets.close(() => resolve()));
    },
  };
}

export function attachGraphQLWebSocket(server: http.Server, app: GraphQLWebSocketDependencies, options: GraphQLWebSocketOptions): GraphQLWebSocket {
  let endpoint: Promise<Endpoint> | undefined;
  let closed = false;
  server.on('upgrade', (request, socket, head) => {
    if (closed || new URL(request.url ?? '/', 'http://localhost').pathname !== '/graphql') {
      socket.end(`HTTP/1.1 ${closed ? '503 Service Unavailable' : '404 Not Found'}\r\nConnection: close\r\n\r\n`);
      return;
    }
    endpoint ??= createEndpoint(app, options);
    endpoint.then(
      ({ sockets }) => sockets.handleUpgrade(request, socket, head, (webSocket) => sockets.emit('connection', webSocket, request)),
      (error: unknown) => {
        app.log.error({ err: error }, 'the GraphQL WebSocket endpoint could not start');
        socket.destroy();
      },
    );
  });
  return {
    async close() {
      closed = true;
      if (endpoint) await (await endpoint).dispose();
    },
  };
}
