-- Every instant becomes `timestamptz(3)`. The columns held UTC wall-clock times (`timestamp(3)`, as Prisma
-- wrote them), so each is converted with `AT TIME ZONE 'UTC'`: the same instants, whatever the time zone of
-- the session that runs this. A plain type change would read them in the session's zone instead. The change
-- rewrites each table and rebuilds its indexes, once per table (all its columns in one ALTER TABLE).

-- AlterTable
ALTER TABLE "accounts" ALTER COLUMN "accessTokenExpiresAt" SET DATA TYPE TIMESTAMPTZ(3) USING "accessTokenExpiresAt" AT TIME ZONE 'UTC',
ALTER COLUMN "refreshTokenExpiresAt" SET DATA TYPE TIMESTAMPTZ(3) USING "refreshTokenExpiresAt" AT TIME ZONE 'UTC',
ALTER COLUMN "createdAt" SET DATA TYPE TIMESTAMPTZ(3) USING "createdAt" AT TIME ZONE 'UTC',
ALTER COLUMN "updatedAt" SET DATA TYPE TIMESTAMPTZ(3) USING "updatedAt" AT TIME ZONE 'UTC';

-- AlterTable
ALTER TABLE "api_keys" ALTER COLUMN "expiresAt" SET DATA TYPE TIMESTAMPTZ(3) USING "expiresAt" AT TIME ZONE 'UTC',
ALTER COLUMN "revokedAt" SET DATA TYPE TIMESTAMPTZ(3) USING "revokedAt" AT TIME ZONE 'UTC',
ALTER COLUMN "lastUsedAt" SET DATA TYPE TIMESTAMPTZ(3) USING "lastUsedAt" AT TIME ZONE 'UTC',
ALTER COLUMN "createdAt" SET DATA TYPE TIMESTAMPTZ(3) USING "createdAt" AT TIME ZONE 'UTC',
ALTER COLUMN "updatedAt" SET DATA TYPE TIMESTAMPTZ(3) USING "updatedAt" AT TIME ZONE 'UTC';

-- AlterTable
ALTER TABLE "budget_alerts" ALTER COLUMN "createdAt" SET DATA TYPE TIMESTAMPTZ(3) USING "createdAt" AT TIME ZONE 'UTC';

-- AlterTable
ALTER TABLE "clients" ALTER COLUMN "createdAt" SET DATA TYPE TIMESTAMPTZ(3) USING "createdAt" AT TIME ZONE 'UTC',
ALTER COLUMN "updatedAt" SET DATA TYPE TIMESTAMPTZ(3) USING "updatedAt" AT TIME ZONE 'UTC';

-- AlterTable
ALTER TABLE "entries" ALTER COLUMN "startedAt" SET DATA TYPE TIMESTAMPTZ(3) USING "startedAt" AT TIME ZONE 'UTC',
ALTER COLUMN "endedAt" SET DATA TYPE TIMESTAMPTZ(3) USING "endedAt" AT TIME ZONE 'UTC',
ALTER COLUMN "submittedAt" SET DATA TYPE TIMESTAMPTZ(3) USING "submittedAt" AT TIME ZONE 'UTC',
ALTER COLUMN "reviewedAt" SET DATA TYPE TIMESTAMPTZ(3) USING "reviewedAt" AT TIME ZONE 'UTC',
ALTER COLUMN "createdAt" SET DATA TYPE TIMESTAMPTZ(3) USING "createdAt" AT TIME ZONE 'UTC',
ALTER COLUMN "updatedAt" SET DATA TYPE TIMESTAMPTZ(3) USING "updatedAt" AT TIME ZONE 'UTC';

-- AlterTable
ALTER TABLE "events" ALTER COLUMN "createdAt" SET DATA TYPE TIMESTAMPTZ(3) USING "createdAt" AT TIME ZONE 'UTC',
ALTER COLUMN "processedAt" SET DATA TYPE TIMESTAMPTZ(3) USING "processedAt" AT TIME ZONE 'UTC';

-- AlterTable
ALTER TABLE "idempotency_keys" ALTER COLUMN "createdAt" SET DATA TYPE TIMESTAMPTZ(3) USING "createdAt" AT TIME ZONE 'UTC',
ALTER COLUMN "expiresAt" SET DATA TYPE TIMESTAMPTZ(3) USING "expiresAt" AT TIME ZONE 'UTC';

