/**
 * The seed's time off and working time: every fourth member part time, a vacation allowance of this year and
 * last for everyone, a week's vacation and a sick day behind them, and a request ahead waiting for approval.
 * No random draws: the dates count from the tenant's today.
 */
import type { TenantSeed } from './context.js';
import type { Member } from './platform.js';

/** The time off of `members`, dated from `today` (the tenant's, in its time zone). */
export async function seedTimeOff(seed: TenantSeed, members: readonly Member[], today: string): Promise<void> {
  // Part time is 4 x 6 h, from 400 days ago.
  const partTime = members.filter((_member, index) => index % 4 === 3).map((member) => member.id);
  await seed.sql.query(
    `INSERT INTO work_schedules (id, "tenantId", "tenantUserId", "validFrom", minutes, "updatedAt")
     SELECT uuidv7()::text, $1, m, $3::date - 400, '{360,360,360,360,0,0,0}', $4::timestamptz FROM unnest($2::text[]) m`,
    [seed.tenantId, partTime, today, seed.instant],
  );
  const memberIds = members.map((member) => member.id);
  await seed.sql.query(
    `INSERT INTO vacation_allowances (id, "tenantId", "tenantUserId", year, "allowanceDays", "updatedAt")
     SELECT uuidv7()::text, $1, m, y, 30, $4::timestamptz FROM unnest($2::text[]) m, (VALUES ($3::int - 1), ($3::int)) AS years(y)`,
    [seed.tenantId, memberIds, Number(today.slice(0, 4)), seed.instant],
  );
  await seed.sql.query(
    `INSERT INTO absences (id, "tenantId", "tenantUserId", "absenceTypeId", "startDate", "endDate", status, "reviewedAt", "updatedAt")
     SELECT uuidv7()::text, $1, m, t.id, $3::date + a.first, $3::date + a.last, a.status::"AbsenceStatus",
            CASE WHEN a.status = 'approved' THEN $4::timestamptz END, $4::timestamptz
       FROM unnest($2::text[]) m
      CROSS JOIN (VALUES ('Vacation', -120, -116, 'approved'), ('Sickness', -60, -60, 'approved'), ('Vacation', 30, 34, 'pending'))
            AS a(type, first, last, status)
       JOIN absence_types t ON t."tenantId" = $1 AND t.name = a.type`,
    [seed.tenantId, memberIds, today, seed.instant],
  );
}
