-- Imports (CONTRACT.md section 8): each CSV file is an `imports` row its job works through in batches,
-- committing `rowsDone` and the counts with each batch's entries, so a job that dies resumes after the
-- last batch it committed. An imported entry keeps its row's fingerprint; the partial unique index makes
-- a second import of the same row (in this file or another) insert nothing, and costs entries written
-- by hand nothing. Projects are matched by name, hence (tenantId, name).

-- CreateEnum
CREATE TYPE "ImportSource" AS ENUM ('toggl', 'clockify', 'harvest', 'kimai', 'generic');

-- CreateEnum
CREATE TYPE "ImportStatus" AS ENUM ('queued', 'running', 'done', 'failed');

-- AlterTable
ALTER TABLE "entries" ADD COLUMN     "importFingerprint" TEXT;

-- CreateTable
CREATE TABLE "imports" (
    "id" TEXT NOT NULL,
    "tenantId" TEXT NOT NULL,
    "source" "ImportSource" NOT NULL,
    "status" "ImportStatus" NOT NULL DEFAULT 'queued',
    "dryRun" BOOLEAN NOT NULL DEFAULT false,
    "timezone" TEXT NOT NULL,
    "entryStatus" "EntryStatus" NOT NULL DEFAULT 'approved',
    "mapping" JSONB,
    "fileName" TEXT NOT NULL,
    "fileSize" INTEGER NOT NULL,
    "fileSha256" TEXT NOT NULL,
    "fileKey" TEXT,
    "createdById" TEXT,
    "actorType" "ActorType" NOT NULL,
    "actorId" TEXT,
    "rowsDone" INTEGER NOT NULL DEFAULT 0,
    "imported" INTEGER NOT NULL DEFAULT 0,
    "skipped" INTEGER NOT NULL DEFAULT 0,
    "failed" INTEGER NOT NULL DEFAULT 0,
    "errors" JSONB NOT NULL DEFAULT '[]',
    "createdClients" INTEGER NOT NULL DEFAULT 0,
    "createdProjects" INTEGER NOT NULL DEFAULT 0,
    "createdTasks" INTEGER NOT NULL DEFAULT 0,
    "createdMembers" INTEGER NOT NULL DEFAULT 0,
    "lastError" TEXT,
    "startedAt" TIMESTAMP(3),
    "finishedAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "imports_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "imports_tenantId_createdAt_id_idx" ON "imports"("tenantId", "createdAt", "id");

-- CreateIndex
CREATE UNIQUE INDEX "entries_import_fingerprint_key" ON "entries"("tenantId", "importFingerprint") WHERE ("importFingerprint" IS NOT NULL);

-- CreateIndex
CREATE INDEX "projects_tenantId_name_idx" ON "projects"("tenantId", "name");

-- AddForeignKey
ALTER TABLE "imports" ADD CONSTRAINT "imports_tenantId_fkey" FOREIGN KEY ("tenantId") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;
