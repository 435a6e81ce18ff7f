/**
 * How an invoice gets its lines: the tax of a line (client, profile,
 * small business), the entries a draft claims, and how claimed time becomes
 * one line per group and hourly rate. The arithmetic is client-invoice.money.ts's.
 */
import type { TenantAccess } from '../../../auth/tenant-access.js';
import type { Tx } from '../../../db/client.js';
import { Prisma } from '../../../generated/prisma/client.js';
import type { InvoiceGroupBy, InvoiceLineSource, InvoiceLineUnit, TaxCategory } from '../../../generated/prisma/enums.js';
import { validationFailed } from '../../../lib/errors.js';
import { localDate, startOfDay } from '../../../lib/time.js';
import type { BillingProfileView } from '../billing-profile/billing-profile.service.js';
import { clientInvoiceConflicts, type ManualLine } from './client-invoice.dto.js';
import { baseQuantityOf, defaultExemptionReasons, exemptCategories, lineNet, smallBusinessReason } from './client-invoice.money.js';
import { nextDay } from '../../../lib/day.js';

const Decimal = Prisma.Decimal;
type Decimal = Prisma.Decimal;

/** A line as it is written to client_invoice_lines (without its invoice). */
export interface LineValues {
  position: number;
  description: string;
  quantity: Decimal;
  unit: InvoiceLineUnit;
  /** BT-149: 60 for minutes at an hourly rate, else 1. */
  baseQuantity: number;
  unitPrice: Decimal;
  /** round(quantity x unitPrice / baseQuantity, 2), always. */
  netAmount: Decimal;
  taxCategory: TaxCategory;
  taxRate: Decimal;
  taxExemptionReason: string | null;
  projectId: string | null;
  taskId: string | null;
  tenantUserId: string | null;
  entryCount: number;
  source: InvoiceLineSource;
}

export interface LineTax {
  taxCategory: TaxCategory;
  taxRate: Decimal;
  taxExemptionReason: string | null;
}

/** The buyer's tax treatment, as a line needs it. */
export interface ClientTax {
  taxCategory: TaxCategory | null;
  taxExemptionReason: string | null;
}

/**
 * A line's tax: a small business charges none (E with its note); else the
 * line's own category, the client's, or the profile's default; S at the
 * line's rate or the profile's (which must then be set), the others at 0,
 * with the reason given, the client's or profile's for its category, or the
 * category's default (E has none: it must be given). `path` names the line.
 */
export function lineTax(
  profile: BillingProfileView,
  client: ClientTax,
  given: Partial<Pick<ManualLine, 'taxCategory' | 'taxRate' | 'taxExemptionReason'>>,
  path: string,
): LineTax {
  if (profile.smallBusiness) return { taxCategory: 'E', taxRate: new Decimal(0), taxExemptionReason: smallBusinessReason };
  const category = given.taxCategory ?? client.taxCategory ?? profile.defaultTaxCategory;
  if (category === 'S') {
    const rate = given.taxRate === undefined ? profile.defaultTaxRate : new Decimal(given.taxRate);
    if (rate === null) {
      throw clientInvoiceConflicts.refuse('BILLING_PROFILE_INCOMPLETE', 'The billing profile has no defaultTaxRate for category S lines', {
        errors: [{ path: 'defaultTaxRate', message: 'is required for category S lines' }],
      });
    }
    if (rate.lte(0)) throw validationFailed([{ path: `${path}.taxRate`, message: 'must be above 0 for category S (use Z for zero-rated)' }]);
    return { taxCategory: 'S', taxRate: rate, taxExemptionReason: null };
  }
  if (given.taxRate !== undefined && !new Decimal(given.taxRate).isZero()) {
    throw validationFailed([{ path: `${path}.taxRate`, message: `must be 0 for category ${category}` }]);
  }
  let reason: string | null = null;
  if (exemptCategories.has(category)) {
    reason =
      given.taxExemptionReason ??
      (category === client.taxCategory ? client.taxExemptionReason : null) ??
      (category === profile.defaultTaxCategory ? profile.defaultTaxExemptionReason : null) ??
      defaultExemptionReasons[category] ??
      null;
    if (reason === null) throw validationFailed([{ path: `${path}.taxExemptionReason`, message: `is required for tax category ${category}` }]);
  }
  return { taxCategory: category, taxRate: new Decimal(0), taxExemptionReason: reason };
}

/** The values of manual lines, numbered on from `firstPosition`, in a currency of `digits` minor units. */
export function manualLines(lines: readonly ManualLine[], tax: (line: ManualLine, path: string) => LineTax, firstPosition: number, digits = 2): LineValues[] {
  return lines.map((line, index) => {
    const quantity = new Decimal(line.quantity);
    const unitPrice = new Decimal(line.unitPrice);
    const baseQuantity = baseQuantityOf(line.unit);
    // A MIN line is priced per hour and read as h:mm: whole minutes only.
    if (line.unit === 'MIN' && !quantity.isInteger())
      throw validationFailed([{ path: `lines.${index}.quantity`, message: 'must be whole minutes for unit MIN' }]);
    return {
      position: firstPosition + index,
      description: line.description,
      quantity,
      unit: line.unit,
      baseQuantity,
      unitPrice,
      netAmount: lineNet(quantity, unitPrice, baseQuantity, digits),
      ...tax(line, `lines.${index}`),
      projectId: null,
      taskId: null,
      tenantUserId: null,
      entryCount: 0,
      source: 'manual',
    };
  });
}

