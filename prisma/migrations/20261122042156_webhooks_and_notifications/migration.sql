-- DropIndex
DROP INDEX "notifications_tenantId_createdAt_idx";

-- DropIndex
DROP INDEX "notifications_tenantUserId_readAt_createdAt_idx";

-- DropIndex
DROP INDEX "webhook_deliveries_status_nextAttemptAt_idx";

-- DropIndex
DROP INDEX "webhook_deliveries_subscriptionId_createdAt_idx";

-- DropIndex
DROP INDEX "webhook_subscriptions_tenantId_idx";

-- AlterTable
ALTER TABLE "webhook_subscriptions" ADD COLUMN     "failingSince" TIMESTAMP(3);

-- CreateIndex
CREATE INDEX "notifications_tenantId_tenantUserId_createdAt_id_idx" ON "notifications"("tenantId", "tenantUserId", "createdAt", "id");

-- CreateIndex
CREATE INDEX "notifications_unread_idx" ON "notifications"("tenantId", "tenantUserId", "createdAt", "id") WHERE ("readAt" IS NULL);

-- CreateIndex
CREATE INDEX "notifications_tenantUserId_idx" ON "notifications"("tenantUserId");

-- CreateIndex
CREATE INDEX "webhook_deliveries_subscriptionId_createdAt_id_idx" ON "webhook_deliveries"("subscriptionId", "createdAt", "id");

-- CreateIndex
CREATE INDEX "webhook_subscriptions_tenantId_createdAt_id_idx" ON "webhook_subscriptions"("tenantId", "createdAt", "id");

-- Wake-ups on commit: workers dispatch new events, API processes push them
-- and new notifications to live subscribers. The payloads carry ids only
-- (NOTIFY payloads stay under 8000 bytes), and listeners re-read the rows.
CREATE FUNCTION "tally_notify_event"() RETURNS trigger
    LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('tally_events', NEW."id" || ' ' || coalesce(NEW."tenantId", '-') || ' ' || NEW."type");
    RETURN NULL;
END
$$;

CREATE TRIGGER "events_notify" AFTER INSERT ON "events"
    FOR EACH ROW EXECUTE FUNCTION "tally_notify_event"();

CREATE FUNCTION "tally_notify_notification"() RETURNS trigger
    LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('tally_notifications', NEW."id" || ' ' || NEW."tenantUserId");
    RETURN NULL;
END
$$;

CREATE TRIGGER "notifications_notify" AFTER INSERT ON "notifications"
    FOR EACH ROW EXECUTE FUNCTION "tally_notify_notification"();
