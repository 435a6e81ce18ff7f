-- AlterTable
ALTER TABLE "client_invoice_lines" ALTER COLUMN "unitPrice" SET DATA TYPE DECIMAL(13,3),
ALTER COLUMN "netAmount" SET DATA TYPE DECIMAL(15,3);

-- AlterTable
ALTER TABLE "client_invoice_payments" ALTER COLUMN "amount" SET DATA TYPE DECIMAL(15,3);

-- AlterTable
ALTER TABLE "client_invoices" ALTER COLUMN "discountAmount" SET DATA TYPE DECIMAL(15,3),
ALTER COLUMN "lineNet" SET DATA TYPE DECIMAL(15,3),
ALTER COLUMN "allowances" SET DATA TYPE DECIMAL(15,3),
ALTER COLUMN "taxBasis" SET DATA TYPE DECIMAL(15,3),
ALTER COLUMN "tax" SET DATA TYPE DECIMAL(15,3),
ALTER COLUMN "gross" SET DATA TYPE DECIMAL(15,3),
ALTER COLUMN "paid" SET DATA TYPE DECIMAL(15,3),
ALTER COLUMN "due" SET DATA TYPE DECIMAL(15,3);

-- AlterTable
ALTER TABLE "clients" ALTER COLUMN "hourlyRate" SET DATA TYPE DECIMAL(13,3);

-- AlterTable
ALTER TABLE "entries" ALTER COLUMN "hourlyRate" SET DATA TYPE DECIMAL(13,3),
ALTER COLUMN "billableAmount" SET DATA TYPE DECIMAL(15,3),
ALTER COLUMN "costAmount" SET DATA TYPE DECIMAL(15,3),
ALTER COLUMN "costRate" SET DATA TYPE DECIMAL(13,3);

-- AlterTable
ALTER TABLE "entry_day_totals" DROP CONSTRAINT "entry_day_totals_pkey",
ADD COLUMN     "currency" TEXT NOT NULL DEFAULT '',
ALTER COLUMN "billableAmount" SET DATA TYPE DECIMAL(17,3),
ALTER COLUMN "costAmount" SET DATA TYPE DECIMAL(17,3),
ADD CONSTRAINT "entry_day_totals_pkey" PRIMARY KEY ("tenantId", "day", "projectId", "billable", "status", "currency");

-- AlterTable
ALTER TABLE "entry_week_totals" DROP CONSTRAINT "entry_week_totals_pkey",
ADD COLUMN     "currency" TEXT NOT NULL DEFAULT '',
ALTER COLUMN "billableAmount" SET DATA TYPE DECIMAL(17,3),
ALTER COLUMN "costAmount" SET DATA TYPE DECIMAL(17,3),
ADD CONSTRAINT "entry_week_totals_pkey" PRIMARY KEY ("tenantId", "week", "projectId", "billable", "status", "currency");

-- AlterTable
ALTER TABLE "invoice_lines" ALTER COLUMN "netAmount" SET DATA TYPE DECIMAL(15,3);

-- AlterTable
ALTER TABLE "invoices" ALTER COLUMN "netAmount" SET DATA TYPE DECIMAL(15,3),
ALTER COLUMN "taxAmount" SET DATA TYPE DECIMAL(15,3),
ALTER COLUMN "totalAmount" SET DATA TYPE DECIMAL(15,3);

-- AlterTable
ALTER TABLE "project_members" ALTER COLUMN "hourlyRate" SET DATA TYPE DECIMAL(13,3);

-- AlterTable
ALTER TABLE "projects" ALTER COLUMN "hourlyRate" SET DATA TYPE DECIMAL(13,3),
ALTER COLUMN "budgetAmount" SET DATA TYPE DECIMAL(15,3);

-- AlterTable
ALTER TABLE "tenant_users" ALTER COLUMN "hourlyRate" SET DATA TYPE DECIMAL(13,3),
ALTER COLUMN "costRate" SET DATA TYPE DECIMAL(13,3);

