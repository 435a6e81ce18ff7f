/**
 * A real OpenID Connect provider on loopback (oauth2-mock-server): discovery,
 * RS256-signed ID tokens checked against its JWKS, PKCE and nonce. It signs in
 * whoever `signInAs` names next, and approves at once (its consent screen).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { OAuth2Issuer, OAuth2Service } from 'oauth2-mock-server';

export interface IdentityProviderUser {
  sub: string;
  email: string;
  name: string;
  emailVerified?: boolean;
}

export interface IdentityProvider {
  issuer: string;
  /** The person the next sign-in is for. */
  signInAs(user: IdentityProviderUser): void;
  /** Environment for the server: AUTH_OIDC_* pointing here. */
  env: Record<string, string>;
  close(): Promise<void>;
}

export async function startIdentityProvider(): Promise<IdentityProvider> {
  const issuer = new OAuth2Issuer();
  await issuer.keys.generate('RS256');
  const service = new OAuth2Service(issuer);
  let current: IdentityProviderUser = { sub: 'nobody', email: 'nobody@example.test', name: 'Nobody' };
  const claims = () => ({
    sub: current.sub,
    email: current.email,
    email_verified: current.emailVerified ?? true,
    name: current.name,
  });
  service.on('beforeTokenSigning', (token: { payload: Record<string, unknown> }) => {
    Object.assign(token.payload, claims());
  });
  service.on('beforeUserinfo', (response: { body: unknown }) => {
    response.body = claims();
  });
  const server = http.createServer(service.requestHandler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  issuer.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    issuer: issuer.url,
    signInAs(user) {
      current = user;
    },
    env: {
      AUTH_OIDC_ISSUER: issuer.url,
      AUTH_OIDC_CLIENT_ID: 'tally-test',
      AUTH_OIDC_CLIENT_SECRET: 'tally-test-secret',
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
