/**
 * Rates and amounts of an entry (CONTRACT.md section 8). The billable rate is
 * the first set of: the project member's, the project's, the client's, the
 * member's own, the tenant's default; the cost rate is the member's. Both are
 * copied onto the entry when it is created and when a draft or rejected entry
 * changes its project, task or times: a submitted or approved entry keeps
 * them, and a rate changed later never rewrites an entry. Amounts are derived
 * from the copied rates on every write.
 */
import type { Tx } from '../../db/client.js';
import { Prisma } from '../../generated/prisma/client.js';
import type { TenantSettings } from '../tenant/tenant.service.js';

/** What an entry copies when its rates are set. */
export interface CopiedRates {
  hourlyRate: Prisma.Decimal | null;
  costRate: Prisma.Decimal | null;
  currency: string;
}

interface RateRow {
  tenantUserId: string;
  projectId: string | null;
  memberRate: Prisma.Decimal | null;
  projectRate: Prisma.Decimal | null;
  clientRate: Prisma.Decimal | null;
  ownRate: Prisma.Decimal | null;
  costRate: Prisma.Decimal | null;
  currency: string | null;
}

/** The first rate set, from the project member's down to the tenant's default. */
function copiedRates(row: RateRow | undefined, settings: Pick<TenantSettings, 'defaultHourlyRate' | 'currency'>): CopiedRates {
  const fallback = settings.defaultHourlyRate === null ? null : new Prisma.Decimal(settings.defaultHourlyRate);
  return {
    hourlyRate: row?.memberRate ?? row?.projectRate ?? row?.clientRate ?? row?.ownRate ?? fallback,
    costRate: row?.costRate ?? null,
    currency: row?.currency ?? settings.currency,
  };
}

/**
 * The rates entries of each (member, project) pair get now, in one
 * statement whatever the number of pairs (an import's batch). Keyed by
 * `rateKey(tenantUserId, projectId)`.
 */
export async function ratesForMany(
  tx: Tx,
  tenantId: string,
  pairs: readonly { tenantUserId: string; projectId: string | null }[],
  settings: Pick<TenantSettings, 'defaultHourlyRate' | 'currency'>,
): Promise<Map<string, CopiedRates>> {
  if (pairs.length === 0) return new Map();
  const rows = await tx.$queryRaw<RateRow[]>`
    SELECT pair.member AS "tenantUserId", pair.project AS "projectId",
           pm."hourlyRate" AS "memberRate", p."hourlyRate" AS "projectRate", c."hourlyRate" AS "clientRate",
           u."hourlyRate" AS "ownRate", u."costRate" AS "costRate", c.currency AS currency
      FROM unnest(${pairs.map((pair) => pair.tenantUserId)}::text[], ${pairs.map((pair) => pair.projectId)}::text[]) AS pair(member, project)
      JOIN tenant_users u ON u.id = pair.member AND u."tenantId" = ${tenantId}
      LEFT JOIN projects p ON p.id = pair.project AND p."tenantId" = ${tenantId}
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
  { tenantId, tenantUserId, projectId }: { tenantId: string; tenantUserId: string; projectId: string | null },
  settings: Pick<TenantSettings, 'defaultHourlyRate' | 'currency'>,
): Promise<CopiedRates> {
  const rates = await ratesForMany(tx, tenantId, [{ tenantUserId, projectId }], settings);
  return rates.get(rateKey(tenantUserId, projectId)) as CopiedRates;
}

/** `minutes` at `rate` per hour, rounded half-up to cents. */
export function amountOf(minutes: number, rate: Prisma.Decimal): Prisma.Decimal {
  return new Prisma.Decimal(minutes).div(60).mul(rate).toDecimalPlaces(2, Prisma.Decimal.ROUND_HALF_UP);
}

/**
 * The amounts of an entry as it now is: none while running; the billable
 * amount is 0 for non-billable time and unknown without a rate, the cost
 * amount unknown without a cost rate.
 */
export function amountsOf(entry: { durationMinutes: number | null; billable: boolean; hourlyRate: Prisma.Decimal | null; costRate: Prisma.Decimal | null }): {
  billableAmount: Prisma.Decimal | null;
  costAmount: Prisma.Decimal | null;
} {
  if (entry.durationMinutes === null) return { billableAmount: null, costAmount: null };
  return {
    billableAmount: !entry.billable ? new Prisma.Decimal(0) : entry.hourlyRate === null ? null : amountOf(entry.durationMinutes, entry.hourlyRate),
    costAmount: entry.costRate === null ? null : amountOf(entry.durationMinutes, entry.costRate),
  };
}
