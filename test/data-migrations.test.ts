/**
 * Migrations that change data, tested against a database seeded before them:
 * what existed keeps its meaning.
 */
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { migrateDatabase } from '../src/db/migrations.js';
import type { Prisma } from '../src/generated/prisma/client.js';
import { runStatement } from '../src/db/statement.js';
import { createLogger } from '../src/lib/logger.js';
import { settingsOf } from '../src/modules/platform/tenant/tenant.settings.js';
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
      // Rates stay on the projects (at the scale the later money_at_its_scale migration gives the column); the client has none of its own yet.
      expect(projects[0]?.hourlyRate).toBe('90.000');
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

describe('20261127023139_instants_with_time_zone', () => {
  const migration = '20261127023139_instants_with_time_zone';
  const instantColumns = `SELECT c.table_name AS "table", c.column_name AS "column", c.data_type AS type, c.datetime_precision AS precision
                            FROM information_schema.columns c
                           WHERE c.table_schema = 'public' AND c.table_name <> '_prisma_migrations' AND c.data_type LIKE 'timestamp%'
                           ORDER BY 1, 2`;

  /** Every instant stored in the database, as `table.column id` -> milliseconds since the epoch. */
  async function instantsOf(url: string, read: (column: string) => string): Promise<Map<string, number>> {
    const columns = (await runStatement(url, instantColumns)).rows as { table: string; column: string }[];
    const instants = new Map<string, number>();
    for (const { table, column } of columns) {
      // A row is named by its primary key (not every table's is `id`).
      const key = await runStatement(
        url,
        `SELECT string_agg(quote_ident(a.attname), ', ' ORDER BY a.attnum) AS columns
           FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey)
          WHERE i.indrelid = $1::regclass AND i.indisprimary`,
        [pg.escapeIdentifier(table)],
      );
      const { rows } = await runStatement(
        url,
        `SELECT concat_ws('|', ${(key.rows[0] as { columns: string }).columns}) AS id, (extract(epoch FROM ${read(`"${column}"`)}) * 1000)::bigint::text AS ms
           FROM "${table}" WHERE "${column}" IS NOT NULL`,
      );
      for (const row of rows as { id: string; ms: string }[]) instants.set(`${table}.${column} ${row.id}`, Number(row.ms));
    }
    return instants;
  }

  const totalsOf = async (url: string) => ({
    days: (await runStatement(url, `SELECT day::text, entries, "durationMinutes"::int AS minutes FROM entry_day_totals WHERE entries <> 0 ORDER BY day`)).rows,
    weeks: (await runStatement(url, `SELECT week::text, entries, "durationMinutes"::int AS minutes FROM entry_week_totals WHERE entries <> 0 ORDER BY week`))
      .rows,
  });

  it('keeps every stored instant, whatever the time zone of the session that migrates, and the report totals exact', async () => {
    const database = await createEmptyDatabase();
    try {
      await migrateUpTo(database.url, migration, log);
      // Rows as Tally wrote them before: UTC wall-clock times in timestamp(3) columns, better-auth's tables among them.
      await runStatement(
        database.url,
        `INSERT INTO users (id, name, email, "createdAt", "updatedAt") VALUES ('u-1', 'Ada', 'ada@example.test', '2026-01-31 23:59:59.999', '2026-03-29 01:30:00.5');
         INSERT INTO sessions (id, token, "expiresAt", "userId", "createdAt", "updatedAt")
              VALUES ('s-1', 'token', '2026-04-05 01:30:00.5', 'u-1', '2026-03-29 01:30:00.5', '2026-03-29 01:30:00.5');
         INSERT INTO accounts (id, "accountId", "providerId", "userId", "accessTokenExpiresAt", "refreshTokenExpiresAt", "createdAt", "updatedAt")
              VALUES ('a-1', 'sub-1', 'oidc', 'u-1', '2026-03-29 02:30:00', NULL, '2026-03-29 01:30:00.5', '2026-03-29 01:30:00.5');
         INSERT INTO verifications (id, identifier, value, "expiresAt", "createdAt", "updatedAt")
              VALUES ('v-1', 'state', 'x', '2026-10-25 00:59:59.999', '2026-10-25 00:49:59.999', '2026-10-25 00:49:59.999');
         INSERT INTO tenants (id, name, slug, settings, "createdAt", "updatedAt")
              VALUES ('t-1', 'Berlin', 'berlin', '{"timezone": "Europe/Berlin", "weekStart": "sunday"}', '2026-01-01 00:00:00', '2026-01-01 00:00:00');
         INSERT INTO tenant_users (id, "tenantId", "userId", email, status, "updatedAt") VALUES ('m-1', 't-1', 'u-1', 'ada@example.test', 'active', now());
         INSERT INTO api_keys (id, "tenantId", name, prefix, "keyHash", "createdByType", "expiresAt", "lastUsedAt", "updatedAt")
              VALUES ('k-1', 't-1', 'script', 'svc_abc', 'hash', 'system', '2026-06-30 22:00:00', '2026-03-28 18:00:00.001', now());
         INSERT INTO notes (id, "tenantId", "tenantUserId", content, "createdAt", "updatedAt") VALUES ('n-1', 't-1', 'm-1', 'hello', '2026-03-28 23:30:00.123', now());
         INSERT INTO events (id, "tenantId", type, "actorType", data, "createdAt", "processedAt")
              VALUES ('ev-1', 't-1', 'note.created', 'system', '{}', '2026-03-28 23:30:00.123', '2026-03-28 23:30:01.042');
         -- 18:00 UTC is 19:00 in Berlin, on the 28th; 23:30 UTC is 00:30 on the 29th there.
         INSERT INTO entries (id, "tenantId", "tenantUserId", "startedAt", "endedAt", "durationMinutes", "submittedAt", "updatedAt")
              VALUES ('e-1', 't-1', 'm-1', '2026-03-28 18:00:00.123', '2026-03-28 19:00:00.123', 60, '2026-03-28 19:05:00', now()),
                     ('e-2', 't-1', 'm-1', '2026-03-28 23:30:00.123', '2026-03-29 00:15:00.123', 45, NULL, now());`,
      );
      const before = await instantsOf(database.url, (column) => `${column} AT TIME ZONE 'UTC'`);
      const totalsBefore = await totalsOf(database.url);
      expect(totalsBefore.days).toEqual([
        { day: '2026-03-28', entries: 1, minutes: 60 },
        { day: '2026-03-29', entries: 1, minutes: 45 },
      ]);
      const tables = new Set([...before.keys()].map((key) => key.split('.')[0]));
      for (const table of ['users', 'sessions', 'accounts', 'verifications', 'tenants', 'tenant_users', 'api_keys', 'notes', 'events', 'entries']) {
        expect(tables, table).toContain(table);
      }

      // Migrated by a session in Tokyo: a plain change of type would read every stored time as Tokyo's, 9 hours off.
      await runStatement(database.url, `ALTER DATABASE ${pg.escapeIdentifier(database.name)} SET timezone TO 'Asia/Tokyo'`);
      expect(await migrateDatabase(database.url, log)).toContain(migration);

      const columns = (await runStatement(database.url, instantColumns)).rows as { table: string; column: string; type: string; precision: number }[];
      expect(columns.filter((column) => column.type !== 'timestamp with time zone' || column.precision !== 3)).toEqual([]);
      // Later migrations may add rows of their own (every tenant's default absence types): the rows there were are compared.
      const after = await instantsOf(database.url, (column) => column);
      expect(new Map([...after].filter(([key]) => tables.has(key.split('.')[0] as string)))).toEqual(before);
      // Another client reads the same instants, in its own zone.
      const session = (await runStatement(database.url, `SELECT "expiresAt" FROM sessions WHERE id = 's-1'`)).rows[0] as { expiresAt: Date };
      expect(session.expiresAt.toISOString()).toBe('2026-04-05T01:30:00.500Z');

      // The totals stay, and writes after the migration keep them exact: the same days for the same instants.
      expect(await totalsOf(database.url)).toEqual(totalsBefore);
      await runStatement(
        database.url,
        `DELETE FROM entries WHERE id = 'e-1';
         INSERT INTO entries (id, "tenantId", "tenantUserId", "startedAt", "endedAt", "durationMinutes", "updatedAt")
              VALUES ('e-3', 't-1', 'm-1', '2026-03-28T23:30:00.123Z', '2026-03-29T00:00:00.123Z', 30, now());`,
      );
      expect(await totalsOf(database.url)).toEqual({
        days: [{ day: '2026-03-29', entries: 2, minutes: 75 }],
        // Sunday weeks: the 29th starts one.
        weeks: [{ week: '2026-03-29', entries: 2, minutes: 75 }],
      });
      // A rebuild (a change of the tenant's zone) counts the same days as the writes did.
      await runStatement(database.url, `UPDATE tenants SET settings = settings || '{"timezone": "UTC"}' WHERE id = 't-1'`);
      expect((await totalsOf(database.url)).days).toEqual([{ day: '2026-03-28', entries: 2, minutes: 75 }]);
    } finally {
      await database.drop();
    }
  });
});

