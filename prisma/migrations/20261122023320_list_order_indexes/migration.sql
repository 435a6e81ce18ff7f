-- DropIndex
DROP INDEX "api_keys_tenantId_id_idx";

-- DropIndex
DROP INDEX "notes_tenantId_id_idx";

-- CreateIndex
CREATE INDEX "api_keys_tenantId_createdAt_id_idx" ON "api_keys"("tenantId", "createdAt", "id");

-- CreateIndex
CREATE INDEX "notes_tenantId_createdAt_id_idx" ON "notes"("tenantId", "createdAt", "id");

-- CreateIndex
CREATE INDEX "tenant_users_tenantId_createdAt_id_idx" ON "tenant_users"("tenantId", "createdAt", "id");
