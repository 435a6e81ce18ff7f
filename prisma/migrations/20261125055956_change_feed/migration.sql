-- The change feed (GET /tenants/{tenantId}/events) reads a tenant's events by (txid, id), and only events of
-- transactions older than every transaction still running (pg_snapshot_xmin): ids are taken when a row is
-- written, not when it commits, so by id alone a reader could pass an event whose transaction commits later.
-- Events written before this migration all get its own transaction id and keep their order by id.
-- AlterTable
ALTER TABLE "events" ADD COLUMN     "txid" xid8 NOT NULL DEFAULT pg_current_xact_id();

-- CreateIndex
CREATE INDEX "events_tenantId_txid_id_idx" ON "events"("tenantId", "txid", "id");

-- CreateIndex
CREATE INDEX "events_tenantId_subjectId_createdAt_idx" ON "events"("tenantId", "subjectId", "createdAt");