/** Two members of a Berlin tenant with Sunday weeks and four entries: tagged, untagged, across local midnight, a timer. */
const memberTagEntries = `INSERT INTO users (id, name, email, "updatedAt") VALUES ('u-1', 'Ada', 'ada@example.test', now()), ('u-2', 'Grace', 'grace@example.test', now());
   INSERT INTO tenants (id, name, slug, settings, "updatedAt")
        VALUES ('t-1', 'Berlin', 'berlin', '{"timezone": "Europe/Berlin", "weekStart": "sunday"}', now());
   INSERT INTO tenant_users (id, "tenantId", "userId", email, status, "updatedAt")
        VALUES ('m-1', 't-1', 'u-1', 'ada@example.test', 'active', now()), ('m-2', 't-1', 'u-2', 'grace@example.test', 'active', now());
   -- Saturday 23:30 UTC is Sunday in Berlin: a day and a week of its own with Sunday weeks. A running timer does not count.
   INSERT INTO entries (id, "tenantId", "tenantUserId", "startedAt", "endedAt", "durationMinutes", tags, "billableAmount", status, "updatedAt")
        VALUES ('e-1', 't-1', 'm-1', '2026-03-28 18:00:00Z', '2026-03-28 19:00:00Z', 60, '{dev,bug}', 100, 'approved', now()),
               ('e-2', 't-1', 'm-1', '2026-03-28 23:30:00Z', '2026-03-29 00:15:00Z', 45, '{}', 75, 'draft', now()),
               ('e-3', 't-1', 'm-2', '2026-03-27 08:00:00Z', '2026-03-27 08:30:00Z', 30, '{dev}', NULL, 'approved', now()),
               ('e-4', 't-1', 'm-2', '2026-03-28 08:00:00Z', NULL, NULL, '{dev}', NULL, 'draft', now());`;

