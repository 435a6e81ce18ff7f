/**
 * What `dayFacts` needs of one member, read from the database: their
 * schedules, the holidays of their region, their absences with how each
 * type counts. Shared by the balance, the vacation account and the timesheet.
 */
import type { TenantAccess } from '../../../auth/tenant-access.js';
import type { Db, Tx } from '../../../db/client.js';
import type { AbsenceStatus } from '../../../generated/prisma/enums.js';
import { holidaysIn } from '../holiday/holiday.service.js';
import type { TenantSettings } from '../../platform/tenant/tenant.settings.js';
import { dayColumn, dayText } from '../../../lib/day.js';
import { weekOf } from '../../../lib/week.js';
import type { AbsenceSpan, DayInputs, HolidayOn } from './member-days.facts.js';

const optionalDay = (column: Date | null): string | null => (column ? dayText(column) : null);

export interface MemberDays extends DayInputs {
  absences: (AbsenceSpan & { status: AbsenceStatus; typeName: string })[];
}

/** A member's day inputs from `from` to `to`: absences of `statuses` only (only approved ones count; pending ones are planned). */
export async function memberDays(
  tx: Tx | Db,
  access: TenantAccess,
  member: { id: string; holidayRegion: string | null; employmentStart: Date | null; employmentEnd: Date | null },
  settings: TenantSettings,
  from: string,
  to: string,
  statuses: readonly AbsenceStatus[] = ['approved'],
): Promise<MemberDays> {
  const [schedules, absences, holidays] = await Promise.all([
    // Every schedule up to `to`: the one in effect on `from` may have started long before.
    tx.workSchedule.findMany({
      where: { tenantUserId: member.id, validFrom: { lte: dayColumn(to) }, ...access.tenantWide('WorkSchedule') },
      select: { validFrom: true, minutes: true },
    }),
    tx.absence.findMany({
      where: {
        tenantUserId: member.id,
        status: { in: [...statuses] },
        startDate: { lte: dayColumn(to) },
        endDate: { gte: dayColumn(from) },
        ...access.tenantWide('Absence'),
      },
      select: {
        id: true,
        startDate: true,
        endDate: true,
        halfDay: true,
        status: true,
        absenceType: { select: { name: true, kind: true, countsAsWork: true, deductsVacation: true } },
      },
    }),
    holidaysIn(tx, access, member.holidayRegion ?? settings.holidayRegion, from, to),
  ]);
  return {
    employment: { start: optionalDay(member.employmentStart), end: optionalDay(member.employmentEnd) },
    defaultWeek: settings.defaultWorkSchedule,
    schedules: schedules.map((schedule) => ({ validFrom: dayText(schedule.validFrom), week: weekOf(schedule.minutes) })),
    holidays: new Map<string, HolidayOn>([...holidays].map(([date, holiday]) => [date, { name: holiday.name, fraction: holiday.fraction }])),
    absences: absences.map((absence) => ({
      id: absence.id,
      startDate: dayText(absence.startDate),
      endDate: dayText(absence.endDate),
      halfDay: absence.halfDay,
      status: absence.status,
      typeName: absence.absenceType.name,
      countsAsWork: absence.absenceType.countsAsWork,
      deductsVacation: absence.absenceType.deductsVacation,
      unpaid: absence.absenceType.kind === 'unpaid',
    })),
  };
}