/** An entry as the claim returns it. */
export interface ClaimedEntry {
  id: string;
  projectId: string;
  taskId: string | null;
  tenantUserId: string;
  startedAt: Date;
  durationMinutes: number;
  hourlyRate: Decimal;
  billableAmount: Decimal;
  description: string | null;
}

export interface ClaimScope {
  invoiceId: string;
  clientId: string;
  currency: string;
  periodFrom: string;
  periodTo: string;
  timeZone: string;
  projectIds?: readonly string[] | undefined;
}

/**
 * Takes the client's entries for the invoice in one statement: approved,
 * billable, finished, priced, started in the period (tenant's zone), in the
 * invoice's currency, and on no live invoice. Two drafts made at once never
 * share an entry: the second UPDATE waits for the rows the first locked, then
 * finds `clientInvoiceId` set and skips them (PostgreSQL re-checks the WHERE
 * of a row it waited for).
 */
export async function claimEntries(tx: Tx, access: TenantAccess, scope: ClaimScope): Promise<ClaimedEntry[]> {
  const values: unknown[] = [
    scope.invoiceId,
    scope.clientId,
    startOfDay(scope.periodFrom, scope.timeZone),
    startOfDay(nextDay(scope.periodTo), scope.timeZone),
    scope.currency,
  ];
  const bind = (value: unknown) => `$${values.push(value)}`;
  const tenant = access.sqlTenantWide('Entry', 'c', bind);
  const projects = scope.projectIds ? `AND c."projectId" = ANY(${bind(scope.projectIds)}::text[])` : '';
  // The rows are locked in id order first: two claims (or a claim and an entry's edit) wait for each other, never in a cycle.
  return tx.$queryRawUnsafe<ClaimedEntry[]>(
    `UPDATE entries e SET "clientInvoiceId" = $1
      WHERE e.id IN (
        SELECT c.id FROM entries c
         WHERE ${tenant}
           AND c."projectId" IN (SELECT p.id FROM projects p WHERE p."clientId" = $2)
           ${projects}
           AND c.status = 'approved' AND c.billable AND c."endedAt" IS NOT NULL
           AND c."billableAmount" IS NOT NULL AND c."hourlyRate" IS NOT NULL AND c."durationMinutes" IS NOT NULL
           AND c."startedAt" >= $3 AND c."startedAt" < $4 AND c.currency = $5
           AND c."clientInvoiceId" IS NULL
         ORDER BY c.id
         FOR UPDATE)
      RETURNING e.id, e."projectId", e."taskId", e."tenantUserId", e."startedAt", e."durationMinutes", e."hourlyRate", e."billableAmount", e.description`,
    ...values,
  );
}

/** The names lines are described with. */
export interface LineNames {
  projects: ReadonlyMap<string, string>;
  tasks: ReadonlyMap<string, string>;
  members: ReadonlyMap<string, string>;
}

/** The group an entry's time is billed in (before its rate), and what the line says. */
function groupOf(entry: ClaimedEntry, groupBy: InvoiceGroupBy, names: LineNames, timeZone: string): { key: string; description: string } {
  const project = names.projects.get(entry.projectId) ?? 'Project';
  const date = localDate(entry.startedAt, timeZone);
  switch (groupBy) {
    case 'entry':
      return { key: entry.id, description: `${date} ${project}${entry.description ? `: ${entry.description}` : ''}` };
    case 'task': {
      const task = entry.taskId ? names.tasks.get(entry.taskId) : undefined;
      return { key: `${entry.projectId}|${entry.taskId ?? ''}`, description: task ? `${project}: ${task}` : project };
    }
    case 'user':
      return { key: entry.tenantUserId, description: names.members.get(entry.tenantUserId) ?? 'Team member' };
    case 'day':
      return { key: date, description: date };
    default:
      return { key: entry.projectId, description: project };
  }
}

/**
 * One line per group and hourly rate, in the order of the groups' first
 * entries: quantity the minutes, unit price the rate per hour (base quantity
 * 60), net round(minutes x rate / 60, 2), which every reader recomputes. Each
 * entry's billable amount was rounded to the cent on its own, so their sum
 * may differ from the lines by cents (or more, for amounts an import
 * recorded): one rounding line after them carries the difference (the lines
 * from time share one tax), so that the invoice equals the entries to the
 * cent and every line stays exact. A group billed at more than one rate names
 * its rate.
 */