describe('20261129071618_report_member_tag_totals', () => {
  const migration = '20261129071618_report_member_tag_totals';
  const dimensionTotals = async (url: string) =>
    (
      await runStatement(
        url,
        `SELECT dimension, week::text, key, status::text, entries, "durationMinutes"::int AS minutes, "billableAmount"::text AS amount
           FROM entry_dimension_week_totals WHERE entries <> 0 ORDER BY dimension, week, key, status`,
      )
    ).rows;

  it("builds the member and tag totals of the entries there are, in each tenant's time zone and weeks, and keeps them after", async () => {
    const database = await createEmptyDatabase();
    try {
      await migrateUpTo(database.url, migration, log);
      await runStatement(database.url, memberTagEntries);
      expect(await migrateDatabase(database.url, log)).toContain(migration);
      expect(await dimensionTotals(database.url)).toEqual([
        { dimension: 'tag', week: '2026-03-22', key: 'bug', status: 'approved', entries: 1, minutes: 60, amount: '100.000' },
        { dimension: 'tag', week: '2026-03-22', key: 'dev', status: 'approved', entries: 2, minutes: 90, amount: '100.000' },
        { dimension: 'tag', week: '2026-03-29', key: '', status: 'draft', entries: 1, minutes: 45, amount: '75.000' },
        { dimension: 'user', week: '2026-03-22', key: 'm-1', status: 'approved', entries: 1, minutes: 60, amount: '100.000' },
        { dimension: 'user', week: '2026-03-22', key: 'm-2', status: 'approved', entries: 1, minutes: 30, amount: '0.000' },
        { dimension: 'user', week: '2026-03-29', key: 'm-1', status: 'draft', entries: 1, minutes: 45, amount: '75.000' },
      ]);
      // Writes after the migration keep them: an entry moved to the other member and its tags changed, the timer stopped.
      await runStatement(
        database.url,
        `UPDATE entries SET "tenantUserId" = 'm-2', tags = '{ops}' WHERE id = 'e-1';
         UPDATE entries SET "endedAt" = '2026-03-28 08:10:00Z', "durationMinutes" = 10 WHERE id = 'e-4';`,
      );
      expect(await dimensionTotals(database.url)).toEqual([
        { dimension: 'tag', week: '2026-03-22', key: 'dev', status: 'approved', entries: 1, minutes: 30, amount: '0.000' },
        { dimension: 'tag', week: '2026-03-22', key: 'dev', status: 'draft', entries: 1, minutes: 10, amount: '0.000' },
        { dimension: 'tag', week: '2026-03-22', key: 'ops', status: 'approved', entries: 1, minutes: 60, amount: '100.000' },
        { dimension: 'tag', week: '2026-03-29', key: '', status: 'draft', entries: 1, minutes: 45, amount: '75.000' },
        { dimension: 'user', week: '2026-03-22', key: 'm-2', status: 'approved', entries: 2, minutes: 90, amount: '100.000' },
        { dimension: 'user', week: '2026-03-22', key: 'm-2', status: 'draft', entries: 1, minutes: 10, amount: '0.000' },
        { dimension: 'user', week: '2026-03-29', key: 'm-1', status: 'draft', entries: 1, minutes: 45, amount: '75.000' },
      ]);
    } finally {
      await database.drop();
    }
  });
});

