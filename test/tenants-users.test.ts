import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Membership, TenantUser } from './generated/openapi/types.gen.js';
import { systemActor } from '../src/auth/actor.js';
import { systemAccess } from '../src/auth/tenant-access.js';
import type { AppError } from '../src/lib/errors.js';
import { seeder, uniqueSlug, type SeededTenant } from './helpers/seed.js';
import { apiClient, type Json } from './helpers/http.js';
import { startIdentityProvider, type IdentityProvider } from './helpers/oidc.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { signIn, uniqueEmail, type SignedIn } from './helpers/sessions.js';

let provider: IdentityProvider;
let server: TestServer;
let root: SignedIn;

beforeAll(async () => {
  provider = await startIdentityProvider();
  server = await startTestServer({ env: { ...provider.env, SUPERADMIN_EMAILS: 'root@tenants.test' } });
  root = await signIn(server, provider, { email: 'root@tenants.test' });
});
afterAll(async () => {
  await server?.stop();
  await provider?.close();
});

/** A tenant with an owner who signed in, and a client for each. */
async function tenantWithOwner(): Promise<{ tenant: SeededTenant; owner: SignedIn; ownerMember: Membership }> {
  const tenant = await seeder(server).tenant();
  const email = uniqueEmail('owner');
  await server.app.services.users.invite(systemAccess(tenant.tenant, systemActor('test')), { email, role: 'owner' });
  const owner = await signIn(server, provider, { email });
  const ownerMember = (await owner.api.get<Membership>(`/tenants/${tenant.tenant.id}/users/me`)).body;
  return { tenant, owner, ownerMember };
}

describe('tenants', () => {
  it('are created by superadmins, with an owner invited or linked at once', async () => {
    const existing = await signIn(server, provider);
    const slug = uniqueSlug('acme');
    const created = await root.api.post<Json>('/tenants', { name: 'Acme', slug, ownerEmail: existing.user.email });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'Acme', slug, status: 'active', settings: { timezone: 'UTC', currency: 'EUR', weekStart: 'monday' } });
    const tenantId = created.body.id as string;
    // The owner had signed in before, with a verified address: active at once.
    const me = await existing.api.get<Json>(`/tenants/${tenantId}/users/me`);
    expect(me.body).toMatchObject({ role: 'owner', status: 'active' });

    const invitedOwner = await root.api.post<Json>('/tenants', { name: 'Later', slug: uniqueSlug('later'), ownerEmail: uniqueEmail('later') });
    const members = await root.api.get<TenantUser[]>(`/tenants/${invitedOwner.body.id as string}/users`);
    expect(members.body).toEqual([expect.objectContaining({ role: 'owner', status: 'invited', userId: null })]);
  });

  it('refuse a taken or malformed slug, naming the field', async () => {
    const slug = uniqueSlug('taken');
    expect((await root.api.post('/tenants', { name: 'First', slug })).status).toBe(201);
    const taken = await root.api.post<Json>('/tenants', { name: 'Second', slug });
    expect(taken.status).toBe(409);
    expect(taken.body.reason).toBe('SLUG_TAKEN');
    expect(taken.body.errors).toEqual([{ path: 'slug', message: 'is already taken' }]);
    const malformed = await root.api.post<Json>('/tenants', { name: 'Bad', slug: '-bad slug-' });
    expect(malformed.status).toBe(400);
    expect((malformed.body.errors as Json[])[0]).toMatchObject({ path: 'slug' });
  });

  it('are created by superadmins only', async () => {
    const someone = await signIn(server, provider);
    const refused = await someone.api.post<Json>('/tenants', { name: 'Mine', slug: uniqueSlug('mine') });
    expect(refused.status).toBe(403);
    expect(refused.body.detail).toBe('Only a superadmin may do this');
    const tenant = await seeder(server).tenant();
    expect((await tenant.api.post('/tenants', { name: 'Key', slug: uniqueSlug('key') })).status).toBe(403);
  });

  it("are listed as the caller's own: members see theirs, superadmins all, a key its own", async () => {
    const { tenant, owner } = await tenantWithOwner();
    await seeder(server).tenant();
    expect((await owner.api.get<Json[]>('/tenants')).body.map((each) => each.id)).toEqual([tenant.tenant.id]);
    expect((await tenant.api.get<Json[]>('/tenants')).body.map((each) => each.id)).toEqual([tenant.tenant.id]);
    const all = await root.api.get<Json[]>('/tenants', { query: { limit: 200 } });
    expect(all.body.length).toBe(await server.app.db.tenant.count());
  });

  it('merge settings changes over the current settings and validate each one', async () => {
    const { tenant, owner } = await tenantWithOwner();
    const path = `/tenants/${tenant.tenant.id}`;
    const first = await owner.api.patch<Json>(path, { settings: { timezone: 'Europe/Berlin', approvalRequired: true } });
    expect(first.status).toBe(200);
    const second = await owner.api.patch<Json>(path, { name: 'Renamed', settings: { lockedUntil: '2026-10-31', roundingMinutes: 15 } });
    expect(second.body).toMatchObject({
      name: 'Renamed',
      settings: { timezone: 'Europe/Berlin', approvalRequired: true, lockedUntil: '2026-10-31', roundingMinutes: 15, currency: 'EUR' },
    });
    const invalid = await owner.api.patch<Json>(path, { settings: { timezone: 'Mars/Olympus', roundingMinutes: 7, colour: 'red' } });
    expect(invalid.status).toBe(400);
    expect(invalid.body.errors).toEqual(
      expect.arrayContaining([
        { path: 'settings.timezone', message: 'must be an IANA time zone such as Europe/Berlin' },
        { path: 'settings.roundingMinutes', message: 'must be one of 0, 1, 5, 6, 10, 15, 30, 60' },
        { path: 'settings.colour', message: 'is not a known field' },
      ]),
    );
    expect((await owner.api.get<Json>(path)).body.settings).toMatchObject({ timezone: 'Europe/Berlin', roundingMinutes: 15 });
  });
});

