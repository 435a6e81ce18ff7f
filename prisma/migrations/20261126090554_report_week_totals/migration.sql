-- CreateTable
CREATE TABLE "entry_week_totals" (
    "tenantId" TEXT NOT NULL,
    "week" DATE NOT NULL,
    "projectId" TEXT NOT NULL DEFAULT '',
    "billable" BOOLEAN NOT NULL,
    "status" "EntryStatus" NOT NULL,
    "entries" INTEGER NOT NULL,
    "durationMinutes" BIGINT NOT NULL,
    "billableAmount" DECIMAL(16,2) NOT NULL,
    "costAmount" DECIMAL(16,2) NOT NULL,

    CONSTRAINT "entry_week_totals_pkey" PRIMARY KEY ("tenantId","week","projectId","billable","status")
);

-- AddForeignKey
ALTER TABLE "entry_week_totals" ADD CONSTRAINT "entry_week_totals_tenantId_fkey" FOREIGN KEY ("tenantId") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Summaries that need nothing finer than a week (by project, client, billable flag, status or week) read
-- whole weeks from entry_week_totals and only the days at the ends of their period from entry_day_totals: a
-- year of a tenant with a million entries is some 15,000 rows here against 63,000 day rows. The week totals
-- are the day totals added up by the week each day is in, the tenant's weeks (its time zone and weekStart),
-- and are kept exact the same way: by entry_day_totals_apply, in the statement trigger of every write to
-- entries, with the same locks (day rows first, then week rows, each in key order, so that two writers
-- never wait on each other in a circle: two statements, since the parts of one statement run in no set
-- order); rebuilt with the day totals when the time zone changes, and on their own when weekStart changes.
ALTER TABLE "entry_week_totals" SET (parallel_workers = 0);

-- The first day of the week `day` is in, for a week starting on `week_start` (monday, sunday or saturday):
-- the day minus its distance from a known first day. The same arithmetic as the reports' week key.
CREATE FUNCTION entry_week_start(day date, week_start text) RETURNS date
  LANGUAGE sql IMMUTABLE AS $$
  SELECT day - ((day - CASE week_start WHEN 'sunday' THEN date '2000-01-02' WHEN 'saturday' THEN date '2000-01-01'
                                       ELSE date '2000-01-03' END) % 7 + 7) % 7
$$;

-- Adds `added` and subtracts `removed` (rows of entries), in the day totals and then the week totals.
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
         ((change."startedAt" AT TIME ZONE 'UTC') AT TIME ZONE coalesce(t.settings->>'timezone', 'UTC'))::date,
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
         entry_week_start(((change."startedAt" AT TIME ZONE 'UTC') AT TIME ZONE coalesce(t.settings->>'timezone', 'UTC'))::date,
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

-- A tenant's week totals, from its day totals, by its weekStart (the caller holds the tenant's exclusive lock).
CREATE FUNCTION entry_week_totals_rebuild(tenant_id text) RETURNS void
  LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM entry_week_totals WHERE "tenantId" = tenant_id;
  INSERT INTO entry_week_totals
         ("tenantId", week, "projectId", billable, status, entries, "durationMinutes", "billableAmount", "costAmount")
  SELECT d."tenantId", entry_week_start(d.day, coalesce(t.settings->>'weekStart', 'monday')), d."projectId", d.billable, d.status,
         sum(d.entries), sum(d."durationMinutes"), sum(d."billableAmount"), sum(d."costAmount")
    FROM entry_day_totals d JOIN tenants t ON t.id = d."tenantId"
   WHERE d."tenantId" = tenant_id AND d.entries <> 0
   GROUP BY 1, 2, 3, 4, 5;
END $$;

-- A tenant's totals, from its entries, in its time zone: the days, then the weeks from them.
CREATE OR REPLACE FUNCTION entry_day_totals_rebuild(tenant_id text, zone text) RETURNS void
  LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(entry_day_totals_lock_key(tenant_id));
  DELETE FROM entry_day_totals WHERE "tenantId" = tenant_id;
  INSERT INTO entry_day_totals
         ("tenantId", day, "projectId", billable, status, entries, "durationMinutes", "billableAmount", "costAmount")
  SELECT e."tenantId", ((e."startedAt" AT TIME ZONE 'UTC') AT TIME ZONE zone)::date,
         coalesce(e."projectId", ''), e.billable, e.status,
         count(*), coalesce(sum(e."durationMinutes"), 0), coalesce(sum(e."billableAmount"), 0), coalesce(sum(e."costAmount"), 0)
    FROM entries e
   WHERE e."tenantId" = tenant_id AND e."endedAt" IS NOT NULL
   GROUP BY 1, 2, 3, 4, 5;
  PERFORM entry_week_totals_rebuild(tenant_id);
END $$;

-- weekStart alone changed: the weeks are regrouped (a time-zone change rebuilds both through the trigger above).
CREATE FUNCTION entry_week_totals_follow_week_start() RETURNS trigger
  LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(entry_day_totals_lock_key(NEW.id));
  PERFORM entry_week_totals_rebuild(NEW.id);
  RETURN NULL;
END $$;

CREATE TRIGGER entry_week_totals_week_start AFTER UPDATE OF settings ON tenants
  FOR EACH ROW WHEN (OLD.settings->>'weekStart' IS DISTINCT FROM NEW.settings->>'weekStart'
                     AND OLD.settings->>'timezone' IS NOT DISTINCT FROM NEW.settings->>'timezone')
  EXECUTE FUNCTION entry_week_totals_follow_week_start();

-- The week totals of the day totals there are already.
SELECT entry_week_totals_rebuild(id) FROM tenants ORDER BY id;
