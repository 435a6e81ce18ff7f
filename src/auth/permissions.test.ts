import { describe, expect, it } from 'vitest';
import { canAny, canSome, statements, type Permission } from './permissions.js';

describe('permission pairs', () => {
  it('exist only where the subject has the action; others do not compile', () => {
    const approveEntry: Permission = ['approve', 'Entry'];
    // @ts-expect-error Notes are not approved: the pair does not type-check.
    const approveNote: Permission = ['approve', 'Note'];
    // @ts-expect-error Tenants are not deleted through the API.
    const deleteTenant: Permission = ['delete', 'Tenant'];
    expect([approveEntry, approveNote, deleteTenant].map(([action, subject]) => (statements[subject] as readonly string[]).includes(action))).toEqual([
      true,
      false,
      false,
    ]);
  });

  it('read as the role matrix says on the cells that matter most', () => {
    expect(canSome('member', 'create', 'ApiKey')).toBe(false);
    expect(canSome('manager', 'create', 'ApiKey')).toBe(false);
    expect(canSome('manager', 'update', 'TenantUser')).toBe(false);
    expect(canAny('member', 'update', 'Note')).toBe(false);
    expect(canSome('member', 'update', 'Note')).toBe(true);
    expect(canSome('admin', 'approve', 'Entry')).toBe(true);
    expect(canSome('member', 'approve', 'Entry')).toBe(false);
    expect(canSome('member', 'update', 'Tenant')).toBe(false);
  });
});
