/**
 * Migrations that change data, tested against a database seeded before them:
 * what existed keeps its meaning.
 */
import { describe, expect, it } from 'vitest';
import { migrateDatabase } from '../src/db/migrations.js';
import type { Prisma } from '../src/generated/prisma/client.js';
import { runStatement } from '../src/db/statement.js';
import { createLogger } from '../src/lib/logger.js';
import { settingsOf } from '../src/modules/tenant/tenant.service.js';
import { createEmptyDatabase } from './helpers/database.js';
import { migrateUpTo } from './helpers/migrations.js';

const log = createLogger('silent');

describe('20261123233000_approval_required_by_default', () => {
  it('keeps approval off for tenants that had no setting, and leaves stored settings as they were', async () => {
    const database = await createEmptyDatabase();
    try {
      await migrateUpTo(database.url, '20261123233000_approval_required_by_default', log);
      await runStatement(
        database.url,
        `INSERT INTO tenants (id, name, slug, settings, "updatedAt") VALUES
           ('t-none', 'No settings', 'no-settings', '{}', now()),
           ('t-zone', 'Some settings', 'some-settings', '{"timezone": "Europe/Berlin"}', now()),
           ('t-on', 'Approval on', 'approval-on', '{"approvalRequired": true}', now()),
           ('t-off', 'Approval off', 'approval-off', '{"approvalRequired": false, "currency": "USD"}', now())`,
      );
      expect(await migrateDatabase(database.url, log)).toContain('20261123233000_approval_required_by_default');
      const { rows } = await runStatement(database.url, 'SELECT id, settings FROM tenants ORDER BY id');
      const settings = Object.fromEntries((rows as { id: string; settings: Prisma.JsonObject }[]).map((row) => [row.id, row.settings]));
      expect(settings).toEqual({
        't-none': { approvalRequired: false },
        't-zone': { timezone: 'Europe/Berlin', approvalRequired: false },
        't-on': { approvalRequired: true },
        't-off': { approvalRequired: false, currency: 'USD' },
      });
      // What the service reads: the old tenants as before, while a tenant created now gets the new default.
      expect(settingsOf({ settings: settings['t-none'] ?? {} }).approvalRequired).toBe(false);
      expect(settingsOf({ settings: {} }).approvalRequired).toBe(true);
    } finally {
      await database.drop();
    }
  });
});

describe('20261125004606_money', () => {
  it('turns every distinct client name of a tenant into a client and links its projects, losing no project and no name', async () => {
    const database = await createEmptyDatabase();
    try {
      await migrateUpTo(database.url, '20261125004606_money', log);
      await runStatement(
        database.url,
        `INSERT INTO tenants (id, name, slug, settings, "updatedAt") VALUES
           ('t-eur', 'Euro', 'euro', '{}', now()),
           ('t-usd', 'Dollar', 'dollar', '{"currency": "USD"}', now())`,
      );
      await runStatement(
        database.url,
        `INSERT INTO projects (id, "tenantId", name, "clientName", "hourlyRate", "createdAt", "updatedAt") VALUES
           ('p-1', 't-eur', 'Relaunch', 'ACME', 90, '2026-01-05', now()),
           ('p-2', 't-eur', 'Support', 'ACME', NULL, '2026-01-02', now()),
           ('p-3', 't-eur', 'Audit', 'acme', NULL, '2026-02-01', now()),
           ('p-4', 't-eur', 'Internal', NULL, NULL, '2026-02-01', now()),
           ('p-5', 't-usd', 'Relaunch', 'ACME', NULL, '2026-03-01', now()),
           ('p-6', 't-usd', 'Café', 'Café Müller, "Zürich"', NULL, '2026-03-02', now())`,
      );
      expect(await migrateDatabase(database.url, log)).toContain('20261125004606_money');
      const clients = (
        await runStatement(database.url, 'SELECT id, "tenantId", name, currency, "createdAt", "hourlyRate" FROM clients ORDER BY "tenantId", name')
      ).rows as { id: string; tenantId: string; name: string; currency: string; createdAt: Date; hourlyRate: string | null }[];
      // One client per distinct name and tenant, as written (names differing in case stay two), in the tenant's currency.
      expect(clients.map(({ tenantId, name, currency }) => [tenantId, name, currency])).toEqual([
        ['t-eur', 'ACME', 'EUR'],
        ['t-eur', 'acme', 'EUR'],
        ['t-usd', 'ACME', 'USD'],
        ['t-usd', 'Café Müller, "Zürich"', 'USD'],
      ]);
      // Created when the client's first project was; ids are UUIDv7 like the application's.
      expect(clients[0]?.createdAt.toISOString()).toBe('2026-01-02T00:00:00.000Z');
      for (const client of clients) expect(client.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      const projects = (
        await runStatement(
          database.url,
          'SELECT p.id, c."tenantId" AS "clientTenant", c.name AS client, p."hourlyRate" FROM projects p LEFT JOIN clients c ON c.id = p."clientId" ORDER BY p.id',
        )
      ).rows as { id: string; clientTenant: string | null; client: string | null; hourlyRate: string | null }[];
      expect(projects.map(({ id, clientTenant, client }) => [id, clientTenant, client])).toEqual([
        ['p-1', 't-eur', 'ACME'],
        ['p-2', 't-eur', 'ACME'],
        ['p-3', 't-eur', 'acme'],
        ['p-4', null, null],
        ['p-5', 't-usd', 'ACME'],
        ['p-6', 't-usd', 'Café Müller, "Zürich"'],
      ]);
      // Rates stay on the projects; the client has none of its own yet.
      expect(projects[0]?.hourlyRate).toBe('90.00');
      expect(clients.every((client) => client.hourlyRate === null)).toBe(true);
      // Projects are still found by name, and clients by theirs.
      const found = await runStatement(database.url, `SELECT id FROM projects WHERE "searchVector" @@ to_tsquery('simple', 'relaunch') ORDER BY id`);
      expect(found.rows).toEqual([{ id: 'p-1' }, { id: 'p-5' }]);
      const client = await runStatement(database.url, `SELECT name FROM clients WHERE "searchVector" @@ to_tsquery('simple', 'zürich')`);
      expect(client.rows).toEqual([{ name: 'Café Müller, "Zürich"' }]);
    } finally {
      await database.drop();
    }
  });
});
