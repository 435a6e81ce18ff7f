-- CreateTable
CREATE TABLE "entry_day_totals" (
    "tenantId" TEXT NOT NULL,
    "day" DATE NOT NULL,
    "projectId" TEXT NOT NULL DEFAULT '',
    "billable" BOOLEAN NOT NULL,
    "status" "EntryStatus" NOT NULL,
    "entries" INTEGER NOT NULL,
    "durationMinutes" BIGINT NOT NULL,
    "billableAmount" DECIMAL(16,2) NOT NULL,
    "costAmount" DECIMAL(16,2) NOT NULL,

    CONSTRAINT "entry_day_totals_pkey" PRIMARY KEY ("tenantId","day","projectId","billable","status")
);

-- AddForeignKey
ALTER TABLE "entry_day_totals" ADD CONSTRAINT "entry_day_totals_tenantId_fkey" FOREIGN KEY ("tenantId") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Reports read a tenant's summary from entry_day_totals instead of grouping every entry (one row per
-- tenant-local day, project, billable flag and status). It is kept exact in the transaction of
-- every write to entries by the statement triggers below, whatever writes (the API, imports, `tally
-- seed`, a foreign key's ON DELETE SET NULL): each statement's changed rows (its transition tables) are
-- added and subtracted in one upsert, in key order, so that two writers lock totals in the same order
-- and never deadlock on them. Only finished entries count (running timers are left out of reports); a
-- finished entry without durationMinutes (written by hand in SQL) counts with 0 minutes, as reports count it.
--
-- A day is the tenant's, so a change of the tenant's time zone rebuilds its totals. Entry writers take a
-- shared advisory lock per tenant before reading the time zone, the rebuild an exclusive one: a writer
-- either finishes before the rebuild reads the entries, or reads the new time zone after it commits.

-- A year of a tenant is tens of thousands of rows here: one process hashing them (37 ms for 63,000) beats
-- parallel workers sorting and merging them (66 ms), which the planner would otherwise choose.
ALTER TABLE "entry_day_totals" SET (parallel_workers = 0);

CREATE FUNCTION entry_day_totals_lock_key(tenant_id text) RETURNS bigint
  LANGUAGE sql IMMUTABLE AS $$ SELECT hashtextextended('entry_day_totals:' || tenant_id, 0) $$;

-- Adds `added` and subtracts `removed` (rows of entries).
CREATE FUNCTION entry_day_totals_apply(added entries[], removed entries[]) RETURNS void
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
END $$;

CREATE FUNCTION entry_day_totals_follow() RETURNS trigger
  LANGUAGE plpgsql AS $$
DECLARE
  added entries[];
  removed entries[];
BEGIN
  IF TG_OP = 'INSERT' THEN
    SELECT array_agg(n) INTO added FROM new_rows n WHERE n."endedAt" IS NOT NULL;
  ELSIF TG_OP = 'DELETE' THEN
    SELECT array_agg(o) INTO removed FROM old_rows o WHERE o."endedAt" IS NOT NULL;
  ELSE
    -- Only rows whose key or numbers changed: an edited description moves no total.
    SELECT array_agg(n), array_agg(o) INTO added, removed
      FROM old_rows o JOIN new_rows n ON n.id = o.id
     WHERE (o."startedAt", o."endedAt", o."projectId", o.billable, o.status, o."durationMinutes", o."billableAmount", o."costAmount")
           IS DISTINCT FROM
           (n."startedAt", n."endedAt", n."projectId", n.billable, n.status, n."durationMinutes", n."billableAmount", n."costAmount");
  END IF;
  IF added IS NOT NULL OR removed IS NOT NULL THEN
    PERFORM entry_day_totals_apply(coalesce(added, '{}'), coalesce(removed, '{}'));
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER entry_day_totals_insert AFTER INSERT ON entries
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION entry_day_totals_follow();
CREATE TRIGGER entry_day_totals_update AFTER UPDATE ON entries
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION entry_day_totals_follow();
CREATE TRIGGER entry_day_totals_delete AFTER DELETE ON entries
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION entry_day_totals_follow();

-- A tenant's totals, from its entries, in its time zone.
CREATE FUNCTION entry_day_totals_rebuild(tenant_id text, zone text) RETURNS void
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
END $$;

CREATE FUNCTION entry_day_totals_follow_time_zone() RETURNS trigger
  LANGUAGE plpgsql AS $$
BEGIN
  PERFORM entry_day_totals_rebuild(NEW.id, coalesce(NEW.settings->>'timezone', 'UTC'));
  RETURN NULL;
END $$;

CREATE TRIGGER entry_day_totals_time_zone AFTER UPDATE OF settings ON tenants
  FOR EACH ROW WHEN (OLD.settings->>'timezone' IS DISTINCT FROM NEW.settings->>'timezone')
  EXECUTE FUNCTION entry_day_totals_follow_time_zone();

-- The totals of the entries there are already.
SELECT entry_day_totals_rebuild(id, coalesce(settings->>'timezone', 'UTC')) FROM tenants ORDER BY id;