export function timeLines(
  entries: readonly ClaimedEntry[],
  groupBy: InvoiceGroupBy,
  names: LineNames,
  timeZone: string,
  tax: LineTax,
  digits = 2,
): LineValues[] {
  const sorted = [...entries].sort((a, b) => a.startedAt.getTime() - b.startedAt.getTime() || a.id.localeCompare(b.id));
  const lines = new Map<
    string,
    {
      group: string;
      description: string;
      rate: Decimal;
      minutes: number;
      entriesNet: Decimal;
      count: number;
      first: ClaimedEntry;
      same: Record<'projectId' | 'taskId' | 'tenantUserId', boolean>;
    }
  >();
  const ratesOfGroup = new Map<string, Set<string>>();
  for (const entry of sorted) {
    const { key, description } = groupOf(entry, groupBy, names, timeZone);
    const rate = new Decimal(entry.hourlyRate);
    const lineKey = `${key}|${rate.toFixed(2)}`;
    const line = lines.get(lineKey);
    if (line) {
      line.minutes += entry.durationMinutes;
      line.entriesNet = line.entriesNet.add(entry.billableAmount);
      line.count += 1;
      line.same.projectId &&= line.first.projectId === entry.projectId;
      line.same.taskId &&= line.first.taskId === entry.taskId;
      line.same.tenantUserId &&= line.first.tenantUserId === entry.tenantUserId;
    } else {
      lines.set(lineKey, {
        group: key,
        description,
        rate,
        minutes: entry.durationMinutes,
        entriesNet: new Decimal(entry.billableAmount),
        count: 1,
        first: entry,
        same: { projectId: true, taskId: true, tenantUserId: true },
      });
    }
    const rates = ratesOfGroup.get(key) ?? new Set<string>();
    rates.add(rate.toFixed(2));
    ratesOfGroup.set(key, rates);
  }
  const values: LineValues[] = [];
  let difference = new Decimal(0);
  for (const line of lines.values()) {
    const description = (ratesOfGroup.get(line.group)?.size ?? 1) > 1 ? `${line.description} (${line.rate.toFixed(2)}/h)` : line.description;
    const baseQuantity = baseQuantityOf('MIN');
    const quantity = new Decimal(line.minutes);
    const netAmount = lineNet(quantity, line.rate, baseQuantity, digits);
    const ids = {
      projectId: line.same.projectId ? line.first.projectId : null,
      taskId: line.same.taskId ? line.first.taskId : null,
      tenantUserId: line.same.tenantUserId ? line.first.tenantUserId : null,
    };
    values.push({
      position: values.length + 1,
      description,
      quantity,
      unit: 'MIN',
      baseQuantity,
      unitPrice: line.rate,
      netAmount,
      ...tax,
      ...ids,
      entryCount: line.count,
      source: 'time',
    });
    difference = difference.add(line.entriesNet.sub(netAmount));
  }
  if (!difference.isZero()) values.push(roundingLine(values.length + 1, entries.length, difference, tax));
  return values;
}

/**
 * The cents the entries differ by from the lines of their time, as a line of its own: one unit at the difference,
 * or minus one unit when the entries come to less (a price is never negative: EN 16931 BR-27).
 */
function roundingLine(position: number, count: number, difference: Decimal, tax: LineTax): LineValues {
  return {
    position,
    description: `Rounding to the ${count === 1 ? 'entry’s own amount' : `${count} entries’ own amounts`}, each rounded to the cent`,
    quantity: new Decimal(difference.isNegative() ? -1 : 1),
    unit: 'C62',
    baseQuantity: 1,
    unitPrice: difference.abs(),
    netAmount: difference,
    ...tax,
    projectId: null,
    taskId: null,
    tenantUserId: null,
    entryCount: 0,
    source: 'rounding',
  };
}

/** The names of the projects, tasks and members of `entries`, in three reads. */
export async function namesOf(tx: Tx, access: TenantAccess, entries: readonly ClaimedEntry[]): Promise<LineNames> {
  const unique = (ids: (string | null)[]) => [...new Set(ids.filter((id): id is string => id !== null))];
  // One after the other: a transaction's statements share one connection.
  const projects = await tx.project.findMany({
    where: { id: { in: unique(entries.map((entry) => entry.projectId)) }, ...access.tenantWide('Project') },
    select: { id: true, name: true },
  });
  const tasks = await tx.task.findMany({
    where: { id: { in: unique(entries.map((entry) => entry.taskId)) }, ...access.tenantWide('Task') },
    select: { id: true, title: true },
  });
  const members = await tx.tenantUser.findMany({
    where: { id: { in: unique(entries.map((entry) => entry.tenantUserId)) }, ...access.tenantWide('TenantUser') },
    select: { id: true, name: true, email: true },
  });
  return {
    projects: new Map(projects.map((project) => [project.id, project.name])),
    tasks: new Map(tasks.map((task) => [task.id, task.title])),
    members: new Map(members.map((member) => [member.id, member.name ?? member.email])),
  };
}

/** The manual lines with their tax (the line's own, else the client's or the profile's), numbered after `after`, in a currency of `digits` minor units. */
export function manualLinesOf(lines: readonly ManualLine[], profile: BillingProfileView, client: ClientTax, after: number, digits: number): LineValues[] {
  return manualLines(lines, (line, path) => lineTax(profile, client, line, path), after + 1, digits);
}
