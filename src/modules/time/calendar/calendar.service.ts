import { randomBytes } from 'node:crypto';
// `ics` is loaded by the first feed that is read (10 MB of RSS at start otherwise: docs/performance.md).
import type { EventAttributes } from 'ics';
import { z } from 'zod';
import { systemActor } from '../../../auth/actor.js';
import { memberAccess, type TenantAccess } from '../../../auth/tenant-access.js';
import type { Config } from '../../../config.js';
import type { Db } from '../../../db/client.js';
import { recordEvent } from '../../../events/outbox.js';
import type { Clock } from '../../../lib/clock.js';
import { sha256Hex } from '../../../lib/crypto.js';
import { args, fields } from '../../../lib/dto.js';
import { notFound, validationFailed } from '../../../lib/errors.js';
import { holidaysIn } from '../holiday/holiday.service.js';
import { settingsFor } from '../../platform/tenant/tenant.settings.js';
import { addDays, dayColumn, dayText, nextDay } from '../../../lib/day.js';

export const CalendarTokenArgs = args({ tenantId: fields.id('Tenant id') });

/** `/calendar/{token}.ics`: the token and its suffix, one path segment. */
export const CalendarFeedParameters = z.strictObject({
  token: z
    .string()
    .regex(/^cal_[A-Za-z0-9_-]{43}\.ics$/, 'must be a calendar token followed by .ics')
    .describe('The secret of the feed, followed by .ics (the URL createCalendarToken answered)'),
});

export interface CalendarTokenView {
  /** The feed's whole URL: shown once, when it is made. */
  url: string | null;
  prefix: string;
  createdAt: Date;
}

/** What a feed shows around today: a year back, two years ahead. */
const daysBack = 366;
const daysAhead = 2 * 366;

/** How fresh a token's `lastUsedAt` is kept: to the hour. */
export const lastUseGranularityMs = 60 * 60 * 1000;

const asDateArray = (date: string): [number, number, number] => date.split('-').map(Number) as [number, number, number];

/**
 * Calendar feeds: each member may have one secret URL (`/calendar/{token}.ics`,
 * public: the token is the credential; only its SHA-256 is stored; a new one
 * replaces the old, and it can be revoked) that serves their approved
 * absences and the holidays of their region as iCalendar (written by `ics`),
 * and to managers and admins their team's approved absences too.
 */
