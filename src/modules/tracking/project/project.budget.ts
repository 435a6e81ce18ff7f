/**
 * Budgets (CONTRACT.md section 8): what a project has spent in its current
 * period, and the `project.budget_reached` event when an entry change makes
 * spent reach 80% or 100% of a budget.
 *
 * Spent counts every finished entry of the project whatever its status
 * (running timers are not spent yet): minutes against `budgetHours`, billable
 * amounts against `budgetAmount`, with the billed amounts (net plus markup)
 * of the project's expenses (issue 40: every one with an amount, whatever
 * its status, as entries), over the project's whole life (`total`) or
 * the calendar month in the tenant's time zone (`monthly`). Amounts are those
 * in the project's currency (its client's, else the tenant's): entries keep
 * the currency they were made in, and amounts of two currencies are never
 * added up (an entry from before a change of currency spends its minutes only).
 *
 * Once per threshold, metric and period, even under concurrent writers: the
 * check takes a per-project transaction lock, so a second writer sums after
 * the first has committed, and `budget_alerts` keeps which thresholds a
 * period has reached.
 */
import type { TenantAccess } from '../../../auth/tenant-access.js';
import type { Db, Tx } from '../../../db/client.js';
import { fragment } from '../../../db/parameters.js';
import { recordEvent } from '../../../events/outbox.js';
import { Prisma } from '../../../generated/prisma/client.js';
import type { BudgetPeriod } from '../../../generated/prisma/enums.js';
import { currencyOfSettings, moneyText } from '../../../lib/money.js';
import { localDate, startOfDay } from '../../../lib/time.js';

export const budgetThresholds = [80, 100] as const;

/** What a project has spent in a period. */
export interface Spent {
  minutes: number;
  /** The sum of billable amounts. */
  amount: Prisma.Decimal;
}

/** The period an instant falls in: `total`, or its month in the time zone (`2026-03`). */
export function periodOf(budgetPeriod: BudgetPeriod, instant: Date, timeZone: string): string {
  return budgetPeriod === 'total' ? 'total' : localDate(instant, timeZone).slice(0, 7);
}

/** Where a month (`2026-03`) starts and ends in the time zone, and its first day and the next month's. */
function monthBounds(month: string, timeZone: string): { from: Date; to: Date; first: string; following: string } {
  const first = `${month}-01`;
  const [year, monthNumber] = month.split('-').map(Number) as [number, number];
  const following = monthNumber === 12 ? `${year + 1}-01-01` : `${year}-${String(monthNumber + 1).padStart(2, '0')}-01`;
  return { from: startOfDay(first, timeZone), to: startOfDay(following, timeZone), first, following };
}

interface SpentRow {
  projectId: string;
  minutes: bigint | number | null;
  amount: Prisma.Decimal | string | null;
}

/**
 * What each project has spent in its period containing `at` (the current
 * one, when `at` is the clock's now): one grouped statement for all of them, on the entries'
 * (tenantId, projectId, startedAt) index. Every entry of the tenant counts,
 * whoever may read it: a member sees what the project has spent, not what
 * they have.
 */