describe('20261129100326_report_member_tag_days', () => {
  const migration = '20261129100326_report_member_tag_days';
  const rowsOf = async (url: string, table: string, period: string) =>
    (
      await runStatement(
        url,
        `SELECT dimension, ${period}::text AS period, key, status::text, entries, "durationMinutes"::int AS minutes, "billableAmount"::text AS amount
           FROM ${table} WHERE entries <> 0 ORDER BY dimension, ${period}, key, status`,
      )
    ).rows;

  it("builds the member and tag day rows of the entries there are, in each tenant's time zone, keeps the week rows, and both after", async () => {
    const database = await createEmptyDatabase();
    try {
      await migrateUpTo(database.url, migration, log);
      await runStatement(database.url, memberTagEntries);
      const weeksBefore = await rowsOf(database.url, 'entry_dimension_week_totals', 'week');
      expect(weeksBefore).toHaveLength(6);
      expect(await migrateDatabase(database.url, log)).toContain(migration);
      expect(await rowsOf(database.url, 'entry_dimension_week_totals', 'week')).toEqual(weeksBefore);
      expect(await rowsOf(database.url, 'entry_dimension_day_totals', 'day')).toEqual([
        { dimension: 'tag', period: '2026-03-27', key: 'dev', status: 'approved', entries: 1, minutes: 30, amount: '0.000' },
        { dimension: 'tag', period: '2026-03-28', key: 'bug', status: 'approved', entries: 1, minutes: 60, amount: '100.000' },
        { dimension: 'tag', period: '2026-03-28', key: 'dev', status: 'approved', entries: 1, minutes: 60, amount: '100.000' },
        { dimension: 'tag', period: '2026-03-29', key: '', status: 'draft', entries: 1, minutes: 45, amount: '75.000' },
        { dimension: 'user', period: '2026-03-27', key: 'm-2', status: 'approved', entries: 1, minutes: 30, amount: '0.000' },
        { dimension: 'user', period: '2026-03-28', key: 'm-1', status: 'approved', entries: 1, minutes: 60, amount: '100.000' },
        { dimension: 'user', period: '2026-03-29', key: 'm-1', status: 'draft', entries: 1, minutes: 45, amount: '75.000' },
      ]);
      // Writes after the migration keep them: an entry moved to the other member and another day, its tags changed,
      // the timer stopped.
      await runStatement(
        database.url,
        `UPDATE entries SET "tenantUserId" = 'm-2', tags = '{ops}', "startedAt" = '2026-03-27 18:00:00Z', "endedAt" = '2026-03-27 19:00:00Z' WHERE id = 'e-1';
         UPDATE entries SET "endedAt" = '2026-03-28 08:10:00Z', "durationMinutes" = 10 WHERE id = 'e-4';`,
      );
      expect(await rowsOf(database.url, 'entry_dimension_day_totals', 'day')).toEqual([
        { dimension: 'tag', period: '2026-03-27', key: 'dev', status: 'approved', entries: 1, minutes: 30, amount: '0.000' },
        { dimension: 'tag', period: '2026-03-27', key: 'ops', status: 'approved', entries: 1, minutes: 60, amount: '100.000' },
        { dimension: 'tag', period: '2026-03-28', key: 'dev', status: 'draft', entries: 1, minutes: 10, amount: '0.000' },
        { dimension: 'tag', period: '2026-03-29', key: '', status: 'draft', entries: 1, minutes: 45, amount: '75.000' },
        { dimension: 'user', period: '2026-03-27', key: 'm-2', status: 'approved', entries: 2, minutes: 90, amount: '100.000' },
        { dimension: 'user', period: '2026-03-28', key: 'm-2', status: 'draft', entries: 1, minutes: 10, amount: '0.000' },
        { dimension: 'user', period: '2026-03-29', key: 'm-1', status: 'draft', entries: 1, minutes: 45, amount: '75.000' },
      ]);
      expect(await rowsOf(database.url, 'entry_dimension_week_totals', 'week')).toEqual([
        { dimension: 'tag', period: '2026-03-22', key: 'dev', status: 'approved', entries: 1, minutes: 30, amount: '0.000' },
        { dimension: 'tag', period: '2026-03-22', key: 'dev', status: 'draft', entries: 1, minutes: 10, amount: '0.000' },
        { dimension: 'tag', period: '2026-03-22', key: 'ops', status: 'approved', entries: 1, minutes: 60, amount: '100.000' },
        { dimension: 'tag', period: '2026-03-29', key: '', status: 'draft', entries: 1, minutes: 45, amount: '75.000' },
        { dimension: 'user', period: '2026-03-22', key: 'm-2', status: 'approved', entries: 2, minutes: 90, amount: '100.000' },
        { dimension: 'user', period: '2026-03-22', key: 'm-2', status: 'draft', entries: 1, minutes: 10, amount: '0.000' },
        { dimension: 'user', period: '2026-03-29', key: 'm-1', status: 'draft', entries: 1, minutes: 45, amount: '75.000' },
      ]);
    } finally {
      await database.drop();
    }
  });
});