-- AlterTable
ALTER TABLE "imports" ALTER COLUMN "startedAt" SET DATA TYPE TIMESTAMPTZ(3) USING "startedAt" AT TIME ZONE 'UTC',
ALTER COLUMN "finishedAt" SET DATA TYPE TIMESTAMPTZ(3) USING "finishedAt" AT TIME ZONE 'UTC',
ALTER COLUMN "createdAt" SET DATA TYPE TIMESTAMPTZ(3) USING "createdAt" AT TIME ZONE 'UTC',
ALTER COLUMN "updatedAt" SET DATA TYPE TIMESTAMPTZ(3) USING "updatedAt" AT TIME ZONE 'UTC';

-- AlterTable
ALTER TABLE "invoices" ALTER COLUMN "createdAt" SET DATA TYPE TIMESTAMPTZ(3) USING "createdAt" AT TIME ZONE 'UTC',
ALTER COLUMN "updatedAt" SET DATA TYPE TIMESTAMPTZ(3) USING "updatedAt" AT TIME ZONE 'UTC';

-- AlterTable
ALTER TABLE "notes" ALTER COLUMN "createdAt" SET DATA TYPE TIMESTAMPTZ(3) USING "createdAt" AT TIME ZONE 'UTC',
ALTER COLUMN "updatedAt" SET DATA TYPE TIMESTAMPTZ(3) USING "updatedAt" AT TIME ZONE 'UTC';

-- AlterTable
ALTER TABLE "notifications" ALTER COLUMN "readAt" SET DATA TYPE TIMESTAMPTZ(3) USING "readAt" AT TIME ZONE 'UTC',
ALTER COLUMN "createdAt" SET DATA TYPE TIMESTAMPTZ(3) USING "createdAt" AT TIME ZONE 'UTC',
ALTER COLUMN "updatedAt" SET DATA TYPE TIMESTAMPTZ(3) USING "updatedAt" AT TIME ZONE 'UTC';

-- AlterTable
ALTER TABLE "project_members" ALTER COLUMN "createdAt" SET DATA TYPE TIMESTAMPTZ(3) USING "createdAt" AT TIME ZONE 'UTC',
ALTER COLUMN "updatedAt" SET DATA TYPE TIMESTAMPTZ(3) USING "updatedAt" AT TIME ZONE 'UTC';

-- AlterTable
ALTER TABLE "projects" ALTER COLUMN "createdAt" SET DATA TYPE TIMESTAMPTZ(3) USING "createdAt" AT TIME ZONE 'UTC',
ALTER COLUMN "updatedAt" SET DATA TYPE TIMESTAMPTZ(3) USING "updatedAt" AT TIME ZONE 'UTC';

-- AlterTable
ALTER TABLE "sessions" ALTER COLUMN "expiresAt" SET DATA TYPE TIMESTAMPTZ(3) USING "expiresAt" AT TIME ZONE 'UTC',
ALTER COLUMN "createdAt" SET DATA TYPE TIMESTAMPTZ(3) USING "createdAt" AT TIME ZONE 'UTC',
ALTER COLUMN "updatedAt" SET DATA TYPE TIMESTAMPTZ(3) USING "updatedAt" AT TIME ZONE 'UTC';

-- AlterTable
ALTER TABLE "syncs" ALTER COLUMN "lastSyncedAt" SET DATA TYPE TIMESTAMPTZ(3) USING "lastSyncedAt" AT TIME ZONE 'UTC',
ALTER COLUMN "createdAt" SET DATA TYPE TIMESTAMPTZ(3) USING "createdAt" AT TIME ZONE 'UTC',
ALTER COLUMN "updatedAt" SET DATA TYPE TIMESTAMPTZ(3) USING "updatedAt" AT TIME ZONE 'UTC';

-- AlterTable
ALTER TABLE "task_lists" ALTER COLUMN "createdAt" SET DATA TYPE TIMESTAMPTZ(3) USING "createdAt" AT TIME ZONE 'UTC',
ALTER COLUMN "updatedAt" SET DATA TYPE TIMESTAMPTZ(3) USING "updatedAt" AT TIME ZONE 'UTC';

-- AlterTable
ALTER TABLE "tasks" ALTER COLUMN "completedAt" SET DATA TYPE TIMESTAMPTZ(3) USING "completedAt" AT TIME ZONE 'UTC',
ALTER COLUMN "createdAt" SET DATA TYPE TIMESTAMPTZ(3) USING "createdAt" AT TIME ZONE 'UTC',
ALTER COLUMN "updatedAt" SET DATA TYPE TIMESTAMPTZ(3) USING "updatedAt" AT TIME ZONE 'UTC';

