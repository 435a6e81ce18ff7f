-- CreateTable
CREATE TABLE "entry_dimension_day_totals" (
    "tenantId" TEXT NOT NULL,
    "dimension" TEXT NOT NULL,
    "day" DATE NOT NULL,
    "key" TEXT NOT NULL,
    "billable" BOOLEAN NOT NULL,
    "status" "EntryStatus" NOT NULL,
    "currency" TEXT NOT NULL DEFAULT '',
    "entries" INTEGER NOT NULL,
    "durationMinutes" BIGINT NOT NULL,
    "billableAmount" DECIMAL(17,3) NOT NULL,
    "costAmount" DECIMAL(17,3) NOT NULL,

    CONSTRAINT "entry_dimension_day_totals_pkey" PRIMARY KEY ("tenantId","dimension","day","key","billable","status","currency")
);

-- AddForeignKey
ALTER TABLE "entry_dimension_day_totals" ADD CONSTRAINT "entry_dimension_day_totals_tenantId_fkey" FOREIGN KEY ("tenantId") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- The member and tag totals of 20261129071618_report_member_tag_totals by the tenant's local day as well. A summary
-- by member or by tag reads a period's whole weeks from entry_dimension_week_totals and the days before its first
-- and after its last whole week from here (at most six at each end: a calendar year has them), no longer from the
-- entries: at a million entries those ends were some 16,000 entries scattered over the heap, 80 ms of a 112 ms
-- summary, where they are some 5,000 rows here. Kept exact the same way, by the same function, in the same
-- transaction: one more upsert, after the week rows (lock order for every writer: day rows, week rows, member and
-- tag week rows, member and tag day rows), under the same shared per-tenant advisory lock; rebuilt with the week
-- rows when the time zone or weekStart changes.
ALTER TABLE "entry_dimension_day_totals" SET (parallel_workers = 0);

-- Adds `added` and subtracts `removed` (rows of entries) in the member and tag rows: the weeks, then the days. Two
-- statements that group the change each, not one grouping in a set-returning SQL function both read: such a function
-- is planned anew at every call, and made an entry INSERT 1.4 ms slower, where the second statement costs 0.2 ms.
CREATE OR REPLACE FUNCTION entry_dimension_week_totals_apply(added entries[], removed entries[]) RETURNS void
  LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO entry_dimension_week_totals AS total
         ("tenantId", dimension, week, key, billable, status, currency, entries, "durationMinutes", "billableAmount", "costAmount")
  SELECT change."tenantId", grouped.dimension,
         entry_week_start((change."startedAt" AT TIME ZONE coalesce(t.settings->>'timezone', 'UTC'))::date,
                          coalesce(t.settings->>'weekStart', 'monday')),
         grouped.key, change.billable, change.status, coalesce(change.currency, ''),
         sum(change.sign), coalesce(sum(change.sign * change."durationMinutes"), 0),
         coalesce(sum(change.sign * change."billableAmount"), 0), coalesce(sum(change.sign * change."costAmount"), 0)
    FROM (SELECT 1 AS sign, * FROM unnest(added) UNION ALL SELECT -1 AS sign, * FROM unnest(removed)) change
    -- A tenant being deleted is gone here already: its totals go with it (ON DELETE CASCADE).
    JOIN tenants t ON t.id = change."tenantId"
   CROSS JOIN LATERAL (SELECT 'user' AS dimension, change."tenantUserId" AS key
                       UNION ALL
                       SELECT 'tag', tag.value
                         FROM unnest(CASE WHEN coalesce(cardinality(change.tags), 0) = 0 THEN ARRAY[''] ELSE change.tags END) AS tag(value)) grouped
   WHERE change."endedAt" IS NOT NULL
   GROUP BY 1, 2, 3, 4, 5, 6, 7
  HAVING sum(change.sign) <> 0 OR coalesce(sum(change.sign * change."durationMinutes"), 0) <> 0
      OR coalesce(sum(change.sign * change."billableAmount"), 0) <> 0 OR coalesce(sum(change.sign * change."costAmount"), 0) <> 0
   ORDER BY 1, 2, 3, 4, 5, 6, 7
  ON CONFLICT ("tenantId", dimension, week, key, billable, status, currency) DO UPDATE
     SET entries = total.entries + excluded.entries,
         "durationMinutes" = total."durationMinutes" + excluded."durationMinutes",
         "billableAmount" = total."billableAmount" + excluded."billableAmount",
         "costAmount" = total."costAmount" + excluded."costAmount";
  INSERT INTO entry_dimension_day_totals AS total
         ("tenantId", dimension, day, key, billable, status, currency, entries, "durationMinutes", "billableAmount", "costAmount")
  SELECT change."tenantId", grouped.dimension,
         (change."startedAt" AT TIME ZONE coalesce(t.settings->>'timezone', 'UTC'))::date,
         grouped.key, change.billable, change.status, coalesce(change.currency, ''),
         sum(change.sign), coalesce(sum(change.sign * change."durationMinutes"), 0),
         coalesce(sum(change.sign * change."billableAmount"), 0), coalesce(sum(change.sign * change."costAmount"), 0)
    FROM (SELECT 1 AS sign, * FROM unnest(added) UNION ALL SELECT -1 AS sign, * FROM unnest(removed)) change
    JOIN tenants t ON t.id = change."tenantId"
   CROSS JOIN LATERAL (SELECT 'user' AS dimension, change."tenantUserId" AS key
                       UNION ALL
                       SELECT 'tag', tag.value
                         FROM unnest(CASE WHEN coalesce(cardinality(change.tags), 0) = 0 THEN ARRAY[''] ELSE change.tags END) AS tag(value)) grouped
   WHERE change."endedAt" IS NOT NULL
   GROUP BY 1, 2, 3, 4, 5, 6, 7
  HAVING sum(change.sign) <> 0 OR coalesce(sum(change.sign * change."durationMinutes"), 0) <> 0
      OR coalesce(sum(change.sign * change."billableAmount"), 0) <> 0 OR coalesce(sum(change.sign * change."costAmount"), 0) <> 0
   ORDER BY 1, 2, 3, 4, 5, 6, 7
  ON CONFLICT ("tenantId", dimension, day, key, billable, status, currency) DO UPDATE
     SET entries = total.entries + excluded.entries,
         "durationMinutes" = total."durationMinutes" + excluded."durationMinutes",
         "billableAmount" = total."billableAmount" + excluded."billableAmount",
         "costAmount" = total."costAmount" + excluded."costAmount";
