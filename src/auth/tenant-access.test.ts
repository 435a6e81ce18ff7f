import { describe, expect, it } from 'vitest';
import { systemActor } from './actor.js';
import type { ActionOn, Role, Subject } from './permissions.js';
import { accessFor, scopeAcross, type TenantAccess } from './tenant-access.js';

const tenant = { id: 'tenant-1', name: 'Acme', slug: 'acme', status: 'active' as const, settings: {} };
const me = 'member-me';
const other = 'member-other';
const accessOf = (role: Role, tenantUserId: string | null = me): TenantAccess => accessFor(tenant, systemActor('test'), role, tenantUserId);

/** The statement a raw query would run, with its parameters numbered in order. */
function sqlOf<S extends Subject>(access: TenantAccess, action: ActionOn<S>, subject: S) {
  const values: unknown[] = [];
  const predicate = access.sqlScope(action, subject, 't', (value) => `$${values.push(value)}`);
  return { predicate, values };
}

describe('ownership in the permission model', () => {
  it('scopes reads to the tenant, and to the caller’s own records where their grant is limited', () => {
    expect(accessOf('admin').scope('read', 'Entry')).toEqual({ tenantId: tenant.id });
    expect(accessOf('member').scope('read', 'Entry')).toEqual({ tenantId: tenant.id, tenantUserId: me });
    expect(accessOf('member').scope('read', 'Invoice')).toEqual({ tenantId: tenant.id, uploadedById: me });
    expect(accessOf('member').scope('read', 'Note')).toEqual({ tenantId: tenant.id });
    expect(accessOf('admin').scope('read', 'Notification')).toEqual({ tenantId: tenant.id, tenantUserId: me });
    // Managers approve others' entries only.
    expect(accessOf('manager').scope('approve', 'Entry')).toEqual({ tenantId: tenant.id, tenantUserId: { not: me } });
  });

  it('matches nothing owned for a caller without a member id, and refuses a caller without the grant', () => {
    expect(accessOf('admin', null).scope('read', 'Notification')).toEqual({ tenantId: tenant.id, tenantUserId: { in: [] } });
    // Spread last, the scope's conditions stand whatever the caller's where said before them.
    expect({ id: 'n-1', tenantUserId: other, ...accessOf('member').scope('update', 'Note') }).toEqual({ id: 'n-1', tenantId: tenant.id, tenantUserId: me });
    expect(() => accessOf('member').scope('read', 'Webhook')).toThrow(expect.objectContaining({ code: 'FORBIDDEN' }));
    expect(() => accessOf('manager').scope('read', 'Sync')).toThrow(expect.objectContaining({ code: 'FORBIDDEN' }));
  });

  it('writes the same decisions as SQL predicates, with bound parameters only', () => {
    expect(sqlOf(accessOf('manager'), 'read', 'Entry')).toEqual({ predicate: 't."tenantId" = $1', values: [tenant.id] });
    expect(sqlOf(accessOf('member'), 'read', 'Entry')).toEqual({ predicate: 't."tenantId" = $1 AND t."tenantUserId" = $2', values: [tenant.id, me] });
    expect(sqlOf(accessOf('member'), 'read', 'Invoice')).toEqual({ predicate: 't."tenantId" = $1 AND t."uploadedById" = $2', values: [tenant.id, me] });
    expect(sqlOf(accessOf('manager'), 'approve', 'Entry')).toEqual({
      predicate: 't."tenantId" = $1 AND t."tenantUserId" IS DISTINCT FROM $2',
      values: [tenant.id, me],
    });
    expect(sqlOf(accessOf('admin', null), 'read', 'Notification')).toEqual({ predicate: 't."tenantId" = $1 AND FALSE', values: [tenant.id] });
  });

  it('answers for the whole tenant where a rule needs every record, and stamps new records with the tenant', () => {
    // A member reads their own entries, but an overlap or a budget counts everyone's.
    expect(accessOf('member').tenantWide('Entry')).toEqual({ tenantId: tenant.id });
    expect(accessOf('member').tenantWide('Event')).toEqual({ tenantId: tenant.id });
    const values: unknown[] = [];
    expect(accessOf('member').sqlTenantWide('Entry', 'e', (value) => `$${values.push(value)}`)).toBe('e."tenantId" = $1');
    expect(values).toEqual([tenant.id]);
    // The tenant comes last: nothing in the data names another.
    expect(accessOf('member').stamp({ name: 'Acme', tenantId: 'tenant-2' })).toEqual({ name: 'Acme', tenantId: tenant.id });
  });

  it('scopes the tenant itself by its own id', () => {
    expect(accessOf('member').scope('read', 'Tenant')).toEqual({ id: tenant.id });
    expect(accessOf('admin').tenantWide('Tenant')).toEqual({ id: tenant.id });
    expect(sqlOf(accessOf('owner'), 'update', 'Tenant')).toEqual({ predicate: 't."id" = $1', values: [tenant.id] });
    expect(() => accessOf('member').scope('update', 'Tenant')).toThrow(expect.objectContaining({ code: 'FORBIDDEN' }));
  });

  it('checks a single record against the grant’s reach, with the subject’s own words', () => {
    const mine = { tenantUserId: me };
    const theirs = { tenantUserId: other };
    expect(() => accessOf('member').assertMayChange('update', 'Note', mine)).not.toThrow();
    expect(() => accessOf('member').assertMayChange('update', 'Note', theirs)).toThrow('You may update only the notes you wrote');
    expect(() => accessOf('manager').assertMayChange('delete', 'Note', theirs)).toThrow('You may delete only the notes you wrote');
    expect(() => accessOf('admin').assertMayChange('delete', 'Note', theirs)).not.toThrow();
    expect(() => accessOf('manager').assertMayChange('approve', 'Entry', mine, 'reject')).toThrow('Managers may not reject their own entries');
    expect(() => accessOf('manager').assertMayChange('approve', 'Entry', theirs)).not.toThrow();
    expect(() => accessOf('owner').assertMayChange('approve', 'Entry', mine)).not.toThrow();
    expect(() => accessOf('member').assertMayChange('approve', 'Entry', mine)).toThrow('You may not approve Entry in this tenant');
    expect(() => accessOf('member').assertMayChange('update', 'Task', { assigneeId: null })).toThrow('You may change only tasks assigned to you');
    // A record without an owner is nobody's own: no caller without a member id owns anything.
    expect(() => accessOf('member', null).assertMayChange('update', 'Note', { tenantUserId: null })).toThrow(expect.objectContaining({ code: 'FORBIDDEN' }));
    expect(accessOf('member', null).owns('Note', { tenantUserId: null })).toBe(false);
  });

  it('switches a grant on where the tenant setting says so: members read rates only with membersSeeRates', () => {
    expect(accessOf('member').can('read', 'Rate')).toBe(false);
    expect(accessOf('manager').can('read', 'Rate')).toBe(true);
    const seeing = accessFor({ ...tenant, settings: { membersSeeRates: true } }, systemActor('test'), 'member', me);
    expect(seeing.can('read', 'Rate')).toBe(true);
    expect(seeing.grants).toContainEqual(expect.objectContaining({ action: 'read', subject: 'Rate', when: 'membersSeeRates' }));
    expect(accessOf('member').grants.some((grant) => grant.subject === 'Rate')).toBe(false);
    // Only `true` switches it on: a stored string does not.
    expect(accessFor({ ...tenant, settings: { membersSeeRates: 'yes' } }, systemActor('test'), 'member', me).can('read', 'Rate')).toBe(false);
  });

  it('unites the scopes of several tenants for relations filtered before their parent is read', () => {
    const elsewhere = accessFor({ ...tenant, id: 'tenant-2' }, systemActor('test'), 'admin', 'admin-me');
    expect(scopeAcross([accessOf('member'), elsewhere], 'read', 'Entry')).toEqual({
      OR: [{ tenantId: tenant.id, tenantUserId: me }, { tenantId: 'tenant-2' }],
    });
    expect(scopeAcross([], 'read', 'Entry')).toEqual({ id: { in: [] } });
  });
});
