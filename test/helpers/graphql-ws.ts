/**
 * A real graphql-ws client for tests: connections with a key in
 * connectionParams or a browser's cookie and Origin on the upgrade request,
 * one-shot operations, and subscriptions read one push at a time.
 */
import { createClient, type Client } from 'graphql-ws';
import { expect } from 'vitest';
import WebSocket from 'ws';
import type { LiveEvents } from '../../src/events/live.js';
import { eventually } from './eventually.js';

export interface WsConnection {
  client: Client;
  /** Resolves with the close code if the server closes the connection. */
  closed: Promise<number>;
}

/** A WebSocket class that sends these headers with the upgrade request, as a browser would its cookie and Origin. */
function socketWithHeaders(headers: Record<string, string>): unknown {
  return class extends WebSocket {
    constructor(address: string | URL, protocols?: string | string[]) {
      super(address, protocols, { headers });
    }
  };
}

export function connectWs(baseUrl: string, options: { headers?: Record<string, string>; authorization?: string; path?: string }): WsConnection {
  let onClosed: (code: number) => void = () => undefined;
  const closed = new Promise<number>((resolve) => (onClosed = resolve));
  const client = createClient({
    url: `${baseUrl.replace('http', 'ws')}${options.path ?? '/graphql'}`,
    webSocketImpl: socketWithHeaders(options.headers ?? {}),
    retryAttempts: 0,
    lazy: false,
    ...(options.authorization ? { connectionParams: { authorization: options.authorization } } : {}),
    on: { closed: (event) => onClosed((event as { code: number }).code) },
    onNonLazyError: () => undefined,
  });
  return { client, closed };
}

export interface WsResult<Data> {
  data?: Data;
  errors?: { message: string; extensions?: { code?: string } }[];
}

/** Runs a query or mutation to its end. */
export async function wsQuery<Data>(client: Client, document: string, variables: Record<string, unknown> = {}): Promise<WsResult<Data>> {
  return new Promise((resolve, reject) => {
    let result: WsResult<Data> = {};
    client.subscribe<Data>(
      { query: document, variables },
      { next: (value) => (result = value as WsResult<Data>), error: reject, complete: () => resolve(result) },
    );
  });
}

export interface LiveSubscription<Data> {
  /** The next push (rejects after `timeoutMs`). */
  next(timeoutMs?: number): Promise<WsResult<Data>>;
  /** Every push received so far and not yet read by next(). */
  pending(): WsResult<Data>[];
  /** Resolves when the server ends the subscription (or rejects it), with the error if any. */
  ended: Promise<unknown>;
  stop(): void;
}

/** A subscription whose pushes are read one at a time. */
export function wsSubscribe<Data>(client: Client, document: string, variables: Record<string, unknown> = {}): LiveSubscription<Data> {
  const received: WsResult<Data>[] = [];
  let waiting: ((result: WsResult<Data>) => void) | undefined;
  let end: (error: unknown) => void = () => undefined;
  const ended = new Promise<unknown>((resolve) => (end = resolve));
  const stop = client.subscribe<Data>(
    { query: document, variables },
    {
      next: (value) => {
        const result = value as WsResult<Data>;
        if (waiting) {
          const resolve = waiting;
          waiting = undefined;
          resolve(result);
        } else received.push(result);
      },
      error: (error) => end(error),
      complete: () => end(undefined),
    },
  );
  return {
    next(timeoutMs = 5_000) {
      const queued = received.shift();
      if (queued) return Promise.resolve(queued);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiting = undefined;
          reject(new Error(`no push within ${timeoutMs} ms`));
        }, timeoutMs);
        waiting = (result) => {
          clearTimeout(timer);
          resolve(result);
        };
      });
    },
    pending: () => received.splice(0),
    ended,
    stop,
  };
}

/**
 * Waits until at least `count` subscriptions of a kind listen in the server's process: a subscription pushes
 * only what commits after it listens, and graphql-ws says nothing when it starts.
 */
export async function untilListening(live: Pick<LiveEvents, 'counts'>, kind: 'notifications' | 'events', count: number): Promise<void> {
  await eventually(async () => {
    expect(live.counts()[kind]).toBeGreaterThanOrEqual(count);
  }, 5_000);
}