describe('members', () => {
  it('are invited by e-mail, once', async () => {
    const { tenant } = await tenantWithOwner();
    const users = `/tenants/${tenant.tenant.id}/users`;
    const email = uniqueEmail('new');
    const invited = await tenant.api.post<TenantUser>(users, { email: email.toUpperCase(), role: 'manager', hourlyRate: 85.5 });
    expect(invited.status).toBe(201);
    expect(invited.body).toMatchObject({ email, role: 'manager', status: 'invited', userId: null, hourlyRate: '85.50' });
    const again = await tenant.api.post<Json>(users, { email });
    expect(again.status).toBe(409);
    expect(again.body.reason).toBe('ALREADY_MEMBER');
    expect(again.body.errors).toEqual([{ path: 'email', message: 'is already a member' }]);
    const invalid = await tenant.api.post<Json>(users, { email: 'not-an-address', role: 'boss' });
    expect(invalid.body.errors).toEqual(
      expect.arrayContaining([
        { path: 'email', message: 'must be an e-mail address' },
        { path: 'role', message: 'must be one of: owner, admin, manager, member' },
      ]),
    );
    const events = await server.app.db.event.findMany({ where: { subjectId: invited.body.id } });
    expect(events.map((event) => event.type)).toEqual(['user.added']);
  });

  it('are listed with filters and pages', async () => {
    const { tenant } = await tenantWithOwner();
    const users = `/tenants/${tenant.tenant.id}/users`;
    for (const role of ['member', 'member', 'manager']) await tenant.api.post(users, { email: uniqueEmail(role), role });
    expect((await tenant.api.get<TenantUser[]>(users, { query: { role: 'member' } })).body).toHaveLength(2);
    expect((await tenant.api.get<TenantUser[]>(users, { query: { status: 'active' } })).body.map((member) => member.role)).toEqual(['owner']);
    expect((await tenant.api.get<TenantUser[]>(users, { query: { limit: 2 } })).body).toHaveLength(2);
    expect((await tenant.api.get<Json>(users, { query: { role: 'king' } })).status).toBe(400);
  });

  it('change the owner role only at the hands of an owner', async () => {
    const { tenant, owner } = await tenantWithOwner();
    const users = `/tenants/${tenant.tenant.id}/users`;
    // The API key is an admin.
    const byAdmin = await tenant.api.post<Json>(users, { email: uniqueEmail('o'), role: 'owner' });
    expect(byAdmin.status).toBe(403);
    expect(byAdmin.body.detail).toBe('Only an owner may grant, change or take the owner role');
    const manager = await tenant.api.post<TenantUser>(users, { email: uniqueEmail('m'), role: 'manager' });
    expect((await tenant.api.patch(`${users}/${manager.body.id}`, { role: 'owner' })).status).toBe(403);
    const promoted = await owner.api.patch<TenantUser>(`${users}/${manager.body.id}`, { role: 'owner' });
    expect(promoted.body.role).toBe('owner');
    expect((await tenant.api.patch(`${users}/${manager.body.id}`, { role: 'member' })).status).toBe(403);
  });

  it('never lose their last active owner', async () => {
    const { tenant, owner, ownerMember } = await tenantWithOwner();
    const self = `/tenants/${tenant.tenant.id}/users/${ownerMember.id}`;
    for (const change of [{ role: 'admin' }, { status: 'deactivated' }]) {
      const refused = await owner.api.patch<Json>(self, change);
      expect(refused.status).toBe(409);
      expect(refused.body).toMatchObject({ reason: 'LAST_OWNER', detail: expect.stringMatching(/last owner/) });
    }
    expect((await owner.api.delete<Json>(self)).body).toMatchObject({ status: 409, reason: 'LAST_OWNER' });

    const second = await signIn(server, provider);
    await owner.api.post(`/tenants/${tenant.tenant.id}/users`, { email: second.user.email, role: 'owner' });
    expect((await owner.api.patch<TenantUser>(self, { role: 'admin' })).body.role).toBe('admin');
  });

  it('keep one owner when two owners demote each other at the same moment', async () => {
    const tenant = await seeder(server).tenant();
    const access = systemAccess(tenant.tenant, systemActor('test'));
    const first = await server.app.services.users.invite(access, { email: uniqueEmail('a'), role: 'owner' });
    const second = await server.app.services.users.invite(access, { email: uniqueEmail('b'), role: 'owner' });
    await server.app.db.tenantUser.updateMany({ where: { id: { in: [first.id, second.id] } }, data: { status: 'active' } });
    const outcomes = await Promise.allSettled([
      server.app.services.users.update(access, first.id, { role: 'member' }),
      server.app.services.users.update(access, second.id, { role: 'member' }),
    ]);
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
    const refusal = outcomes.find((outcome) => outcome.status === 'rejected') as PromiseRejectedResult;
    expect((refusal.reason as AppError).code).toBe('CONFLICT');
    expect(await server.app.db.tenantUser.count({ where: { tenantId: tenant.tenant.id, role: 'owner', status: 'active' } })).toBe(1);
  });

  it('are removed: invitations deleted, members deactivated (and locked out), and invited again', async () => {
    const { tenant, owner } = await tenantWithOwner();
    const users = `/tenants/${tenant.tenant.id}/users`;
    const invitation = await owner.api.post<TenantUser>(users, { email: uniqueEmail('gone') });
    expect((await owner.api.delete(`${users}/${invitation.body.id}`)).status).toBe(204);
    expect((await owner.api.get(`${users}/${invitation.body.id}`)).status).toBe(404);

    const person = await signIn(server, provider);
    const member = await owner.api.post<TenantUser>(users, { email: person.user.email });
    expect(member.body.status).toBe('active');
    expect((await person.api.get(`/tenants/${tenant.tenant.id}/notes`)).status).toBe(200);
    expect((await owner.api.delete(`${users}/${member.body.id}`)).status).toBe(204);
    expect((await owner.api.get<TenantUser>(`${users}/${member.body.id}`)).body.status).toBe('deactivated');
    expect((await person.api.get(`/tenants/${tenant.tenant.id}/notes`)).status).toBe(404);

    const back = await owner.api.post<TenantUser>(users, { email: person.user.email, role: 'manager' });
    expect(back.status).toBe(201);
    expect(back.body).toMatchObject({ id: member.body.id, status: 'active', role: 'manager' });
    expect((await person.api.get(`/tenants/${tenant.tenant.id}/notes`)).status).toBe(200);
    const types = (await server.app.db.event.findMany({ where: { subjectId: member.body.id }, orderBy: { id: 'asc' } })).map((event) => event.type);
    expect(types).toEqual(['user.added', 'user.removed', 'user.added']);
  });

  it('cannot activate an invitation by hand', async () => {
    const { tenant } = await tenantWithOwner();
    const invited = await tenant.api.post<TenantUser>(`/tenants/${tenant.tenant.id}/users`, { email: uniqueEmail('x') });
    const refused = await tenant.api.patch<Json>(`/tenants/${tenant.tenant.id}/users/${invited.body.id}`, { status: 'active' });
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ code: 'INVALID_STATE', reason: 'INVITATION_PENDING' });
  });

  it('show rates as the Rate permission says: to owners, admins and managers; to members only where the tenant sets membersSeeRates', async () => {
    const { tenant, owner } = await tenantWithOwner();
    const users = `/tenants/${tenant.tenant.id}/users`;
    const [first, second] = [await signIn(server, provider), await signIn(server, provider)];
    const firstMember = await owner.api.post<TenantUser>(users, { email: first.user.email, hourlyRate: '90.00', costRate: '40.25' });
    const secondMember = await owner.api.post<TenantUser>(users, { email: second.user.email, hourlyRate: '70.00', role: 'manager' });
    expect((await owner.api.get<TenantUser>(`${users}/${firstMember.body.id}`)).body).toMatchObject({ hourlyRate: '90.00', costRate: '40.25' });
    expect((await second.api.get<TenantUser>(`${users}/${firstMember.body.id}`)).body).toMatchObject({ hourlyRate: '90.00', costRate: '40.25' });
    // A member reads null, their own rates included, until the tenant lets members see rates.
    expect((await first.api.get<TenantUser>(`${users}/${firstMember.body.id}`)).body).toMatchObject({ hourlyRate: null, costRate: null });
    expect((await first.api.get<TenantUser>(`${users}/${secondMember.body.id}`)).body).toMatchObject({ hourlyRate: null, costRate: null });
    expect((await first.api.get<Membership>(`${users}/me`)).body).toMatchObject({ hourlyRate: null, costRate: null });
    await owner.api.patch(`/tenants/${tenant.tenant.id}`, { settings: { membersSeeRates: true } });
    expect((await first.api.get<TenantUser>(`${users}/${firstMember.body.id}`)).body).toMatchObject({ hourlyRate: '90.00', costRate: '40.25' });
    expect((await first.api.get<Membership>(`${users}/me`)).body).toMatchObject({ hourlyRate: '90.00', costRate: '40.25' });
    const cleared = await owner.api.patch<TenantUser>(`${users}/${firstMember.body.id}`, { costRate: null });
    expect(cleared.body.costRate).toBeNull();
  });
});

