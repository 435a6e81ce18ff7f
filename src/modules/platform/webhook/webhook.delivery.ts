/**
 * One HTTP attempt of a webhook delivery, signed by the Standard Webhooks
 * scheme: success is any 2xx within 10 s; redirects are not followed (a 3xx
 * is a failure, as the contract says); at most 64 KiB of the answer is read.
 * The connection goes through the outbound agents, which refuse private
 * addresses at connect time.
 */
import http from 'node:http';
import https from 'node:https';
import { Webhook } from 'standardwebhooks';
import type { OutboundAgents } from '../../../lib/outbound.js';
import { version } from '../../../version.js';

export const deliveryTimeoutMs = 10_000;
const maxResponseBytes = 64 * 1024;
/** What the delivery log keeps of an answer. */
export const loggedResponseChars = 2048;

export interface AttemptOutcome {
  ok: boolean;
  /** The receiver's status, when it answered. */
  responseStatus: number | null;
  /** The start of the answer's body (at most 2 KiB). */
  responseBody: string | null;
  /** Why the attempt failed, in words for the delivery log. */
  error: string | null;
  durationMs: number;
}

export interface SignedRequest {
  url: string;
  secret: string;
  /** `webhook-id`: the event id, the same on every retry and redelivery. */
  messageId: string;
  payload: string;
}

/** The headers of a signed request, at `timestamp`. */
export function signedHeaders({ secret, messageId, payload }: SignedRequest, timestamp: Date): Record<string, string> {
  return {
    'content-type': 'application/json',
    'user-agent': `Tally-Webhooks/${version}`,
    'webhook-id': messageId,
    'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
    'webhook-signature': new Webhook(secret).sign(messageId, timestamp, payload),
  };
}

function describeFailure(error: unknown, timedOut: boolean): string {
  if (timedOut) return `no complete answer within ${deliveryTimeoutMs / 1000} s`;
  const message = error instanceof Error ? error.message : String(error);
  if (/is not allowed\. Because/.test(message)) return `refused: the receiver's address is not public (${message.replace(/^DNS lookup /, '')})`;
  const code = (error as { code?: string }).code;
  return code ? `${code}: ${message}` : message;
}

/** Sends one attempt; never throws (every failure is an outcome for the log). */
export async function sendSignedRequest(request: SignedRequest, agents: OutboundAgents): Promise<AttemptOutcome> {
  const started = performance.now();
  const url = new URL(request.url);
  const client = url.protocol === 'https:' ? https : http;
  const elapsed = () => Math.round(performance.now() - started);
  const signal = AbortSignal.timeout(deliveryTimeoutMs);
  try {
    const { status, body } = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const outgoing = client.request(url, {
        method: 'POST',
        agent: agents.forUrl(url),
        headers: { ...signedHeaders(request, new Date()), 'content-length': String(Buffer.byteLength(request.payload)) },
        signal,
      });
      outgoing.on('error', reject);
      outgoing.on('response', (response) => {
        const chunks: Buffer[] = [];
        let size = 0;
        const finish = () => {
          response.removeAllListeners('data');
          resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') });
        };
        response.on('data', (chunk: Buffer) => {
          if (size >= maxResponseBytes) return;
          chunks.push(chunk.subarray(0, maxResponseBytes - size));
          size += chunk.length;
          // Enough read: the rest of a large answer is not ours to wait for.
          if (size >= maxResponseBytes) {
            finish();
            response.destroy();
          }
        });
        response.on('end', finish);
        response.on('error', reject);
      });
      outgoing.end(request.payload);
    });
    const ok = status >= 200 && status < 300;
    return {
      ok,
      responseStatus: status,
      responseBody: body.slice(0, loggedResponseChars) || null,
      error: ok ? null : status >= 300 && status < 400 ? `answered ${status} (redirects are not followed)` : `answered ${status}`,
      durationMs: elapsed(),
    };
  } catch (error) {
    return { ok: false, responseStatus: null, responseBody: null, error: describeFailure(error, signal.aborted), durationMs: elapsed() };
  }
}
