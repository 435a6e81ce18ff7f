-- CreateTable
CREATE TABLE "entry_dimension_week_totals" (
    "tenantId" TEXT NOT NULL,
    "dimension" TEXT NOT NULL,
    "week" DATE NOT NULL,
    "key" TEXT NOT NULL,
    "billable" BOOLEAN NOT NULL,
    "status" "EntryStatus" NOT NULL,
    "currency" TEXT NOT NULL DEFAULT '',
    "entries" INTEGER NOT NULL,
    "durationMinutes" BIGINT NOT NULL,
    "billableAmount" DECIMAL(17,3) NOT NULL,
    "costAmount" DECIMAL(17,3) NOT NULL,

    CONSTRAINT "entry_dimension_week_totals_pkey" PRIMARY KEY ("tenantId","dimension","week","key","billable","status","currency")
);

-- AddForeignKey
ALTER TABLE "entry_dimension_week_totals" ADD CONSTRAINT "entry_dimension_week_totals_tenantId_fkey" FOREIGN KEY ("tenantId") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Summaries by member and by tag read the whole weeks of their period from entry_dimension_week_totals and
-- only the entries of the days at its ends (src/modules/insight/report/report.sql.ts says when): a year of a
-- tenant with a million entries is tens of thousands of rows here, not half a million entries. The table is
-- kept exact the way entry_day_totals and entry_week_totals are: in the statement triggers of every write to
-- entries (the API, imports, `tally seed`, bulk statements, a foreign key's ON DELETE SET NULL), one upsert
-- statement for a statement's changed rows, after the day and week rows and in key order (the same lock
-- order for every writer: no deadlock), under the same shared per-tenant advisory lock; only finished
-- entries count. An entry is in one `user` row (its member) and in one `tag` row per tag, '' standing for
-- none, as the report by tag groups it; an entry that moves between weeks, members, tags, statuses or
-- currencies leaves one row and joins another in that statement. The rows are rebuilt from the entries
-- with the week totals, under the exclusive lock, when the tenant's time zone or weekStart changes.
ALTER TABLE "entry_dimension_week_totals" SET (parallel_workers = 0);

-- Adds `added` and subtracts `removed` (rows of entries) in the member and tag rows.
CREATE FUNCTION entry_dimension_week_totals_apply(added entries[], removed entries[]) RETURNS void
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
END $$;

-- The trigger function of money_at_its_scale, with the member and the tags among what moves a total, and the
-- member and tag rows kept after the day and week rows.
CREATE OR REPLACE FUNCTION entry_day_totals_follow() RETURNS trigger
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
     WHERE (o."startedAt", o."endedAt", o."projectId", o.billable, o.status, o.currency, o."durationMinutes", o."billableAmount", o."costAmount",
            o."tenantUserId", o.tags)
           IS DISTINCT FROM
           (n."startedAt", n."endedAt", n."projectId", n.billable, n.status, n.currency, n."durationMinutes", n."billableAmount", n."costAmount",
            n."tenantUserId", n.tags);
  END IF;
  IF added IS NOT NULL OR removed IS NOT NULL THEN
    PERFORM entry_day_totals_apply(coalesce(added, '{}'), coalesce(removed, '{}'));
    PERFORM entry_dimension_week_totals_apply(coalesce(added, '{}'), coalesce(removed, '{}'));
  END IF;
  RETURN NULL;
END $$;

-- A tenant's member and tag rows, from its entries, by its time zone and weekStart (under its exclusive lock).
CREATE FUNCTION entry_dimension_week_totals_rebuild(tenant_id text) RETURNS void
  LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(entry_day_totals_lock_key(tenant_id));
  DELETE FROM entry_dimension_week_totals WHERE "tenantId" = tenant_id;
  INSERT INTO entry_dimension_week_totals
         ("tenantId", dimension, week, key, billable, status, currency, entries, "durationMinutes", "billableAmount", "costAmount")
  SELECT e."tenantId", grouped.dimension,
         entry_week_start((e."startedAt" AT TIME ZONE coalesce(t.settings->>'timezone', 'UTC'))::date, coalesce(t.settings->>'weekStart', 'monday')),
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
END $$;

-- The week totals of money_at_its_scale, and the member and tag rows with them: a change of the time zone
-- (entry_day_totals_rebuild) or of weekStart (entry_week_totals_follow_week_start) regroups both.
CREATE OR REPLACE FUNCTION entry_week_totals_rebuild(tenant_id text) RETURNS void
  LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM entry_week_totals WHERE "tenantId" = tenant_id;
  INSERT INTO entry_week_totals
         ("tenantId", week, "projectId", billable, status, currency, entries, "durationMinutes", "billableAmount", "costAmount")
  SELECT d."tenantId", entry_week_start(d.day, coalesce(t.settings->>'weekStart', 'monday')), d."projectId", d.billable, d.status, d.currency,
         sum(d.entries), sum(d."durationMinutes"), sum(d."billableAmount"), sum(d."costAmount")
    FROM entry_day_totals d JOIN tenants t ON t.id = d."tenantId"
   WHERE d."tenantId" = tenant_id AND d.entries <> 0
   GROUP BY 1, 2, 3, 4, 5, 6;
  PERFORM entry_dimension_week_totals_rebuild(tenant_id);
END $$;

-- The member and tag rows of the entries there are already.
SELECT entry_dimension_week_totals_rebuild(id) FROM tenants ORDER BY id;
