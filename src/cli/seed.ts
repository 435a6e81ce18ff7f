/**
 * `tally seed --tenants N --users N --entries N`: a database full of
 * plausible work, for trying Tally out and for benchmarks. Tenants and their
 * API keys go through the services; the bulk (members, projects, tasks,
 * vehicles, entries over the last two years) is inserted in batches of plain
 * SQL, thousands of rows per statement, so that 100,000 entries take seconds.
 * This file runs the parts in their order, one file per domain under seed/:
 * platform (tenant, key, members), time (time off), tracking (clients,
 * projects, vehicles), entries, then billing (the module's own seed of
 * client invoices). Every part draws from one seeded random source, so the
 * order below is part of the data: the same options give the same data.
 */
import { randomBytes } from 'node:crypto';
import cliProgress from 'cli-progress';
import { systemActor } from '../auth/actor.js';
import { systemAccess } from '../auth/tenant-access.js';
import type { Sql } from '../db/client.js';
import type { Clock } from '../lib/clock.js';
import { seedClientInvoices } from '../modules/billing/client-invoice/client-invoice.seed.js';
import { settingsOf } from '../modules/platform/tenant/tenant.settings.js';
import type { Services } from '../modules/services.js';
import { seedRandom, type TenantSeed } from './seed/context.js';
import { seedEntries } from './seed/entries.js';
import { seedMembers, seedTenant } from './seed/platform.js';
import { seedTimeOff } from './seed/time.js';
import { seedClients, seedProjects, seedVehicles } from './seed/tracking.js';

export interface SeedOptions {
  tenants: number;
  /** Members per tenant. */
  users: number;
  /** Entries in all, spread over the tenants. */
  entries: number;
  /** Show a progress bar (off when the output is not a terminal). */
  progress: boolean;
}

export interface SeededTenantSummary {
  id: string;
  slug: string;
  key: string;
  entries: number;
}

/** Fills the database, dated back from the clock's now; returns each tenant with an admin API key (shown once, by the CLI). */
export async function seed(services: Services, sql: Sql, clock: Clock, options: SeedOptions): Promise<SeededTenantSummary[]> {
  const random = seedRandom(options.tenants * 7919 + options.users * 104729 + options.entries);
  const bar = options.progress
    ? new cliProgress.SingleBar(
        { format: 'seeding |{bar}| {value}/{total} entries | {eta_formatted} left', hideCursor: true },
        cliProgress.Presets.shades_classic,
      )
    : undefined;
  bar?.start(options.entries, 0);
  const run = randomBytes(3).toString('hex');
  const summaries: SeededTenantSummary[] = [];
  const instant = clock.now();
  const actor = systemActor('seed');

  for (let tenantIndex = 0; tenantIndex < options.tenants; tenantIndex += 1) {
    const { tenant, key } = await seedTenant(services, random, actor, run, tenantIndex);
    const settings = settingsOf(tenant);
    const currency = 'EUR';
    const tenantSeed: TenantSeed = { ...random, sql, run, tenantIndex, tenantId: tenant.id, instant, now: instant.getTime() };
    const members = await seedMembers(tenantSeed, options.users);
    // The tenant's today, for the dates of its time off.
    await seedTimeOff(tenantSeed, members, clock.today(settings.timezone));
    const tenantClients = await seedClients(tenantSeed, currency);
    const projects = await seedProjects(tenantSeed, { members, tenantClients, users: options.users, currency });
    const vehicles = await seedVehicles(tenantSeed, options.users);
    const share = Math.floor(options.entries / options.tenants) + (tenantIndex < options.entries % options.tenants ? 1 : 0);
    await seedEntries(tenantSeed, { members, projects, vehicles, share, settings, progress: (count) => bar?.increment(count) });
    await seedClientInvoices(
      services,
      systemAccess(tenant, actor),
      tenant.name,
      tenantClients.map((client) => client.id),
      instant,
    );
    summaries.push({ id: tenant.id, slug: tenant.slug, key, entries: share });
  }
  bar?.stop();
  await sql.query('ANALYZE');
  return summaries;
}
