-- New tenants require approval of their entries by default (the spec: "entries
-- have an approval step"). Tenants that exist keep what they had: one whose
-- settings never named approvalRequired read the old default, false, so that
-- is written down for them before the default changes.
UPDATE "tenants"
   SET "settings" = jsonb_set("settings", '{approvalRequired}', 'false'::jsonb, true)
 WHERE NOT ("settings" ? 'approvalRequired');
