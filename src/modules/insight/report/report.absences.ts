/**
 * Absence reports (groupBy or subGroupBy `absenceType`): the approved
 * absences of a period by type, in days and minutes, not entries. Reports
 * read entries in SQL; absences are worth what the member's schedule expected
 * on their days, after holidays, which only `dayFacts` knows. So: the
 * absences the caller may read (the Absence scope: members their own), the
 * schedules of all their members in one statement, the tenant's holidays once
 * (each region's public ones in memory), and `dayFacts` per member in memory.
 * Five statements (Prisma reads the absences' types and members in one each),
 * however many members.
 *
 * An absence's minutes are the part of each day it covers (whatever its type
 * credits: an unpaid day is a day off too); its days count 1 a day with time
 * expected, 0.5 for a half day or a half-day holiday. Days with nothing
 * expected (weekends, holidays, days outside employment) count nothing and
 * make no group (docs/decisions.md).
 */
import type { TenantAccess } from '../../../auth/tenant-access.js';
import type { Db } from '../../../db/client.js';
import { dayColumn, dayText } from '../../../lib/day.js';
import { weekOf as weekMinutesOf } from '../../../lib/week.js';
import { holidaysByRegion } from '../../time/holiday/holiday.service.js';
import { type AbsenceSpan, dayFacts, type HolidayOn, type ScheduleFrom } from '../../time/member-days/member-days.facts.js';
import type { ReportDimension, ReportGroup, ReportTotals } from './report.contract.js';
import { labelOfBucket, weekOf } from './report.periods.js';
import type { ReportRange } from './report.sql.js';

/** Totals of absences: days and minutes, nothing of entries or money. */
export const absenceTotals = (tenantId: string, absenceDays = 0, absenceMinutes = 0): ReportTotals => ({
  tenantId,
  currency: null,
  entries: 0,
  durationMinutes: 0,
  billableMinutes: 0,
  billableAmount: null,
  costAmount: null,
  absenceDays,
  absenceMinutes,
});

interface Counted {
  key: string;
  label: string;
  days: number;
  minutes: number;
  subGroups?: Map<string, Counted>;
}

/** What a day of an absence is grouped under, by dimension. */
interface Part {
  date: string;
  type: { id: string; name: string };
  member: { id: string; name: string };
}

function keyOf(dimension: ReportDimension, part: Part, weekStart: ReportRange['settings']['weekStart']): { key: string; label: string } {
  switch (dimension) {
    case 'absenceType':
      return { key: part.type.id, label: part.type.name };
    case 'user':
      return { key: part.member.id, label: part.member.name };
    case 'week': {
      const key = weekOf(part.date, weekStart);
      return { key, label: labelOfBucket('week', key) };
    }
    case 'month': {
      const key = part.date.slice(0, 7);
      return { key, label: labelOfBucket('month', key) };
    }
    default:
      // The contract lets only absenceType, user and the time dimensions into an absence report; day is the rest.
      return { key: part.date, label: labelOfBucket('day', part.date) };
  }
}

function count(into: Map<string, Counted>, { key, label }: { key: string; label: string }, days: number, minutes: number): Counted {
  let counted = into.get(key);
  if (!counted) {
    counted = { key, label, days: 0, minutes: 0 };
    into.set(key, counted);
  }
  counted.days += days;
  counted.minutes += minutes;
  return counted;
}

