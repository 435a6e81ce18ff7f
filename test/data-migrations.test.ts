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
