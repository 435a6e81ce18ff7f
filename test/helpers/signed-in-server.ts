import { afterAll, beforeAll } from 'vitest';
import { startIdentityProvider, type IdentityProvider } from './oidc.js';
import { startTestServer, type TestServer } from './server.js';

export interface SignedInServer {
  readonly server: TestServer;
  /** The OpenID Connect provider the server's members sign in with. */
  readonly provider: IdentityProvider;
}

/** A test file's server and its identity provider: started before the file's tests, stopped after them. */
export function serverWithSignIn(): SignedInServer {
  const started = {} as { server: TestServer; provider: IdentityProvider };
  beforeAll(async () => {
    started.provider = await startIdentityProvider();
    started.server = await startTestServer({ env: started.provider.env });
  });
  afterAll(async () => {
    await started.server?.stop();
    await started.provider?.close();
  });
  return started;
}
