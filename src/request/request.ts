/**
 * What a request is to every entry point, and what the gate promises them:
 * the state one request carries from its first byte to its answer, and the
 * gate's contract (src/http/gate.ts builds it). REST (a layer below the HTTP
 * server) admits through this contract, so request/ is the layer under REST
 * (test/architecture/layers.ts), while the server and the gate's
 * implementation (http/) sit above it.
 */
import type { IncomingMessage } from 'node:http';
import type { Actor } from '../auth/actor.js';
import type { SessionLookup } from '../auth/sessions.js';
import type { TenantRecord } from '../auth/tenant-access.js';
import type { ClientAddressOf } from '../lib/client-address.js';
import type { AppError } from '../lib/errors.js';
import type { Logger } from '../lib/logger.js';

/** One request's state: who it is for the request log, and what goes on its answer whatever the answer is. */
export interface RequestState {
  requestId: string;
  log: Logger;
  /** Set once the gate has admitted the caller (for the request log). */
  actor: Actor | null;
  /** Headers for whatever the answer turns out to be, errors included (RateLimit-*). */
  headers?: Record<string, string>;
  /** Cookies for whatever the answer turns out to be (a refreshed session). */
  cookies?: string[];
  /** The route template that matched (`/tenants/{tenantId}/notes`), for metrics. */
  route?: string;
  /** A tenant the gate read with the credential (an API key's own), as it is now. */
  knownTenant?: TenantRecord | undefined;
  /** The client's address, as TRUST_PROXY decides (for sign-in limits and the request log). */
  clientAddress: string;
}

/**
 * The budget a request to a public route spends (CONTRACT.md section 8,
 * "Trusted proxies"): `sign-in` per client address at the sign-in budget
 * (starting a sign-in, the provider's callback); `caller` that of the session
 * or key it carries, or else of the client address, at the general budget.
 */
export type PublicBudget = 'sign-in' | 'caller';

/** The gate's answer for a public route: who calls, if a credential says so (and the session cookie's lookup), or why not (over budget). */
export type PublicAdmission = { actor: Actor | null; headers: Record<string, string>; session?: SessionLookup } | { error: AppError };

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
  admitPublic(request: IncomingMessage, budget: PublicBudget): Promise<PublicAdmission>;
  /** The client's address (TRUST_PROXY decides which `X-Forwarded-For` hops to believe). */
  clientAddress: ClientAddressOf;
}