describe('users/me', () => {
  it('shows a member their record, role and permissions', async () => {
    const { tenant, owner } = await tenantWithOwner();
    const person = await signIn(server, provider);
    await owner.api.post(`/tenants/${tenant.tenant.id}/users`, { email: person.user.email, role: 'member' });
    const me = await person.api.get<Membership>(`/tenants/${tenant.tenant.id}/users/me`);
    expect(me.body).toMatchObject({ email: person.user.email, role: 'member', actorType: 'user', tenantId: tenant.tenant.id });
    expect(me.body.permissions).toEqual(
      expect.arrayContaining([
        { action: 'update', subject: 'Note', own: true },
        { action: 'read', subject: 'Tenant', own: false },
      ]),
    );
    expect(me.body.permissions).not.toContainEqual(expect.objectContaining({ subject: 'ApiKey' }));
  });

  it('shows an API key as admin, without a member record', async () => {
    const tenant = await seeder(server).tenant();
    const me = await tenant.api.get<Membership>(`/tenants/${tenant.tenant.id}/users/me`);
    expect(me.body).toMatchObject({ id: null, email: null, role: 'admin', actorType: 'api_key' });
    expect(me.body.permissions).toContainEqual({ action: 'manage', subject: 'ApiKey', own: false });
  });

  it('shows a superadmin who is not a member as owner', async () => {
    const tenant = await seeder(server).tenant();
    const me = await root.api.get<Json>(`/tenants/${tenant.tenant.id}/users/me`);
    expect(me.body).toMatchObject({ id: null, role: 'owner', actorType: 'user' });
    expect((await apiClient(server.url, { cookie: root.cookie }).get(`/tenants/${tenant.tenant.id}/notes`)).status).toBe(200);
  });
});
