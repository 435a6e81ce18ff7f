/**
 * What the workers make of entry writes: each new violation of a member's
 * working day, announced once as the event `working_time.violation` (per
 * member, day and rule: a row of `working_time_violations` claims it), in the
 * outbox dispatcher's transaction. Only the dispatcher reaches it.
 */
import { systemActor } from '../../../auth/actor.js';
import { systemAccess } from '../../../auth/tenant-access.js';
import type { SqlClient, Tx } from '../../../db/client.js';
import type { OutboxEvent } from '../../../events/dispatcher.js';
import { recordEvents } from '../../../events/outbox.js';
import { localDate } from '../../../lib/time.js';
import { settingsOf } from '../../platform/tenant/tenant.settings.js';
import { violationsOnDays } from './working-time.days.js';

const actor = systemActor('working-time');
/** Writes that change a member's days; a deletion cannot add a violation. */
const changes = new Set(['entry.created', 'entry.updated']);

export function createWorkingTimeWork() {
  return {
    /** Outbox reaction: the violations a batch of entry writes caused that were not announced before. */
    async announce(tx: Tx, events: readonly OutboxEvent[]): Promise<void> {
      const written = events.filter(
        (event) =>
          changes.has(event.type) && event.tenantId !== null && typeof event.data.tenantUserId === 'string' && typeof event.data.startedAt === 'string',
      );
      if (written.length === 0) return;
      const tenants = await tx.tenant.findMany({ where: { id: { in: [...new Set(written.map((event) => event.tenantId as string))] } } });
      const sql: SqlClient = { query: (text, values) => tx.$queryRawUnsafe(text, ...(values ?? [])) };
      for (const tenant of tenants) {
        const settings = settingsOf(tenant);
        if (settings.workingTimeRules === 'none') continue;
        const access = systemAccess(tenant, actor);
        const daysByMember = new Map<string, Set<string>>();
        for (const event of written) {
          if (event.tenantId !== tenant.id) continue;
          const tenantUserId = event.data.tenantUserId as string;
          const days = daysByMember.get(tenantUserId) ?? new Set<string>();
          days.add(localDate(new Date(event.data.startedAt as string), settings.timezone));
          daysByMember.set(tenantUserId, days);
        }
        const found = await violationsOnDays(sql, tx, access, settings, daysByMember);
        if (found.length === 0) continue;
        const claimed = await tx.$queryRawUnsafe<{ tenantUserId: string; date: string; rule: string }[]>(
          `INSERT INTO working_time_violations (id, "tenantId", "tenantUserId", date, rule)
           SELECT uuidv7()::text, $1, v.member, v.day::date, v.rule FROM unnest($2::text[], $3::text[], $4::text[]) AS v(member, day, rule)
           ON CONFLICT DO NOTHING
           RETURNING "tenantUserId", to_char(date, 'YYYY-MM-DD') AS date, rule`,
          tenant.id,
          found.map((violation) => violation.tenantUserId),
          found.map((violation) => violation.date),
          found.map((violation) => violation.rule),
        );
        const isNew = new Set(claimed.map((row) => `${row.tenantUserId} ${row.date} ${row.rule}`));
        await recordEvents(
          tx,
          access,
          found
            .filter((violation) => isNew.has(`${violation.tenantUserId} ${violation.date} ${violation.rule}`))
            .map((violation) => ({ type: 'working_time.violation' as const, subjectId: violation.tenantUserId, data: violation })),
        );
      }
    },
  };
}

export type WorkingTimeWork = ReturnType<typeof createWorkingTimeWork>;