-- Money at its scale (CONTRACT.md section 11). The money columns above take three decimals, the most any
-- currency Tally accepts has (KWD, BHD, JOD, OMR, TND: fils); the application holds each value to its own
-- currency's minor units (EUR 2, JPY 0) and prints it with exactly those. Values are kept as they were.
--
-- The report totals are kept per currency as well: amounts of two currencies are never added up (a report
-- answers `totalsByCurrency`). An entry's currency is the one it copied with its rates; '' stands for none
-- (entries from before the money model), which reports count in the tenant's currency. The functions below
-- are those of the report_rollup and report_week_totals migrations (as instants_with_time_zone left them),
-- with the currency in every key.
CREATE OR REPLACE FUNCTION entry_day_totals_apply(added entries[], removed entries[]) RETURNS void
  LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_advisory_xact_lock_shared(entry_day_totals_lock_key(tenant_id))
     FROM (SELECT DISTINCT e."tenantId" AS tenant_id
             FROM (SELECT "tenantId" FROM unnest(added) UNION ALL SELECT "tenantId" FROM unnest(removed)) e
            ORDER BY 1) tenants;
  INSERT INTO entry_day_totals AS total
         ("tenantId", day, "projectId", billable, status, currency, entries, "durationMinutes", "billableAmount", "costAmount")
  SELECT change."tenantId",
         (change."startedAt" AT TIME ZONE coalesce(t.settings->>'timezone', 'UTC'))::date,
         coalesce(change."projectId", ''), change.billable, change.status, coalesce(change.currency, ''),
         sum(change.sign), coalesce(sum(change.sign * change."durationMinutes"), 0),
         coalesce(sum(change.sign * change."billableAmount"), 0), coalesce(sum(change.sign * change."costAmount"), 0)
    FROM (SELECT 1 AS sign, * FROM unnest(added) UNION ALL SELECT -1 AS sign, * FROM unnest(removed)) change
    -- A tenant being deleted is gone here already: its totals go with it (ON DELETE CASCADE).
    JOIN tenants t ON t.id = change."tenantId"
   WHERE change."endedAt" IS NOT NULL
   GROUP BY 1, 2, 3, 4, 5, 6
  HAVING sum(change.sign) <> 0 OR coalesce(sum(change.sign * change."durationMinutes"), 0) <> 0
      OR coalesce(sum(change.sign * change."billableAmount"), 0) <> 0 OR coalesce(sum(change.sign * change."costAmount"), 0) <> 0
   ORDER BY 1, 2, 3, 4, 5, 6
  ON CONFLICT ("tenantId", day, "projectId", billable, status, currency) DO UPDATE
     SET entries = total.entries + excluded.entries,
         "durationMinutes" = total."durationMinutes" + excluded."durationMinutes",
         "billableAmount" = total."billableAmount" + excluded."billableAmount",
         "costAmount" = total."costAmount" + excluded."costAmount";
  INSERT INTO entry_week_totals AS total
         ("tenantId", week, "projectId", billable, status, currency, entries, "durationMinutes", "billableAmount", "costAmount")
  SELECT change."tenantId",
         entry_week_start((change."startedAt" AT TIME ZONE coalesce(t.settings->>'timezone', 'UTC'))::date,
                          coalesce(t.settings->>'weekStart', 'monday')),
         coalesce(change."projectId", ''), change.billable, change.status, coalesce(change.currency, ''),
         sum(change.sign), coalesce(sum(change.sign * change."durationMinutes"), 0),
         coalesce(sum(change.sign * change."billableAmount"), 0), coalesce(sum(change.sign * change."costAmount"), 0)
    FROM (SELECT 1 AS sign, * FROM unnest(added) UNION ALL SELECT -1 AS sign, * FROM unnest(removed)) change
    JOIN tenants t ON t.id = change."tenantId"
   WHERE change."endedAt" IS NOT NULL
   GROUP BY 1, 2, 3, 4, 5, 6
  HAVING sum(change.sign) <> 0 OR coalesce(sum(change.sign * change."durationMinutes"), 0) <> 0
      OR coalesce(sum(change.sign * change."billableAmount"), 0) <> 0 OR coalesce(sum(change.sign * change."costAmount"), 0) <> 0
   ORDER BY 1, 2, 3, 4, 5, 6
  ON CONFLICT ("tenantId", week, "projectId", billable, status, currency) DO UPDATE
     SET entries = total.entries + excluded.entries,
         "durationMinutes" = total."durationMinutes" + excluded."durationMinutes",
         "billableAmount" = total."billableAmount" + excluded."billableAmount",
         "costAmount" = total."costAmount" + excluded."costAmount";
END $$;

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
     WHERE (o."startedAt", o."endedAt", o."projectId", o.billable, o.status, o.currency, o."durationMinutes", o."billableAmount", o."costAmount")
           IS DISTINCT FROM
           (n."startedAt", n."endedAt", n."projectId", n.billable, n.status, n.currency, n."durationMinutes", n."billableAmount", n."costAmount");
  END IF;
  IF added IS NOT NULL OR removed IS NOT NULL THEN
    PERFORM entry_day_totals_apply(coalesce(added, '{}'), coalesce(removed, '{}'));
  END IF;
  RETURN NULL;
END $$;

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
END $$;

CREATE OR REPLACE FUNCTION entry_day_totals_rebuild(tenant_id text, zone text) RETURNS void
  LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(entry_day_totals_lock_key(tenant_id));
  DELETE FROM entry_day_totals WHERE "tenantId" = tenant_id;
  INSERT INTO entry_day_totals
         ("tenantId", day, "projectId", billable, status, currency, entries, "durationMinutes", "billableAmount", "costAmount")
  SELECT e."tenantId", (e."startedAt" AT TIME ZONE zone)::date,
         coalesce(e."projectId", ''), e.billable, e.status, coalesce(e.currency, ''),
         count(*), coalesce(sum(e."durationMinutes"), 0), coalesce(sum(e."billableAmount"), 0), coalesce(sum(e."costAmount"), 0)
    FROM entries e
   WHERE e."tenantId" = tenant_id AND e."endedAt" IS NOT NULL
   GROUP BY 1, 2, 3, 4, 5, 6;
  PERFORM entry_week_totals_rebuild(tenant_id);
END $$;

-- The totals of the entries there are already, per currency.
SELECT entry_day_totals_rebuild(id, coalesce(settings->>'timezone', 'UTC')) FROM tenants ORDER BY id;

-- A default rate was taken with up to four decimals; entries copied it in cents. Kept as they copied it.
UPDATE tenants
   SET settings = jsonb_set(settings, '{defaultHourlyRate}', to_jsonb(round((settings->>'defaultHourlyRate')::numeric, 2)::text))
 WHERE settings->>'defaultHourlyRate' ~ '^-?\d+\.\d{3,}$';
