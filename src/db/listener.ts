/**
 * PostgreSQL LISTEN on a dedicated connection (a pooled one would hand the
 * session to someone else). Notifications arrive only after the notifying
 * transaction commits, so a listener that re-reads the row always finds it.
 *
 * The connection is watched: a failed heartbeat or a dropped socket
 * reconnects with backoff, and `onReconnect` tells the owner that
 * notifications may have been missed meanwhile, so it can catch up from the
 * tables (the outbox dispatcher sweeps; live subscribers cannot, and say so).
 */
import pg from 'pg';
import type { Logger } from '../lib/logger.js';

export type NotificationHandler = (payload: string) => void;

export interface PgListener {
  /** Starts listening on `channel` (connecting on first use); the returned function stops. */
  listen(channel: string, handler: NotificationHandler): Promise<() => void>;
  /** Called after each reconnection, once every channel listens again. */
  onReconnect(handler: () => void): void;
  close(): Promise<void>;
}

export interface PgListenerOptions {
  url: string;
  log: Logger;
  /** How often the connection is proven alive (default 10 s). */
  heartbeatMs?: number;
}

const heartbeatTimeoutMs = 5_000;
const maxBackoffMs = 10_000;

export function createPgListener({ url, log, heartbeatMs = 10_000 }: PgListenerOptions): PgListener {
  const handlers = new Map<string, Set<NotificationHandler>>();
  const reconnectHandlers: (() => void)[] = [];
  let client: pg.Client | undefined;
  let connecting: Promise<pg.Client> | undefined;
  let heartbeat: NodeJS.Timeout | undefined;
  let retry: NodeJS.Timeout | undefined;
  let failures = 0;
  let closed = false;

  const dispatch = (message: pg.Notification) => {
    for (const handler of handlers.get(message.channel) ?? []) {
      try {
        handler(message.payload ?? '');
      } catch (error) {
        log.error({ err: error, channel: message.channel }, 'a notification handler failed');
      }
    }
  };

  function dropConnection(reason: unknown): void {
    const lost = client;
    client = undefined;
    clearInterval(heartbeat);
    if (!lost || closed) return;
    lost.removeAllListeners();
    lost.on('error', () => undefined);
    lost.end().catch(() => undefined);
    log.warn({ err: reason }, 'the LISTEN connection was lost; reconnecting');
    scheduleReconnect();
  }

  function scheduleReconnect(): void {
    if (closed || retry) return;
    const delay = Math.min(maxBackoffMs, 250 * 2 ** failures);
    failures += 1;
    retry = setTimeout(() => {
      retry = undefined;
      connect().then(
        () => {
          failures = 0;
          log.info('the LISTEN connection is back');
          for (const handler of reconnectHandlers) handler();
        },
        (error: unknown) => {
          log.warn({ err: error, attempt: failures }, 'reconnecting the LISTEN connection failed');
          scheduleReconnect();
        },
      );
    }, delay);
    retry.unref();
  }

  async function open(): Promise<pg.Client> {
    const next = new pg.Client({ connectionString: url, application_name: 'tally-listener', keepAlive: true });
    next.on('error', (error) => dropConnection(error));
    next.on('end', () => dropConnection(new Error('connection ended')));
    next.on('notification', dispatch);
    await next.connect();
    for (const channel of handlers.keys()) await next.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
    if (closed) {
      await next.end();
      throw new Error('the listener was closed');
    }
    client = next;
    heartbeat = setInterval(() => {
      const alive = next.query('SELECT 1');
      const timeout = new Promise((_resolve, reject) => setTimeout(() => reject(new Error('heartbeat timed out')), heartbeatTimeoutMs).unref());
      Promise.race([alive, timeout]).catch((error: unknown) => {
        if (client === next) dropConnection(error);
      });
    }, heartbeatMs);
    heartbeat.unref();
    return next;
  }

  function connect(): Promise<pg.Client> {
    if (client) return Promise.resolve(client);
    connecting ??= open().finally(() => {
      connecting = undefined;
    });
    return connecting;
  }

  return {
    async listen(channel, handler) {
      let set = handlers.get(channel);
      const first = !set;
      if (!set) {
        set = new Set();
        handlers.set(channel, set);
      }
      set.add(handler);
      if (first) {
        // A connection being opened LISTENs on every known channel itself.
        const connected = connecting ? await connecting : client;
        if (connected) await connected.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
        else await connect();
      } else if (!client) {
        await connect();
      }
      return () => {
        set.delete(handler);
      };
    },
    onReconnect(handler) {
      reconnectHandlers.push(handler);
    },
    async close() {
      closed = true;
      clearTimeout(retry);
      clearInterval(heartbeat);
      const open = client ?? (await connecting?.catch(() => undefined));
      client = undefined;
      if (open) {
        open.removeAllListeners();
        open.on('error', () => undefined);
        await open.end().catch(() => undefined);
      }
    },
  };
}