/** The groups (and sub-groups) of an absence report, unordered (the service orders them as it does entry groups), and its totals. */
export async function absenceGroups(
  db: Db,
  access: TenantAccess,
  range: ReportRange,
  dimensions: readonly ReportDimension[],
  tenantUserId: string | undefined,
): Promise<{ totals: ReportTotals; groups: ReportGroup[] }> {
  const { from, to, settings } = range;
  const [absences, holidaysOf] = await Promise.all([
    db.absence.findMany({
      where: {
        status: 'approved',
        startDate: { lte: dayColumn(to) },
        endDate: { gte: dayColumn(from) },
        ...(tenantUserId ? { tenantUserId } : {}),
        ...access.scope('read', 'Absence'),
      },
      select: {
        id: true,
        tenantUserId: true,
        startDate: true,
        endDate: true,
        halfDay: true,
        absenceType: { select: { id: true, name: true, kind: true, countsAsWork: true, deductsVacation: true } },
        tenantUser: { select: { name: true, email: true, holidayRegion: true, employmentStart: true, employmentEnd: true } },
      },
    }),
    holidaysByRegion(db, access, from, to),
  ]);
  const memberIds = [...new Set(absences.map((absence) => absence.tenantUserId))];
  const schedules =
    memberIds.length === 0
      ? []
      : await db.workSchedule.findMany({
          where: { tenantUserId: { in: memberIds }, validFrom: { lte: dayColumn(to) }, ...access.tenantWide('WorkSchedule') },
          select: { tenantUserId: true, validFrom: true, minutes: true },
        });
  const schedulesOf = new Map<string, ScheduleFrom[]>();
  for (const schedule of schedules) {
    const list = schedulesOf.get(schedule.tenantUserId) ?? [];
    list.push({ validFrom: dayText(schedule.validFrom), week: weekMinutesOf(schedule.minutes) });
    schedulesOf.set(schedule.tenantUserId, list);
  }
  const byMember = new Map<string, typeof absences>();
  for (const absence of absences) byMember.set(absence.tenantUserId, [...(byMember.get(absence.tenantUserId) ?? []), absence]);

  const groups = new Map<string, Counted>();
  let totalDays = 0;
  let totalMinutes = 0;
  for (const [memberId, own] of byMember) {
    const member = (own[0] as (typeof own)[number]).tenantUser;
    const holidays = holidaysOf(member.holidayRegion ?? settings.holidayRegion);
    const spans = own.map(
      (absence): AbsenceSpan => ({
        id: absence.id,
        startDate: dayText(absence.startDate),
        endDate: dayText(absence.endDate),
        halfDay: absence.halfDay,
        countsAsWork: absence.absenceType.countsAsWork,
        deductsVacation: absence.absenceType.deductsVacation,
        unpaid: absence.absenceType.kind === 'unpaid',
      }),
    );
    const typeOf = new Map(own.map((absence) => [absence.id, absence.absenceType]));
    const days = dayFacts(from, to, {
      defaultWeek: settings.defaultWorkSchedule,
      schedules: schedulesOf.get(memberId) ?? [],
      holidays: new Map<string, HolidayOn>([...holidays].map(([date, holiday]) => [date, { name: holiday.name, fraction: holiday.fraction }])),
      absences: spans,
      employment: {
        start: member.employmentStart ? dayText(member.employmentStart) : null,
        end: member.employmentEnd ? dayText(member.employmentEnd) : null,
      },
    });
    for (const day of days) {
      for (const { id, days: partDays, minutes } of day.absenceParts) {
        if (partDays === 0 && minutes === 0) continue;
        const type = typeOf.get(id) as { id: string; name: string };
        const part: Part = { date: day.date, type, member: { id: memberId, name: member.name ?? member.email } };
        totalDays += partDays;
        totalMinutes += minutes;
        const group = count(groups, keyOf(dimensions[0] as ReportDimension, part, settings.weekStart), partDays, minutes);
        if (dimensions[1]) {
          group.subGroups ??= new Map();
          count(group.subGroups, keyOf(dimensions[1], part, settings.weekStart), partDays, minutes);
        }
      }
    }
  }
  const asGroup = (counted: Counted): ReportGroup => ({
    key: counted.key,
    label: counted.label,
    totals: absenceTotals(access.tenantId, counted.days, counted.minutes),
    totalsByCurrency: [],
    ...(counted.subGroups ? { subGroups: [...counted.subGroups.values()].map(asGroup) } : {}),
  });
  return { totals: absenceTotals(access.tenantId, totalDays, totalMinutes), groups: [...groups.values()].map(asGroup) };
}