export async function spentOf(
  db: Db | Tx,
  access: TenantAccess,
  timeZone: string,
  projects: readonly { id: string; budgetPeriod: BudgetPeriod }[],
  at: Date,
): Promise<Map<string, Spent>> {
  const spent = new Map<string, Spent>(projects.map((project) => [project.id, { minutes: 0, amount: new Prisma.Decimal(0) }]));
  if (projects.length === 0) return spent;
  const month = monthBounds(periodOf('monthly', at, timeZone), timeZone);
  const totals = projects.filter((project) => project.budgetPeriod === 'total').map((project) => project.id);
  const monthly = projects.filter((project) => project.budgetPeriod === 'monthly').map((project) => project.id);
  const tenantCurrency = currencyOfSettings(access.tenant.settings);
  const tenant = fragment((bind) => access.sqlTenantWide('Entry', 'e', bind));
  // Expenses (billing's table) spend their billed amount (net plus markup) on the day they were spent, in the project's currency.
  const rows = await db.$queryRaw<SpentRow[]>`
    SELECT s."projectId", sum(s.minutes) AS minutes, sum(s.amount) AS amount FROM (
      SELECT e."projectId", sum(e."durationMinutes") AS minutes,
             coalesce(sum(e."billableAmount") FILTER (WHERE coalesce(e.currency, c.currency, ${tenantCurrency}) = coalesce(c.currency, ${tenantCurrency})), 0) AS amount
        FROM entries e
        JOIN projects p ON p.id = e."projectId"
        LEFT JOIN clients c ON c.id = p."clientId"
       WHERE ${tenant}
         AND e."endedAt" IS NOT NULL
         AND (e."projectId" = ANY(${totals}::text[])
              OR (e."projectId" = ANY(${monthly}::text[]) AND e."startedAt" >= ${month.from} AND e."startedAt" < ${month.to}))
       GROUP BY e."projectId"
      UNION ALL
      SELECT x."projectId", 0 AS minutes, coalesce(sum(x."billedAmount") FILTER (WHERE x.currency = coalesce(c.currency, ${tenantCurrency})), 0) AS amount
        FROM expenses x
        JOIN projects p ON p.id = x."projectId"
        LEFT JOIN clients c ON c.id = p."clientId"
       WHERE ${fragment((bind) => access.sqlTenantWide('Expense', 'x', bind))}
         AND x."billedAmount" IS NOT NULL
         AND (x."projectId" = ANY(${totals}::text[])
              OR (x."projectId" = ANY(${monthly}::text[]) AND x.date >= ${month.first}::date AND x.date < ${month.following}::date))
       GROUP BY x."projectId") s
     GROUP BY s."projectId"`;
  for (const row of rows) {
    spent.set(row.projectId, { minutes: Number(row.minutes ?? 0), amount: new Prisma.Decimal(row.amount ?? 0) });
  }
  return spent;
}

/**
 * After an entry change: for each project touched, in the period of the
 * instant the entry started, records `project.budget_reached` for every
 * threshold spent has reached and that period has not reached before. Run
 * inside the writing transaction, after the write.
 */
export async function recordBudgetCrossings(
  tx: Tx,
  access: TenantAccess,
  timeZone: string,
  touched: readonly { projectId: string | null; startedAt: Date }[],
): Promise<void> {
  const seen = new Set<string>();
  for (const { projectId, startedAt } of touched) {
    if (projectId === null || seen.has(`${projectId} ${startedAt.getTime()}`)) continue;
    seen.add(`${projectId} ${startedAt.getTime()}`);
    const project = await tx.project.findFirst({
      where: { id: projectId, OR: [{ budgetHours: { not: null } }, { budgetAmount: { not: null } }], ...access.tenantWide('Project') },
      select: { id: true, name: true, budgetHours: true, budgetAmount: true, budgetPeriod: true, client: { select: { currency: true } } },
    });
    if (!project) continue;
    // Writers of one project's entries take turns here: the second sums what the first committed.
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext('budget:' || ${project.id}))`;
    const period = periodOf(project.budgetPeriod, startedAt, timeZone);
    const currency = project.client?.currency ?? currencyOfSettings(access.tenant.settings);
    const spent = (await spentOf(tx, access, timeZone, [project], startedAt)).get(project.id) ?? { minutes: 0, amount: new Prisma.Decimal(0) };
    const metrics = [
      ...(project.budgetHours === null ? [] : [{ metric: 'hours', spent: new Prisma.Decimal(spent.minutes).div(60), budget: project.budgetHours }]),
      ...(project.budgetAmount === null ? [] : [{ metric: 'amount', spent: spent.amount, budget: project.budgetAmount }]),
    ];
    for (const { metric, spent: used, budget } of metrics) {
      if (budget.lte(0)) continue;
      for (const threshold of budgetThresholds) {
        if (used.lt(budget.mul(threshold).div(100))) continue;
        const inserted = await tx.$executeRaw`
          INSERT INTO budget_alerts ("projectId", metric, threshold, period) VALUES (${project.id}, ${metric}, ${threshold}, ${period})
          ON CONFLICT DO NOTHING`;
        if (inserted === 0) continue;
        await recordEvent(tx, access, {
          type: 'project.budget_reached',
          subjectId: project.id,
          data: {
            projectId: project.id,
            projectName: project.name,
            threshold,
            metric,
            // Hours with two decimals; money at its currency's scale, in that currency.
            spent: metric === 'hours' ? used.toDecimalPlaces(2).toFixed(2) : moneyText(used, currency),
            budget: metric === 'hours' ? budget.toFixed(2) : moneyText(budget, currency),
            ...(metric === 'amount' ? { currency } : {}),
            period,
          },
        });
      }
    }
  }
}
