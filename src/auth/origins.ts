/**
 * Browser origins. A request authenticated by the session cookie that changes
 * state must come from a trusted origin (BASE_URL or TRUSTED_ORIGINS), since
 * browsers send cookies with cross-site requests; API keys are not sent by
 * browsers on their own and need no such check. Trusted origins also get CORS
 * headers, so that a frontend on another origin can call the API with
 * credentials.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { AppError } from '../lib/errors.js';
import type { HttpResult } from '../lib/problem.js';

const safeMethods = new Set(['GET', 'HEAD', 'OPTIONS']);
const allowedMethods = 'GET, POST, PATCH, PUT, DELETE';
const allowedHeaders = 'authorization, content-type, x-request-id, tally-read-after';
const preflightMaxAgeSeconds = 600;

/** The origin a browser says the request comes from: Origin, else the Referer's origin. */
function requestOrigin(headers: IncomingHttpHeaders): string | undefined {
  const origin = headers.origin;
  if (typeof origin === 'string' && origin !== '') return origin;
  const referer = headers.referer;
  if (typeof referer !== 'string' || referer === '') return undefined;
  try {
    return new URL(referer).origin;
  } catch {
    return 'null';
  }
}

export interface OriginPolicy {
  isTrusted(origin: string): boolean;
  /** FORBIDDEN when a cookie-authenticated request of `method` comes from an untrusted browser origin. */
  refusal(method: string, headers: IncomingHttpHeaders): AppError | undefined;
  /** The same check whatever the method (a WebSocket upgrade is a GET that opens a two-way channel). */
  crossSiteRefusal(headers: IncomingHttpHeaders): AppError | undefined;
  /** CORS headers for a trusted origin; none otherwise. */
  corsHeaders(headers: IncomingHttpHeaders): Record<string, string>;
  /** The answer to a CORS preflight, or undefined when the request is not one. */
  preflight(method: string, headers: IncomingHttpHeaders): HttpResult | undefined;
}

export function createOriginPolicy(trustedOrigins: readonly string[]): OriginPolicy {
  const trusted = new Set(trustedOrigins);
  const isTrusted = (origin: string): boolean => trusted.has(origin);
  const corsHeaders = (headers: IncomingHttpHeaders): Record<string, string> => {
    const origin = headers.origin;
    if (typeof origin !== 'string' || !isTrusted(origin)) return {};
    return {
      'access-control-allow-origin': origin,
      'access-control-allow-credentials': 'true',
      'access-control-expose-headers': 'x-request-id, location, www-authenticate, retry-after, tally-read-after',
      vary: 'Origin',
    };
  };
  const crossSiteRefusal = (headers: IncomingHttpHeaders): AppError | undefined => {
    const origin = requestOrigin(headers);
    // No Origin and no Referer: not a browser, which cannot be tricked into sending the cookie.
    if (origin === undefined || isTrusted(origin)) return undefined;
    return new AppError('FORBIDDEN', `Requests with a session cookie must come from a trusted origin, not ${origin}`);
  };
  return {
    isTrusted,
    crossSiteRefusal,
    refusal: (method, headers) => (safeMethods.has(method) ? undefined : crossSiteRefusal(headers)),
    corsHeaders,
    preflight(method, headers): HttpResult | undefined {
      if (method !== 'OPTIONS' || headers['access-control-request-method'] === undefined) return undefined;
      const cors: Record<string, string> = corsHeaders(headers);
      if (Object.keys(cors).length === 0) return { status: 204, headers: { vary: 'Origin' } };
      return {
        status: 204,
        headers: {
          ...cors,
          'access-control-allow-methods': allowedMethods,
          'access-control-allow-headers': allowedHeaders,
          'access-control-max-age': String(preflightMaxAgeSeconds),
        },
      };
    },
  };
}
