-- DropIndex
DROP INDEX "entries_tenantId_projectId_startedAt_idx";

-- DropIndex
DROP INDEX "entries_tenantId_startedAt_idx";

-- DropIndex
DROP INDEX "entries_tenantId_status_idx";

-- DropIndex
DROP INDEX "entries_tenantId_tenantUserId_startedAt_idx";

-- DropIndex
DROP INDEX "projects_tenantId_status_name_idx";

-- DropIndex
DROP INDEX "task_lists_tenantId_position_idx";

-- DropIndex
DROP INDEX "tasks_taskListId_position_idx";

-- Full-text search. The vectors are generated columns, kept by the database
-- itself (hand-written: Prisma knows them as defaults of Unsupported fields).
-- Generated columns need immutable expressions, and array_to_string is only
-- stable, hence tally_words. (No semicolons in comments: Prisma's engine
-- splits migrations on them.)
CREATE FUNCTION "tally_words"(words TEXT[]) RETURNS TEXT
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS 'SELECT array_to_string(words, '' '')';

-- AlterTable
ALTER TABLE "entries" ADD COLUMN     "searchVector" tsvector GENERATED ALWAYS AS (
    setweight(to_tsvector('simple', coalesce("description", '')), 'A') ||
    setweight(to_tsvector('simple', "tally_words"("tags")), 'B')
) STORED;

-- AlterTable
ALTER TABLE "invoices" ADD COLUMN     "searchVector" tsvector GENERATED ALWAYS AS (
    setweight(to_tsvector('simple', coalesce("number", '')), 'A') ||
    setweight(to_tsvector('simple', coalesce("vendorName", '')), 'B') ||
    setweight(to_tsvector('simple', coalesce("ocrText", '')), 'C')
) STORED;

-- AlterTable
ALTER TABLE "projects" ADD COLUMN     "searchVector" tsvector GENERATED ALWAYS AS (
    setweight(to_tsvector('simple', coalesce("name", '') || ' ' || coalesce("code", '')), 'A') ||
    setweight(to_tsvector('simple', coalesce("clientName", '')), 'B') ||
    setweight(to_tsvector('simple', coalesce("description", '')), 'C')
) STORED;

-- CreateIndex
CREATE INDEX "entries_tenantId_startedAt_id_idx" ON "entries"("tenantId", "startedAt", "id");

-- CreateIndex
CREATE INDEX "entries_tenantId_tenantUserId_startedAt_id_idx" ON "entries"("tenantId", "tenantUserId", "startedAt", "id");

-- CreateIndex
CREATE INDEX "entries_tenantId_projectId_startedAt_id_idx" ON "entries"("tenantId", "projectId", "startedAt", "id");

-- CreateIndex
CREATE INDEX "entries_tenantId_status_startedAt_id_idx" ON "entries"("tenantId", "status", "startedAt", "id");

-- CreateIndex
CREATE INDEX "entries_searchVector_idx" ON "entries" USING GIN ("searchVector");

-- CreateIndex
CREATE INDEX "invoices_tenantId_createdAt_id_idx" ON "invoices"("tenantId", "createdAt", "id");

-- CreateIndex
CREATE INDEX "invoices_searchVector_idx" ON "invoices" USING GIN ("searchVector");

-- CreateIndex
CREATE INDEX "projects_tenantId_createdAt_id_idx" ON "projects"("tenantId", "createdAt", "id");

-- CreateIndex
CREATE INDEX "projects_tenantId_status_createdAt_id_idx" ON "projects"("tenantId", "status", "createdAt", "id");

-- CreateIndex
CREATE INDEX "projects_searchVector_idx" ON "projects" USING GIN ("searchVector");

-- CreateIndex
CREATE INDEX "task_lists_tenantId_createdAt_id_idx" ON "task_lists"("tenantId", "createdAt", "id");

-- CreateIndex
CREATE INDEX "tasks_tenantId_taskListId_position_id_idx" ON "tasks"("tenantId", "taskListId", "position", "id");

-- CreateIndex
CREATE INDEX "tasks_tenantId_createdAt_id_idx" ON "tasks"("tenantId", "createdAt", "id");

-- CreateIndex
CREATE INDEX "vehicles_tenantId_createdAt_id_idx" ON "vehicles"("tenantId", "createdAt", "id");
