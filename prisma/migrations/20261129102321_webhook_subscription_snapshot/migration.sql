-- A subscription gets only the events committed after it exists: its creating snapshot says which were.
-- The subscriptions there are already see no transaction ('1:1:'): every event still pending at the upgrade is
-- delivered to them, as before.
ALTER TABLE "webhook_subscriptions" ADD COLUMN     "createdSnapshot" pg_snapshot NOT NULL DEFAULT '1:1:';
ALTER TABLE "webhook_subscriptions" ALTER COLUMN "createdSnapshot" SET DEFAULT pg_current_snapshot();