END $$;

-- A tenant's member and tag rows, from its entries, by its time zone and weekStart (under its exclusive lock): the
-- days from the entries, the weeks from the days.
CREATE OR REPLACE FUNCTION entry_dimension_week_totals_rebuild(tenant_id text) RETURNS void
  LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(entry_day_totals_lock_key(tenant_id));
  DELETE FROM entry_dimension_week_totals WHERE "tenantId" = tenant_id;
  DELETE FROM entry_dimension_day_totals WHERE "tenantId" = tenant_id;
  INSERT INTO entry_dimension_day_totals
         ("tenantId", dimension, day, key, billable, status, currency, entries, "durationMinutes", "billableAmount", "costAmount")
  SELECT e."tenantId", grouped.dimension, (e."startedAt" AT TIME ZONE coalesce(t.settings->>'timezone', 'UTC'))::date,
         grouped.key, e.billable, e.status, coalesce(e.currency, ''),
         count(*), coalesce(sum(e."durationMinutes"), 0), coalesce(sum(e."billableAmount"), 0), coalesce(sum(e."costAmount"), 0)
    FROM entries e
    JOIN tenants t ON t.id = e."tenantId"
   CROSS JOIN LATERAL (SELECT 'user' AS dimension, e."tenantUserId" AS key
                       UNION ALL
                       SELECT 'tag', tag.value
                         FROM unnest(CASE WHEN coalesce(cardinality(e.tags), 0) = 0 THEN ARRAY[''] ELSE e.tags END) AS tag(value)) grouped
   WHERE e."tenantId" = tenant_id AND e."endedAt" IS NOT NULL
   GROUP BY 1, 2, 3, 4, 5, 6, 7;
  INSERT INTO entry_dimension_week_totals
         ("tenantId", dimension, week, key, billable, status, currency, entries, "durationMinutes", "billableAmount", "costAmount")
  SELECT d."tenantId", d.dimension, entry_week_start(d.day, coalesce(t.settings->>'weekStart', 'monday')), d.key, d.billable, d.status, d.currency,
         sum(d.entries), sum(d."durationMinutes"), sum(d."billableAmount"), sum(d."costAmount")
    FROM entry_dimension_day_totals d JOIN tenants t ON t.id = d."tenantId"
   WHERE d."tenantId" = tenant_id
   GROUP BY 1, 2, 3, 4, 5, 6, 7;
END $$;

-- The member and tag rows of the entries there are already, by day and (again, the same sums) by week, each tenant
-- under its exclusive lock as a time-zone change rebuilds them.
SELECT entry_dimension_week_totals_rebuild(id) FROM tenants ORDER BY id;
