/**
 * The tenant's `balanceCapMinutes`: a member's overtime account (the balance
 * from the first day of employment, else the membership's, up to today or the
 * last day of employment) above it notifies the member and the admins once
 * per crossing. The check runs in the outbox dispatcher, on the events that
 * change an account (entries, timers, absences, schedules, corrections, a
 * member's employment dates): not on reads, and not in the entry write itself
 * (the tracking domain does not know the time domain). Whether an account was
 * above the cap is stored (`time_balance_caps`), so the crossing up notifies
 * (event `time_balance.cap_exceeded`), staying above does not, and going back
 * under resets it. docs/decisions.md, "Overtime cap".
 */
import { systemActor } from '../../../auth/actor.js';
import { systemAccess, type TenantAccess } from '../../../auth/tenant-access.js';
import type { Db, Sql, Tx } from '../../../db/client.js';
import type { OutboxEvent } from '../../../events/dispatcher.js';
import { recordEvent } from '../../../events/outbox.js';
import type { TenantUser } from '../../../generated/prisma/client.js';
import type { Clock } from '../../../lib/clock.js';
import { dayText } from '../../../lib/day.js';
import { localDate } from '../../../lib/time.js';
import { settingsOf, type TenantSettings } from '../../platform/tenant/tenant.settings.js';
import { dayFacts } from '../member-days/member-days.facts.js';
import { memberDays } from '../member-days/member-days.inputs.js';
import { balanceOf, workedByDay } from '../member-days/member-days.worked.js';
import { lackingBreaks } from '../working-time/working-time.service.js';
import { correctionsIn } from './time-balance.corrections.js';

/** Whether an event may change its member's account, and whose it is. */
function accountOf(event: OutboxEvent): string | null {
  if (event.type === 'user.updated') return event.subjectId;
  if (!/^(entry|timer|absence|work_schedule)\.|^time_balance\.corrected$/.test(event.type)) return null;
  return typeof event.data.tenantUserId === 'string' ? event.data.tenantUserId : null;
}

/** The overtime account of a member: worked + credited - expected + corrections, from the start of employment up to `today`. */
export async function accountBalance(
  tx: Tx | Db,
  sql: Sql,
  access: TenantAccess,
  member: TenantUser,
  settings: TenantSettings,
  today: string,
): Promise<{ from: string; to: string; balanceMinutes: number }> {
  const from = member.employmentStart ? dayText(member.employmentStart) : localDate(member.createdAt, settings.timezone);
  const end = member.employmentEnd ? dayText(member.employmentEnd) : today;
  const to = end < today ? end : today;
  if (to < from) return { from, to, balanceMinutes: 0 };
  const [inputs, worked, corrections] = await Promise.all([
    memberDays(tx, access, member, settings, from, to),
    workedByDay(sql, access, member.id, from, to, settings.timezone),
    correctionsIn(tx, access, member.id, from, to),
  ]);
  // After the others: in the outbox's transaction they would share its connection.
  const lacking = await lackingBreaks(sql, tx, access, settings, member, from, to);
  let balanceMinutes = corrections.reduce((sum, correction) => sum + correction.minutes, 0);
  for (const day of dayFacts(from, to, inputs)) balanceMinutes += balanceOf((worked.get(day.date)?.minutes ?? 0) - (lacking.get(day.date) ?? 0), day);
  return { from, to, balanceMinutes };
}

export function createTimeBalanceWork({ sql, clock }: { sql: Sql; clock: Clock }) {
  return {
    /** Outbox reaction: checks the accounts a batch of events touched against their tenant's cap. */
    async checkCaps(tx: Tx, events: readonly OutboxEvent[]): Promise<void> {
      const touched = new Set<string>();
      for (const event of events) {
        const id = event.tenantId ? accountOf(event) : null;
        if (id) touched.add(id);
      }
      if (touched.size === 0) return;
      // Across the batch's tenants, by the members' ids: no access exists yet (test/architecture/tenant-scope.test.ts).
      const members = await tx.tenantUser.findMany({ where: { id: { in: [...touched] } }, include: { tenant: true } });
      for (const { tenant, ...member } of members) {
        const settings = settingsOf(tenant);
        if (settings.balanceCapMinutes === null) continue;
        const access = systemAccess(tenant, systemActor('time-balance-cap'));
        // One check of a member at a time (two batches at once would both see the crossing): their row is the lock.
        await tx.$queryRaw`SELECT 1 FROM tenant_users WHERE id = ${member.id} FOR UPDATE`;
        const today = clock.today(settings.timezone);
        const account = await accountBalance(tx, sql, access, member, settings, today);
        const overCap = account.balanceMinutes > settings.balanceCapMinutes;
        const before = await tx.timeBalanceCap.findFirst({ where: { tenantUserId: member.id, ...access.tenantWide('TimeBalance') } });
        const state = { overCap, balanceMinutes: account.balanceMinutes, checkedAt: clock.now() };
        await tx.timeBalanceCap.upsert({ where: { tenantUserId: member.id }, create: access.stamp({ tenantUserId: member.id, ...state }), update: state });
        if (overCap && !before?.overCap) {
          await recordEvent(tx, access, {
            type: 'time_balance.cap_exceeded',
            subjectId: member.id,
            data: {
              tenantUserId: member.id,
              balanceMinutes: account.balanceMinutes,
              capMinutes: settings.balanceCapMinutes,
              since: account.from,
              asOf: account.to,
            },
          });
        }
      }
    },
  };
}

export type TimeBalanceWork = ReturnType<typeof createTimeBalanceWork>;
