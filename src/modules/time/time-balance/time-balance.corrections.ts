/**
 * Corrections of a member's time balance: overtime paid out or forfeited (or
 * minutes granted), each with its reason, who made it and when. Never changed
 * or deleted: they are the overtime account's audit trail, as vacation
 * corrections are the vacation account's. A correction counts on its `date`
 * (default: today in the tenant's zone) in every balance whose period holds it.
 */
import { z } from 'zod';
import { actorReference } from '../../../auth/actor.js';
import type { TenantAccess } from '../../../auth/tenant-access.js';
import type { Db, Tx } from '../../../db/client.js';
import { recordEvent, withDays } from '../../../events/outbox.js';
import { dayColumn, dayText } from '../../../lib/day.js';
import { args, dto, fields } from '../../../lib/dto.js';

/** At most ten years of full days either way: a bound against typos, far above any real account. */
const maxMinutes = 10 * 366 * 1440;

export const CorrectTimeBalanceDto = dto(
  'CorrectTimeBalanceDto',
  'A correction of a member’s time balance, with its reason (kept as the audit trail): overtime paid out or forfeited is negative.',
  {
    minutes: z
      .number()
      .int('must be whole minutes')
      .min(-maxMinutes)
      .max(maxMinutes)
      .refine((value) => value !== 0, 'must not be 0')
      .describe('Minutes added to the balance (negative: taken off, e.g. -600 for 10 hours paid out or forfeited)'),
    reason: z.string().trim().min(1).max(2000).describe('Why (paid out with the March payroll, forfeited under the contract, ...)'),
    date: fields.date('The day it counts on (default: today in the tenant’s time zone)').optional(),
  },
);

export const CorrectTimeBalanceArgs = args({
  tenantId: fields.id('Tenant id'),
  tenantUserId: fields.id('The member (tenantUserId)'),
  input: CorrectTimeBalanceDto,
});

export interface TimeBalanceCorrectionView {
  id: string;
  tenantUserId: string;
  date: string;
  minutes: number;
  reason: string;
  actorType: string;
  actorId: string | null;
  createdAt: Date;
}

const viewOf = (row: {
  id: string;
  tenantUserId: string;
  date: Date;
  minutes: number;
  reason: string;
  actorType: string;
  actorId: string | null;
  createdAt: Date;
}) => ({
  id: row.id,
  tenantUserId: row.tenantUserId,
  date: dayText(row.date),
  minutes: row.minutes,
  reason: row.reason,
  actorType: row.actorType,
  actorId: row.actorId,
  createdAt: row.createdAt,
});

/** A member's corrections from `from` to `to` (inclusive), oldest first. */
export async function correctionsIn(tx: Tx | Db, access: TenantAccess, tenantUserId: string, from: string, to: string): Promise<TimeBalanceCorrectionView[]> {
  const rows = await tx.timeBalanceCorrection.findMany({
    where: { tenantUserId, date: { gte: dayColumn(from), lte: dayColumn(to) }, ...access.tenantWide('TimeBalance') },
    orderBy: [{ date: 'asc' }, { createdAt: 'asc' }, { id: 'asc' }],
  });
  return rows.map(viewOf);
}

/** Records a correction by the caller on `date`, and `time_balance.corrected`. */
export async function recordCorrection(
  tx: Tx,
  access: TenantAccess,
  tenantUserId: string,
  input: { minutes: number; reason: string; date: string },
): Promise<TimeBalanceCorrectionView> {
  const actor = actorReference(access.actor);
  const row = await tx.timeBalanceCorrection.create({
    data: access.stamp({
      tenantUserId,
      date: dayColumn(input.date),
      minutes: input.minutes,
      reason: input.reason,
      actorType: actor.type,
      actorId: actor.id,
    }),
  });
  await recordEvent(tx, access, { type: 'time_balance.corrected', subjectId: row.id, data: withDays(row, ['date']) });
  return viewOf(row);
}
