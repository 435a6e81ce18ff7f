/**
 * Test data through the public API, fluently:
 *
 *   const seed = seeder(server, provider);
 *   const tenant = await seed.tenant();                      // a tenant and its admin API key
 *   const manager = await seed.tenant().member('manager');   // invited over REST, signed in through the provider
 *   const note = await tenant.member().note('hello');        // written by that member's session
 *
 * Only the tenant itself (and an owner, whom only an owner may invite) is
 * made through the services the CLI uses: creating a tenant over the API
 * takes a superadmin session, which most test servers do not configure.
 * Everything else goes through REST with real credentials, as a client would.
 */
import { randomBytes } from 'node:crypto';
import { systemActor } from '../../src/auth/actor.js';
import { systemAccess } from '../../src/auth/tenant-access.js';
import type { Tenant } from '../../src/generated/prisma/client.js';
import type { Note, TenantUser } from '../generated/openapi/types.gen.js';
import { apiClient, type ApiClient } from './http.js';
import type { IdentityProvider } from './oidc.js';
import type { TestServer } from './server.js';
import { signIn, uniqueEmail } from './sessions.js';

export const uniqueSlug = (prefix = 't'): string => `${prefix}-${randomBytes(5).toString('hex')}`;

export type Role = TenantUser['role'];

export interface SeededTenant {
  tenant: Tenant;
  id: string;
  /** The tenant's admin API key, and a client that sends it. */
  key: string;
  apiKeyId: string;
  api: ApiClient;
}

export interface SeededMember {
  tenant: SeededTenant;
  /** The tenantUserId. */
  id: string;
  email: string;
  role: Role;
  /** A client sending the member's session cookie from the server's own origin. */
  api: ApiClient;
  cookie: string;
}

/** A step of the chain: awaitable, and the start of the next step. */
class Step<T> implements PromiseLike<T> {
  constructor(protected readonly value: Promise<T>) {}

  // biome-ignore lint/suspicious/noThenProperty: a step is awaitable on purpose (`await seed.tenant().member()`).
  then<Result1 = T, Result2 = never>(
    onFulfilled?: ((value: T) => Result1 | PromiseLike<Result1>) | null,
    onRejected?: ((reason: unknown) => Result2 | PromiseLike<Result2>) | null,
  ): Promise<Result1 | Result2> {
    return this.value.then(onFulfilled, onRejected);
  }
}

async function expectStatus<Body>(response: Promise<{ status: number; body: Body; text: string }>, status: number, what: string): Promise<Body> {
  const answer = await response;
  if (answer.status !== status) throw new Error(`seed: ${what} answered ${answer.status}: ${answer.text}`);
  return answer.body;
}

async function writeNote(api: ApiClient, tenantId: string, content: string): Promise<Note> {
  return expectStatus(api.post<Note>(`/tenants/${tenantId}/notes`, { content }), 201, 'creating a note');
}

class MemberStep extends Step<SeededMember> {
  /** A note written by this member. */
  note(content = 'a note'): Step<Note> {
    return new Step(this.value.then((member) => writeNote(member.api, member.tenant.id, content)));
  }
}

class TenantStep extends Step<SeededTenant> {
  constructor(
    value: Promise<SeededTenant>,
    private readonly server: TestServer,
    private readonly provider: IdentityProvider | undefined,
  ) {
    super(value);
  }

  /** A person invited with `role` by the tenant's key, who then signs in through the identity provider. */
  member(role: Role = 'member', email = uniqueEmail(role)): MemberStep {
    const server = this.server;
    const provider = this.provider;
    return new MemberStep(
      this.value.then(async (tenant) => {
        if (!provider) throw new Error('seed: members sign in; create the seeder with an identity provider');
        // Only an owner may make an owner, and a new tenant has none yet: the first comes from the system, as with the CLI.
        const invited =
          role === 'owner'
            ? await server.app.services.users.invite(systemAccess(tenant.tenant, systemActor('test')), { email, role })
            : await expectStatus(tenant.api.post<TenantUser>(`/tenants/${tenant.id}/users`, { email, role }), 201, 'inviting a member');
        const signedIn = await signIn(server, provider, { email });
        return { tenant, id: invited.id, email, role, api: signedIn.api, cookie: signedIn.cookie };
      }),
    );
  }

  /** A note written with the tenant's API key (so it has no author). */
  note(content = 'a note'): Step<Note> {
    return new Step(this.value.then((tenant) => writeNote(tenant.api, tenant.id, content)));
  }
}

export interface Seeder {
  /** A new tenant of its own, with an admin API key. */
  tenant(options?: { name?: string; expiresInDays?: number }): TenantStep;
}

export function seeder(server: TestServer, provider?: IdentityProvider): Seeder {
  return {
    tenant({ name = 'Test tenant', expiresInDays = 90 } = {}) {
      const created = (async (): Promise<SeededTenant> => {
        const actor = systemActor('test');
        const tenant = await server.app.services.tenants.create(actor, { name, slug: uniqueSlug() });
        const { apiKey, key } = await server.app.services.apiKeys.create(systemAccess(tenant, actor), { name: 'test key', expiresInDays });
        return { tenant, id: tenant.id, key, apiKeyId: apiKey.id, api: apiClient(server.url, { apiKey: key }) };
      })();
      return new TenantStep(created, server, provider);
    },
  };
}

/** A tenant with the people an approval needs: a member, a colleague, a manager and an admin. */
export interface Team {
  tenant: SeededTenant;
  member: SeededMember;
  colleague: SeededMember;
  manager: SeededMember;
  admin: SeededMember;
}

/** A tenant of its own with `settings` and a team, all signed in through the identity provider. */
export async function seedTeam(server: TestServer, provider: IdentityProvider, settings: Record<string, unknown> = { approvalRequired: true }): Promise<Team> {
  const step = seeder(server, provider).tenant();
  const tenant = await step;
  await tenant.api.patch(`/tenants/${tenant.id}`, { settings });
  // One at a time: the identity provider signs in one person at a time.
  const member = await step.member('member');
  const colleague = await step.member('member');
  const manager = await step.member('manager');
  const admin = await step.member('admin');
  return { tenant, member, colleague, manager, admin };
}
