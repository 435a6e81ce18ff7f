import { randomBytes } from 'node:crypto';
import { Browser } from './browser.js';
import { apiClient, type ApiClient } from './http.js';
import type { IdentityProvider, IdentityProviderUser } from './oidc.js';
import type { TestServer } from './server.js';

export interface SignedIn {
  user: IdentityProviderUser;
  browser: Browser;
  /** The session as /api/auth/session reported it. */
  session: { session: { id: string; userId: string }; user: { id: string; email: string; isSuperadmin: boolean } };
  /** A client sending the session cookie, from the server's own origin. */
  api: ApiClient;
  cookie: string;
}

export const uniqueEmail = (prefix = 'person'): string => `${prefix}-${randomBytes(4).toString('hex')}@example.test`;

/** Signs `user` in through the real flow: signin -> provider -> callback -> cookie. */
export async function signIn(server: Pick<TestServer, 'url'>, provider: IdentityProvider, user: Partial<IdentityProviderUser> = {}): Promise<SignedIn> {
  const email = user.email ?? uniqueEmail();
  const person: IdentityProviderUser = { sub: `sub-${email}`, name: email.split('@')[0] as string, ...user, email };
  provider.signInAs(person);
  const browser = new Browser(server.url);
  const hops = await browser.navigate(`${server.url}/api/auth/signin/oidc`);
  const last = hops.at(-1);
  if (!last || last.status !== 200 || !last.url.endsWith('/api/auth/session')) {
    throw new Error(`sign-in did not end at /api/auth/session: ${hops.map((hop) => `${hop.status} ${hop.url}`).join(' -> ')}\n${last?.text}`);
  }
  const cookie = browser.cookieHeader(server.url);
  return {
    user: person,
    browser,
    session: JSON.parse(last.text) as SignedIn['session'],
    api: apiClient(server.url, { cookie, origin: server.url }),
    cookie,
  };
}
