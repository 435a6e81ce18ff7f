/**
 * Who is a member: the lookups other modules make of the tenant's members
 * (an assignee, an entry's owner, the member whose schedule, holidays or
 * balance is asked for), in the caller's transaction.
 */
import type { TenantAccess } from '../../../auth/tenant-access.js';
import type { Db, Tx } from '../../../db/client.js';
import type { TenantUser } from '../../../generated/prisma/client.js';
import { notFound, validationFailed } from '../../../lib/errors.js';

/** An active member of the tenant, or a 400 naming `path` (assignees, an entry's owner). */
export async function activeMember(tx: Tx | Db, access: TenantAccess, tenantUserId: string, path: string): Promise<TenantUser> {
  const member = await tx.tenantUser.findFirst({ where: { id: tenantUserId, ...access.scope('read', 'TenantUser') } });
  if (!member) throw validationFailed([{ path, message: 'is not a member of this tenant' }]);
  if (member.status !== 'active') throw validationFailed([{ path, message: `is a member who is ${member.status}, not active` }]);
  return member;
}

/** A member of the access's tenant (any status: a former member's history stays readable), or 404. */
export async function memberOf(tx: Tx | Db, access: TenantAccess, id: string): Promise<TenantUser> {
  const member = await tx.tenantUser.findFirst({ where: { id, ...access.tenantWide('TenantUser') } });
  if (!member) throw notFound('TenantUser', id);
  return member;
}
