/**
 * What the working-time rules read: a member's (or the team's) finished entries around a period, and the
 * holidays in effect. Shared by the reads (working-time.service.ts) and the write path (working-time.days.ts).
 */
import type { TenantAccess } from '../../../auth/tenant-access.js';
import type { Db, SqlClient, Tx } from '../../../db/client.js';
import { addDays } from '../../../lib/day.js';
import { startOfDay } from '../../../lib/time.js';
import type { TenantSettings } from '../../platform/tenant/tenant.settings.js';
import { holidaysByRegion } from '../holiday/holiday.service.js';
import { contextFrom, dayContextFrom, type WorkInterval } from './working-time.rules.js';

export interface EntryRow extends Record<string, unknown> {
  tenantUserId: string;
  holidayRegion: string | null;
  startedAt: Date;
  endedAt: Date;
  breakMinutes: number;
}

/**
 * Finished entries the rules judge `from` to `to` by, in one statement:
 * from 24 weeks before `from` (the averages) to the day after `to` (a night
 * shift that runs on), of one member on the (tenantId, tenantUserId,
 * startedAt) index or of the team on the (tenantId, startedAt) one, with the
 * member's holiday region.
 */
export async function entriesOf(
  sql: SqlClient,
  access: TenantAccess,
  settings: TenantSettings,
  from: string,
  to: string,
  tenantUserId?: string,
  context: 'averages' | 'day' = 'averages',
): Promise<EntryRow[]> {
  const first = context === 'averages' ? contextFrom(from) : dayContextFrom(from);
  const values: unknown[] = [startOfDay(first, settings.timezone), startOfDay(addDays(to, 2), settings.timezone)];
  const bind = (value: unknown) => `$${values.push(value)}`;
  const inTenant = access.sqlTenantWide('Entry', 'e', bind);
  const ofMember = tenantUserId === undefined ? '' : `AND e."tenantUserId" = ${bind(tenantUserId)}`;
  return sql.query<EntryRow>(
    `SELECT e."tenantUserId", u."holidayRegion", e."startedAt", e."endedAt", e."breakMinutes"
       FROM entries e JOIN tenant_users u ON u.id = e."tenantUserId"
      WHERE ${inTenant} ${ofMember} AND e."startedAt" >= $1 AND e."startedAt" < $2 AND e."endedAt" IS NOT NULL
      ORDER BY e."tenantUserId", e."startedAt"`,
    values,
  );
}

/**
 * Whole public holidays by date, per region: the tenant's own holidays (read
 * once) take the place of a region's on the same day; half days are no
 * statutory holidays (docs/decisions.md).
 */
export async function holidayNames(db: Db | Tx, access: TenantAccess, settings: TenantSettings, from: string, to: string) {
  const inEffect = await holidaysByRegion(db, access, from, to);
  const byRegion = new Map<string | null, Map<string, string>>();
  return (region: string | null): Map<string, string> => {
    const effective = region ?? settings.holidayRegion;
    let names = byRegion.get(effective);
    if (!names) {
      names = new Map();
      for (const [date, holiday] of inEffect(effective)) if (holiday.fraction >= 1) names.set(date, holiday.name);
      byRegion.set(effective, names);
    }
    return names;
  };
}

export const toInterval = (row: EntryRow): WorkInterval => ({ startedAt: row.startedAt, endedAt: row.endedAt, breakMinutes: Number(row.breakMinutes) });
