-- DropIndex
DROP INDEX "invoices_tenantId_emailMessageId_key";

-- DropIndex
DROP INDEX "syncs_tenantId_idx";

-- AlterTable
ALTER TABLE "invoices" ADD COLUMN     "lastError" TEXT;

-- CreateIndex
CREATE INDEX "invoices_tenantId_uploadedById_createdAt_id_idx" ON "invoices"("tenantId", "uploadedById", "createdAt", "id");

-- CreateIndex
CREATE INDEX "invoices_tenantId_emailMessageId_idx" ON "invoices"("tenantId", "emailMessageId");

-- CreateIndex
CREATE UNIQUE INDEX "invoices_tenantId_sha256_key" ON "invoices"("tenantId", "sha256");

-- CreateIndex
CREATE INDEX "syncs_tenantId_createdAt_id_idx" ON "syncs"("tenantId", "createdAt", "id");
