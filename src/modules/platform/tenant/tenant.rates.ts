/**
 * Which currency a rate is in, and what a change of currency does to the
 * rates already set (docs/decisions.md, "Money at its scale"):
 * - a client's rate, its projects' rates and budgets and their project
 *   members' rates are in the client's currency; those of a project without a
 *   client, the members' own rates and cost rates and the tenant's default
 *   rate are in the tenant's;
 * - a change of currency (a client's, the tenant's, or a project moved to
 *   another client) keeps the numbers: they are then in the new currency.
 *   Nothing is converted, and entries keep the rates and currency they copied.
 * - A change that would leave a rate with more decimals than its new currency
 *   has (85.50 when a client goes to JPY) is refused with 400, naming the
 *   currency (or the client) and each such rate: set them first.
 * Here the database is asked which rates a change would put into a currency.
 * Tenant scope comes from `access` (the module lowest in the chain: clients
 * and projects import it, it imports neither).
 */
import type { TenantAccess } from '../../../auth/tenant-access.js';
import type { Tx } from '../../../db/client.js';
import { fragment } from '../../../db/parameters.js';
import { type FieldError, validationFailed } from '../../../lib/errors.js';
import { minorUnitsOf } from '../../../lib/money.js';

/** What a change moves into another currency: the tenant's own rates, a client's, or a project's. */
export type RateScope = { kind: 'tenant' } | { kind: 'client'; clientId: string } | { kind: 'project'; projectId: string };

interface FineRate {
  what: string;
  value: string;
}

/** The rates and budgets of `scope` (as described above) with more than `digits` decimals. */
async function ratesFinerThan(tx: Tx, access: TenantAccess, scope: RateScope, digits: number): Promise<FineRate[]> {
  const fine = (column: string) => `scale(trim_scale(${column})) > ${digits}`;
  return tx.$queryRaw<FineRate[]>`
    SELECT what, value FROM (${fragment((bind) => {
      // Each use binds its values anew: a fragment's text holds one placeholder per value bound.
      const projects = () =>
        scope.kind === 'tenant'
          ? 'p."clientId" IS NULL'
          : scope.kind === 'client'
            ? `p."clientId" = ${bind(scope.clientId)}`
            : `p.id = ${bind(scope.projectId)}`;
      const inProjects = () => `${access.sqlTenantWide('Project', 'p', bind)} AND ${projects()}`;
      const parts = [
        `SELECT 'project "' || p.name || '" hourlyRate' AS what, trim_scale(p."hourlyRate")::text AS value FROM projects p WHERE ${inProjects()} AND ${fine('p."hourlyRate"')}`,
        `SELECT 'project "' || p.name || '" budgetAmount', trim_scale(p."budgetAmount")::text FROM projects p WHERE ${inProjects()} AND ${fine('p."budgetAmount"')}`,
        `SELECT 'project "' || p.name || '" member ' || coalesce(u.name, u.email) || ' hourlyRate', trim_scale(pm."hourlyRate")::text
           FROM project_members pm JOIN projects p ON p.id = pm."projectId" JOIN tenant_users u ON u.id = pm."tenantUserId"
          WHERE ${inProjects()} AND ${fine('pm."hourlyRate"')}`,
      ];
      if (scope.kind === 'client') {
        parts.push(
          `SELECT 'client hourlyRate', trim_scale(c."hourlyRate")::text FROM clients c
            WHERE ${access.sqlTenantWide('Client', 'c', bind)} AND c.id = ${bind(scope.clientId)} AND ${fine('c."hourlyRate"')}`,
        );
      }
      if (scope.kind === 'tenant') {
        for (const column of ['hourlyRate', 'costRate']) {
          parts.push(
            `SELECT 'member ' || coalesce(u.name, u.email) || ' ${column}', trim_scale(u."${column}")::text FROM tenant_users u
              WHERE ${access.sqlTenantWide('TenantUser', 'u', bind)} AND ${fine(`u."${column}"`)}`,
          );
        }
      }
      return parts.join(' UNION ALL ');
    })}) fine ORDER BY what LIMIT 20`;
}

/**
 * 400 naming `path` when moving `scope` into `currency` would leave a rate or budget with more decimals than the
 * currency has (each one listed in the message, the first 20).
 */
export async function assertRatesFit(tx: Tx, access: TenantAccess, scope: RateScope, currency: string, path: string): Promise<void> {
  const digits = minorUnitsOf(currency);
  const rates = await ratesFinerThan(tx, access, scope, digits);
  if (rates.length === 0) return;
  const listed = rates.map((rate) => `${rate.what} ${rate.value}`).join(', ');
  const errors: FieldError[] = [
    { path, message: `${currency} has ${digits === 0 ? 'no' : `only ${digits}`} decimals; these rates have more: ${listed}. Change them first` },
  ];
  throw validationFailed(errors);
}
