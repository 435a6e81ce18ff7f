import type { IncomingMessage } from 'node:http';
import type { Authenticator } from '../auth/authenticate.js';
import type { OriginPolicy } from '../auth/origins.js';
import type { SessionLookup, Sessions } from '../auth/sessions.js';
import type { Actor } from '../auth/actor.js';
import type { ClientAddressOf } from '../lib/client-address.js';
import type { PublicBudget } from '../rest/route.js';
import type { GateResult, PublicGateResult } from '../rest/router.js';
import type { RateLimits } from './rate-limit.js';

export interface Gate {
  /**
   * A route that needs credentials: an actor from the API key or the session
   * cookie, or why not. A cookie-authenticated change must also come from a
   * trusted origin, since browsers send cookies cross-site. Each admitted
   * request spends one of its caller's budget (429 when spent).
   */
  admit(request: IncomingMessage): Promise<GateResult>;
  /**
   * A public route (sign-in, the session check): nobody is refused for lack
   * of credentials, but each request spends a budget, and who calls is known
   * where a credential says so.
   */
  admitPublic(request: IncomingMessage, budget: PublicBudget): Promise<PublicGateResult>;
  /** The client's address (TRUST_PROXY decides which `X-Forwarded-For` hops to believe). */
  clientAddress: ClientAddressOf;
}

export function createGate({
  authenticator,
  sessions,
  origins,
  limits,
  clientAddress,
}: {
  authenticator: Authenticator;
  sessions: Sessions;
  origins: OriginPolicy;
  limits: RateLimits;
  clientAddress: ClientAddressOf;
}): Gate {
  return {
    clientAddress,
    async admit(request) {
      const result = await authenticator.authenticate(request.headers);
      if (result.actor === null) return { error: result.error };
      if (result.credential === 'session') {
        const refusal = origins.refusal(request.method ?? 'GET', request.headers);
        if (refusal) return { error: refusal };
      }
      const rate = await limits.caller(result.actor);
      if (rate.refusal) return { error: rate.refusal };
      return { actor: result.actor, cookies: result.cookies, headers: rate.headers, ...(result.tenant ? { tenant: result.tenant } : {}) };
    },
    async admitPublic(request, budget) {
      if (budget === 'sign-in') {
        const rate = await limits.signIn(clientAddress(request));
        return rate.refusal ? { error: rate.refusal } : { actor: null, headers: rate.headers };
      }
      // A credential that does not hold is no reason to refuse a public route: its request counts as the address's.
      // A session cookie's lookup is handed on, so that the session check answers with it and looks nothing up twice.
      let actor: Actor | null;
      let session: SessionLookup | undefined;
      if (request.headers.authorization !== undefined) {
        actor = (await authenticator.authenticate(request.headers)).actor;
      } else {
        session = await sessions.current(request.headers);
        actor = session.found?.actor ?? null;
      }
      const rate = actor ? await limits.caller(actor) : await limits.anonymous(clientAddress(request));
      return rate.refusal ? { error: rate.refusal } : { actor, headers: rate.headers, ...(session ? { session } : {}) };
    },
  };
}
