import type { IncomingMessage } from 'node:http';
import type { Authenticator } from '../auth/authenticate.js';
import type { OriginPolicy } from '../auth/origins.js';
import type { SessionLookup, Sessions } from '../auth/sessions.js';
import type { Actor } from '../auth/actor.js';
import type { ClientAddressOf } from '../lib/client-address.js';
import type { PublicBudget } from '../rest/route.js';
import type { AppError } from '../lib/errors.js';
import type { PublicGateResult, RequestState } from '../rest/router.js';
import type { RateLimits } from './rate-limit.js';

/** The gate's answer for an entry point that needs credentials: who calls, or why not. */
export type Admission = { actor: Actor } | { error: AppError };

export interface AdmitOptions {
  /** The credential when it comes from elsewhere than the Authorization header (a WebSocket's connection params). */
  authorization?: string | undefined;
  /**
   * Refuse a session cookie from an untrusted origin whatever the method: a
   * WebSocket upgrade is a GET, but what runs over it changes things.
   */
  originAlways?: boolean;
}

export interface Gate {
  /**
   * Every entry point that needs credentials (REST, GraphQL over HTTP and
   * WebSocket, /metrics) admits through here: an actor from the API key or
   * the session cookie, or why not. A cookie-authenticated change must also
   * come from a trusted origin, since browsers send cookies cross-site. Each
   * admitted request spends one of its caller's budget (429 when spent).
   * The admission is written onto the request's state, once: the actor, the
   * tenant read with an API key, the RateLimit headers and the cookies to
   * refresh, which the server puts on whatever the answer turns out to be.
   */
  admit(request: IncomingMessage, state: RequestState, options?: AdmitOptions): Promise<Admission>;
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
    async admit(request, state, { authorization, originAlways = false } = {}) {
      const result = await authenticator.authenticate(request.headers, authorization ?? request.headers.authorization);
      if (result.actor === null) return { error: result.error };
      if (result.credential === 'session') {
        const refusal = originAlways ? origins.crossSiteRefusal(request.headers) : origins.refusal(request.method ?? 'GET', request.headers);
        if (refusal) return { error: refusal };
      }
      const rate = await limits.caller(result.actor);
      if (rate.refusal) return { error: rate.refusal };
      state.actor = result.actor;
      state.knownTenant = result.tenant;
      state.headers = rate.headers;
      state.cookies = result.cookies;
      return { actor: result.actor };
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
