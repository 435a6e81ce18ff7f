import type { Authenticator } from '../auth/authenticate.js';
import type { OriginPolicy } from '../auth/origins.js';
import type { SessionLookup, Sessions } from '../auth/sessions.js';
import type { Actor } from '../auth/actor.js';
import type { ReadRouting } from '../db/replicas.js';
import type { ClientAddressOf } from '../lib/client-address.js';
import type { Gate } from '../request/request.js';
import type { RateLimits } from './rate-limit.js';

export function createGate({
  authenticator,
  sessions,
  origins,
  limits,
  clientAddress,
  reads,
}: {
  /** Takes the `Tally-Read-After` a caller carries from another process (read replicas only). */
  reads?: Pick<ReadRouting, 'replicated' | 'carried'>;
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
      if (reads?.replicated) {
        // What the caller wrote through another process: their reads here must see it too.
        const readAfter = request.headers['tally-read-after'];
        if (typeof readAfter === 'string') reads.carried({ actor: result.actor }, readAfter);
      }
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