export function createCalendarService({ db, config, clock }: { db: Db; config: Config; clock: Clock }) {
  return {
    /** Makes the caller's feed URL (replacing any before it); answers it once. */
    async createToken(access: TenantAccess): Promise<CalendarTokenView> {
      access.assert('create', 'CalendarToken');
      const owner = access.tenantUserId;
      if (owner === null) throw validationFailed([{ path: '(caller)', message: 'has no calendar: an API key is no member' }]);
      const token = `cal_${randomBytes(32).toString('base64url')}`;
      return db.$transaction(async (tx) => {
        const values = { tokenHash: sha256Hex(token), prefix: token.slice(0, 8), lastUsedAt: null, createdAt: clock.now() };
        const row = await tx.calendarToken.upsert({ where: { tenantUserId: owner }, create: access.stamp({ tenantUserId: owner, ...values }), update: values });
        await recordEvent(tx, access, { type: 'calendar_token.created', subjectId: row.id, data: { id: row.id, tenantUserId: owner, prefix: row.prefix } });
        return { url: `${config.baseUrl}/calendar/${token}.ics`, prefix: row.prefix, createdAt: row.createdAt };
      });
    },

    /** Revokes the caller's feed URL (nothing to revoke is no error). */
    async removeToken(access: TenantAccess): Promise<boolean> {
      access.assert('delete', 'CalendarToken');
      if (access.tenantUserId === null) return false;
      return db.$transaction(async (tx) => {
        const row = await tx.calendarToken.findFirst({ where: { tenantUserId: access.tenantUserId as string, ...access.tenantWide('CalendarToken') } });
        if (!row) return false;
        await tx.calendarToken.delete({ where: { id: row.id } });
        await recordEvent(tx, access, {
          type: 'calendar_token.revoked',
          subjectId: row.id,
          data: { id: row.id, tenantUserId: row.tenantUserId, prefix: row.prefix },
        });
        return true;
      });
    },

    /** The iCalendar text of the feed `token` opens; 404 for an unknown or revoked token, or a member who left. */
    async feed(tokenFile: string): Promise<string> {
      const token = tokenFile.replace(/\.ics$/, '');
      const row = await db.calendarToken.findUnique({ where: { tokenHash: sha256Hex(token) }, include: { tenant: true, tenantUser: true } });
      if (!row || row.tenantUser.status !== 'active' || row.tenant.status !== 'active') throw notFound('Calendar');
      const member = row.tenantUser;
      // The feed reads as its member may: the token stands for them, so the matrix decides whose absences they see
      // (their own, or the team's for those who may read every absence).
      const access = memberAccess(row.tenant, systemActor('calendar feed'), member);
      const settings = await settingsFor(db, access);
      const now = clock.now();
      const today = clock.today(settings.timezone);
      const from = addDays(today, -daysBack);
      const to = addDays(today, daysAhead);
      const [absences, holidays] = await Promise.all([
        db.absence.findMany({
          where: {
            status: 'approved',
            startDate: { lte: dayColumn(to) },
            endDate: { gte: dayColumn(from) },
            ...access.scope('read', 'Absence'),
          },
          include: { absenceType: { select: { name: true } }, tenantUser: { select: { name: true, email: true } } },
          orderBy: [{ startDate: 'asc' }, { id: 'asc' }],
        }),
        holidaysIn(db, access, member.holidayRegion ?? settings.holidayRegion, from, to),
      ]);
      const host = new URL(config.baseUrl).host;
      const events: EventAttributes[] = [
        ...absences.map((absence): EventAttributes => {
          const own = absence.tenantUserId === member.id;
          const who = absence.tenantUser.name ?? absence.tenantUser.email;
          const half = absence.halfDay ? ` (${absence.halfDay === 'am' ? 'morning' : 'afternoon'})` : '';
          return {
            uid: `absence-${absence.id}@${host}`,
            title: own ? `${absence.absenceType.name}${half}` : `${who}: ${absence.absenceType.name}${half}`,
            start: asDateArray(dayText(absence.startDate)),
            end: asDateArray(nextDay(dayText(absence.endDate))),
            busyStatus: own ? 'OOF' : 'FREE',
            transp: own ? 'OPAQUE' : 'TRANSPARENT',
            categories: ['Absence'],
          };
        }),
        ...[...holidays.values()].map(
          (holiday): EventAttributes => ({
            uid: `holiday-${holiday.date}-${holiday.id ?? holiday.region ?? 'public'}@${host}`,
            title: holiday.fraction < 1 ? `${holiday.name} (half day)` : holiday.name,
            start: asDateArray(holiday.date),
            end: asDateArray(nextDay(holiday.date)),
            busyStatus: 'FREE',
            transp: 'TRANSPARENT',
            categories: ['Holiday'],
          }),
        ),
      ];
      const { createEvents } = await import('ics');
      const written = createEvents(events, { productId: '-//Tally//Time off//EN', method: 'PUBLISH', calName: `Time off: ${member.name ?? member.email}` });
      if (written.error || written.value === null) throw written.error ?? new Error('the calendar could not be written');
      // Calendar apps poll every few minutes: the last use is written at most once an hour, not a write on every poll.
      if (row.lastUsedAt === null || now.getTime() - row.lastUsedAt.getTime() >= lastUseGranularityMs) {
        await db.calendarToken.update({ where: { id: row.id }, data: { lastUsedAt: now } });
      }
      return written.value;
    },
  };
}

export type CalendarService = ReturnType<typeof createCalendarService>;
