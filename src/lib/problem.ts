import type { Readable } from 'node:stream';
import { toProblem, type AppError } from './errors.js';

const problemContentType = 'application/problem+json';

/** An HTTP answer, written to the socket by the server. */
export interface HttpResult {
  status: number;
  headers: Record<string, string>;
  /** Set-Cookie values (several may be sent). */
  cookies?: string[];
  /** A stream is piped (downloads); it is destroyed if the client goes away. */
  body?: string | Buffer | Readable;
}

/** RFC 9457 problem details for an AppError. */
export function problemResult(error: AppError, requestId: string): HttpResult {
  return {
    status: error.status,
    headers: { 'content-type': problemContentType, ...(error.headers ?? {}) },
    body: JSON.stringify(toProblem({ code: error.code, detail: error.message, reason: error.reason, errors: error.errors }, requestId)),
  };
}