-- AlterTable
ALTER TABLE "tenant_users" ALTER COLUMN "createdAt" SET DATA TYPE TIMESTAMPTZ(3) USING "createdAt" AT TIME ZONE 'UTC',
ALTER COLUMN "updatedAt" SET DATA TYPE TIMESTAMPTZ(3) USING "updatedAt" AT TIME ZONE 'UTC';

-- AlterTable
ALTER TABLE "tenants" ALTER COLUMN "createdAt" SET DATA TYPE TIMESTAMPTZ(3) USING "createdAt" AT TIME ZONE 'UTC',
ALTER COLUMN "updatedAt" SET DATA TYPE TIMESTAMPTZ(3) USING "updatedAt" AT TIME ZONE 'UTC';

-- AlterTable
ALTER TABLE "users" ALTER COLUMN "createdAt" SET DATA TYPE TIMESTAMPTZ(3) USING "createdAt" AT TIME ZONE 'UTC',
ALTER COLUMN "updatedAt" SET DATA TYPE TIMESTAMPTZ(3) USING "updatedAt" AT TIME ZONE 'UTC';

-- AlterTable
ALTER TABLE "vehicles" ALTER COLUMN "createdAt" SET DATA TYPE TIMESTAMPTZ(3) USING "createdAt" AT TIME ZONE 'UTC',
ALTER COLUMN "updatedAt" SET DATA TYPE TIMESTAMPTZ(3) USING "updatedAt" AT TIME ZONE 'UTC';

-- AlterTable
ALTER TABLE "verifications" ALTER COLUMN "expiresAt" SET DATA TYPE TIMESTAMPTZ(3) USING "expiresAt" AT TIME ZONE 'UTC',
ALTER COLUMN "createdAt" SET DATA TYPE TIMESTAMPTZ(3) USING "createdAt" AT TIME ZONE 'UTC',
ALTER COLUMN "updatedAt" SET DATA TYPE TIMESTAMPTZ(3) USING "updatedAt" AT TIME ZONE 'UTC';

-- AlterTable
ALTER TABLE "webhook_deliveries" ALTER COLUMN "nextAttemptAt" SET DATA TYPE TIMESTAMPTZ(3) USING "nextAttemptAt" AT TIME ZONE 'UTC',
ALTER COLUMN "deliveredAt" SET DATA TYPE TIMESTAMPTZ(3) USING "deliveredAt" AT TIME ZONE 'UTC',
ALTER COLUMN "createdAt" SET DATA TYPE TIMESTAMPTZ(3) USING "createdAt" AT TIME ZONE 'UTC',
ALTER COLUMN "updatedAt" SET DATA TYPE TIMESTAMPTZ(3) USING "updatedAt" AT TIME ZONE 'UTC';

-- AlterTable
ALTER TABLE "webhook_delivery_attempts" ALTER COLUMN "createdAt" SET DATA TYPE TIMESTAMPTZ(3) USING "createdAt" AT TIME ZONE 'UTC';

-- AlterTable
ALTER TABLE "webhook_subscriptions" ALTER COLUMN "disabledAt" SET DATA TYPE TIMESTAMPTZ(3) USING "disabledAt" AT TIME ZONE 'UTC',
ALTER COLUMN "createdAt" SET DATA TYPE TIMESTAMPTZ(3) USING "createdAt" AT TIME ZONE 'UTC',
ALTER COLUMN "updatedAt" SET DATA TYPE TIMESTAMPTZ(3) USING "updatedAt" AT TIME ZONE 'UTC',
ALTER COLUMN "failingSince" SET DATA TYPE TIMESTAMPTZ(3) USING "failingSince" AT TIME ZONE 'UTC';

