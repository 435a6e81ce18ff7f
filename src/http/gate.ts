import type { IncomingMessage } from 'node:http';
import type { Authenticator } from '../auth/authenticate.js';
import type { OriginPolicy } from '../auth/origins.js';
import type { GateResult } from '../rest/router.js';

/**
 * The gate of every non-public HTTP request: an actor from the API key or the
 * session cookie, or why not. A cookie-authenticated change must also come
 * from a trusted origin, since browsers send cookies cross-site.
 */
export function createGate({ authenticator, origins }: { authenticator: Authenticator; origins: OriginPolicy }) {
  return async (request: IncomingMessage): Promise<GateResult> => {
    const result = await authenticator.authenticate(request.headers);
    if (result.actor === null) return { error: result.error };
    if (result.credential === 'session') {
      const refusal = origins.refusal(request.method ?? 'GET', request.headers);
      if (refusal) return { error: refusal };
    }
    return { actor: result.actor, cookies: result.cookies, ...(result.tenant ? { tenant: result.tenant } : {}) };
  };
}
