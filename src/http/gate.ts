import type { IncomingMessage } from 'node:http';
import type { Authenticator } from '../auth/authenticate.js';
import type { OriginPolicy } from '../auth/origins.js';
import type { GateResult } from '../rest/router.js';
import type { RateLimits } from './rate-limit.js';

/**
 * The gate of every non-public HTTP request: an actor from the API key or the
 * session cookie, or why not. A cookie-authenticated change must also come
 * from a trusted origin, since browsers send cookies cross-site. Each
 * admitted request spends one of its caller's budget (429 when spent).
 */
export function createGate({ authenticator, origins, limits }: { authenticator: Authenticator; origins: OriginPolicy; limits: RateLimits }) {
  return async (request: IncomingMessage): Promise<GateResult> => {
    const result = await authenticator.authenticate(request.headers);
    if (result.actor === null) return { error: result.error };
    if (result.credential === 'session') {
      const refusal = origins.refusal(request.method ?? 'GET', request.headers);
      if (refusal) return { error: refusal };
    }
    const rate = await limits.caller(result.actor);
    if (rate.refusal) return { error: rate.refusal };
    return { actor: result.actor, cookies: result.cookies, headers: rate.headers, ...(result.tenant ? { tenant: result.tenant } : {}) };
  };
}