-- The report totals take a tenant's local day of an entry's start. On `timestamptz`, `AT TIME ZONE zone`
-- gives the wall-clock time in that zone directly; the former `(startedAt AT TIME ZONE 'UTC') AT TIME ZONE
-- zone` would now shift it twice. Same days as before for the same instants, so the totals stay as they are.
CREATE OR REPLACE FUNCTION entry_day_totals_apply(added entries[], removed entries[]) RETURNS void
  LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_advisory_xact_lock_shared(entry_day_totals_lock_key(tenant_id))
     FROM (SELECT DISTINCT e."tenantId" AS tenant_id
             FROM (SELECT "tenantId" FROM unnest(added) UNION ALL SELECT "tenantId" FROM unnest(removed)) e
            ORDER BY 1) tenants;
  INSERT INTO entry_day_totals AS total
         ("tenantId", day, "projectId", billable, status, entries, "durationMinutes", "billableAmount", "costAmount")
  SELECT change."tenantId",
         (change."startedAt" AT TIME ZONE coalesce(t.settings->>'timezone', 'UTC'))::date,
         coalesce(change."projectId", ''), change.billable, change.status,
         sum(change.sign), coalesce(sum(change.sign * change."durationMinutes"), 0),
         coalesce(sum(change.sign * change."billableAmount"), 0), coalesce(sum(change.sign * change."costAmount"), 0)
    FROM (SELECT 1 AS sign, * FROM unnest(added) UNION ALL SELECT -1 AS sign, * FROM unnest(removed)) change
    -- A tenant being deleted is gone here already: its totals go with it (ON DELETE CASCADE).
    JOIN tenants t ON t.id = change."tenantId"
   WHERE change."endedAt" IS NOT NULL
   GROUP BY 1, 2, 3, 4, 5
  HAVING sum(change.sign) <> 0 OR coalesce(sum(change.sign * change."durationMinutes"), 0) <> 0
      OR coalesce(sum(change.sign * change."billableAmount"), 0) <> 0 OR coalesce(sum(change.sign * change."costAmount"), 0) <> 0
   ORDER BY 1, 2, 3, 4, 5
  ON CONFLICT ("tenantId", day, "projectId", billable, status) DO UPDATE
     SET entries = total.entries + excluded.entries,
         "durationMinutes" = total."durationMinutes" + excluded."durationMinutes",
         "billableAmount" = total."billableAmount" + excluded."billableAmount",
         "costAmount" = total."costAmount" + excluded."costAmount";
  INSERT INTO entry_week_totals AS total
         ("tenantId", week, "projectId", billable, status, entries, "durationMinutes", "billableAmount", "costAmount")
  SELECT change."tenantId",
         entry_week_start((change."startedAt" AT TIME ZONE coalesce(t.settings->>'timezone', 'UTC'))::date,
                          coalesce(t.settings->>'weekStart', 'monday')),
         coalesce(change."projectId", ''), change.billable, change.status,
         sum(change.sign), coalesce(sum(change.sign * change."durationMinutes"), 0),
         coalesce(sum(change.sign * change."billableAmount"), 0), coalesce(sum(change.sign * change."costAmount"), 0)
    FROM (SELECT 1 AS sign, * FROM unnest(added) UNION ALL SELECT -1 AS sign, * FROM unnest(removed)) change
    JOIN tenants t ON t.id = change."tenantId"
   WHERE change."endedAt" IS NOT NULL
   GROUP BY 1, 2, 3, 4, 5
  HAVING sum(change.sign) <> 0 OR coalesce(sum(change.sign * change."durationMinutes"), 0) <> 0
      OR coalesce(sum(change.sign * change."billableAmount"), 0) <> 0 OR coalesce(sum(change.sign * change."costAmount"), 0) <> 0
   ORDER BY 1, 2, 3, 4, 5
  ON CONFLICT ("tenantId", week, "projectId", billable, status) DO UPDATE
     SET entries = total.entries + excluded.entries,
         "durationMinutes" = total."durationMinutes" + excluded."durationMinutes",
         "billableAmount" = total."billableAmount" + excluded."billableAmount",
         "costAmount" = total."costAmount" + excluded."costAmount";
END $$;

CREATE OR REPLACE FUNCTION entry_day_totals_rebuild(tenant_id text, zone text) RETURNS void
  LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(entry_day_totals_lock_key(tenant_id));
  DELETE FROM entry_day_totals WHERE "tenantId" = tenant_id;
  INSERT INTO entry_day_totals
         ("tenantId", day, "projectId", billable, status, entries, "durationMinutes", "billableAmount", "costAmount")
  SELECT e."tenantId", (e."startedAt" AT TIME ZONE zone)::date,
         coalesce(e."projectId", ''), e.billable, e.status,
         count(*), coalesce(sum(e."durationMinutes"), 0), coalesce(sum(e."billableAmount"), 0), coalesce(sum(e."costAmount"), 0)
    FROM entries e
   WHERE e."tenantId" = tenant_id AND e."endedAt" IS NOT NULL
   GROUP BY 1, 2, 3, 4, 5;
  PERFORM entry_week_totals_rebuild(tenant_id);
END $$;
