/**
 * Where an entry's rates come from (CONTRACT.md section 8): the rates that
 * may apply to a (member, project) pair, read in one statement; which of
 * them an entry copies is entry.values.ts's rule. Rates are copied onto the
 * entry when it is created and when a draft or rejected entry changes its
 * project, task or times: a submitted or approved entry keeps them, and a
 * rate changed later never rewrites an entry.
 */
import type { TenantAccess } from '../../../auth/tenant-access.js';
import type { Tx } from '../../../db/client.js';
import { fragment } from '../../../db/parameters.js';
import type { TenantSettings } from '../../platform/tenant/tenant.settings.js';
import { copiedRates, type CopiedRates, type RateSources } from './entry.values.js';

interface RateRow extends RateSources {
  tenantUserId: string;
  projectId: string | null;
}

/**
 * The rates entries of each (member, project) pair get now, in one
 * statement whatever the number of pairs (an import's batch), from the
 * members and projects `access` reads. Keyed by `rateKey(tenantUserId, projectId)`.
 */
export async function ratesForMany(
  tx: Tx,
  access: TenantAccess,
  pairs: readonly { tenantUserId: string; projectId: string | null }[],
  settings: Pick<TenantSettings, 'defaultHourlyRate' | 'currency'>,
): Promise<Map<string, CopiedRates>> {
  if (pairs.length === 0) return new Map();
  const rows = await tx.$queryRaw<RateRow[]>`
    SELECT pair.member AS "tenantUserId", pair.project AS "projectId",
           pm."hourlyRate" AS "memberRate", p."hourlyRate" AS "projectRate", c."hourlyRate" AS "clientRate",
           u."hourlyRate" AS "ownRate", u."costRate" AS "costRate", c.currency AS currency
      FROM unnest(${pairs.map((pair) => pair.tenantUserId)}::text[], ${pairs.map((pair) => pair.projectId)}::text[]) AS pair(member, project)
      JOIN tenant_users u ON u.id = pair.member AND ${fragment((bind) => access.sqlScope('read', 'TenantUser', 'u', bind))}
      LEFT JOIN projects p ON p.id = pair.project AND ${fragment((bind) => access.sqlScope('read', 'Project', 'p', bind))}
      LEFT JOIN clients c ON c.id = p."clientId"
      LEFT JOIN project_members pm ON pm."projectId" = p.id AND pm."tenantUserId" = u.id`;
  const found = new Map(rows.map((row) => [rateKey(row.tenantUserId, row.projectId), row] as const));
  return new Map(
    pairs.map((pair) => [rateKey(pair.tenantUserId, pair.projectId), copiedRates(found.get(rateKey(pair.tenantUserId, pair.projectId)), settings)] as const),
  );
}

export const rateKey = (tenantUserId: string, projectId: string | null): string => `${tenantUserId}\u0000${projectId ?? ''}`;

/** The rates an entry of `tenantUserId` on `projectId` gets now, in one statement. */
export async function ratesFor(
  tx: Tx,
  access: TenantAccess,
  { tenantUserId, projectId }: { tenantUserId: string; projectId: string | null },
  settings: Pick<TenantSettings, 'defaultHourlyRate' | 'currency'>,
): Promise<CopiedRates> {
  const rates = await ratesForMany(tx, access, [{ tenantUserId, projectId }], settings);
  return rates.get(rateKey(tenantUserId, projectId)) as CopiedRates;
}
