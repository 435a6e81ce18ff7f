/**
 * A real HTTP receiver for webhooks on loopback. It records every request
 * (headers and raw body) and answers as its script says: a status, a delay
 * (or never), a redirect. Requests beyond the script get the default answer.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface ReceivedRequest {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  receivedAt: number;
}

export interface Answer {
  status?: number;
  /** Wait this long before answering; Infinity never answers. */
  delayMs?: number;
  headers?: Record<string, string>;
  body?: string;
}

export interface Receiver {
  url: string;
  requests: ReceivedRequest[];
  /** The answers for the next requests, in order. */
  script(...answers: Answer[]): void;
  /** Called when a request arrives (before it is answered). */
  onRequest(handler: (request: ReceivedRequest) => void): void;
  /** Resolves once `count` requests have arrived (rejects after `timeoutMs`). */
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedRequest[]>;
  /** The envelope of a request, after verifying its signature with `secret` (throws when it does not verify). */
  verify(
    request: ReceivedRequest,
    secret: string,
  ): { id: string; type: string; tenantId: string; timestamp: string; actor: { type: string; id: string | null }; data: Record<string, unknown> };
  close(): Promise<void>;
}

export async function startReceiver(defaultAnswer: Answer = { status: 200 }): Promise<Receiver> {
  const requests: ReceivedRequest[] = [];
  const scripted: Answer[] = [];
  const waiters: { count: number; resolve: () => void }[] = [];
  const handlers: ((request: ReceivedRequest) => void)[] = [];
  const server = http.createServer((incoming, outgoing) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const request = { path: incoming.url ?? '/', headers: incoming.headers, body: Buffer.concat(chunks).toString('utf8'), receivedAt: Date.now() };
      requests.push(request);
      for (const handler of handlers) handler(request);
      for (const waiter of waiters.filter((candidate) => requests.length >= candidate.count)) waiter.resolve();
      const answer = scripted.shift() ?? defaultAnswer;
      const send = () => {
        outgoing.writeHead(answer.status ?? 200, answer.headers);
        outgoing.end(answer.body ?? '');
      };
      if (answer.delayMs === Infinity) return;
      if (answer.delayMs) setTimeout(send, answer.delayMs).unref();
      else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    script: (...answers) => scripted.push(...answers),
    onRequest: (handler) => handlers.push(handler),
    waitFor(count, timeoutMs = 15_000) {
      if (requests.length >= count) return Promise.resolve(requests.slice(0, count));
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`the receiver got ${requests.length} of ${count} requests in ${timeoutMs} ms`)), timeoutMs);
        waiters.push({
          count,
          resolve: () => {
            clearTimeout(timer);
            resolve(requests.slice(0, count));
          },
        });
      });
    },
    verify(request, secret) {
      const headers = Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name, String(value)]));
      return new Webhook(secret).verify(request.body, headers) as ReturnType<Receiver['verify']>;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
