-- CreateEnum
CREATE TYPE "BudgetPeriod" AS ENUM ('total', 'monthly');

-- AlterTable
ALTER TABLE "entries" ADD COLUMN     "billableAmount" DECIMAL(14,2),
ADD COLUMN     "costAmount" DECIMAL(14,2),
ADD COLUMN     "costRate" DECIMAL(12,2),
ADD COLUMN     "currency" TEXT;

-- AlterTable (clientName goes once its names are clients, below)
ALTER TABLE "projects" ADD COLUMN     "budgetPeriod" "BudgetPeriod" NOT NULL DEFAULT 'total',
ADD COLUMN     "clientId" TEXT;

-- CreateTable
CREATE TABLE "clients" (
    "id" TEXT NOT NULL,
    "tenantId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "currency" TEXT NOT NULL,
    "hourlyRate" DECIMAL(12,2),
    "notes" TEXT,
    "archived" BOOLEAN NOT NULL DEFAULT false,
    "searchVector" tsvector GENERATED ALWAYS AS (to_tsvector('simple', coalesce("name", ''))) STORED,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "clients_pkey" PRIMARY KEY ("id")
);

-- Data: every distinct client name of a tenant becomes a client (in the
-- tenant's currency, created when its first project was), and its projects
-- point to it. Ids are UUIDv7 like the application's: the time in the first
-- 48 bits, version 7.
INSERT INTO "clients" ("id", "tenantId", "name", "currency", "createdAt", "updatedAt")
SELECT encode(set_bit(set_bit(overlay(uuid_send(gen_random_uuid())
         placing substring(int8send(floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint) FROM 3) FROM 1 FOR 6), 52, 1), 53, 1), 'hex')::uuid::text,
       p."tenantId",
       p."clientName",
       coalesce(t."settings"->>'currency', 'EUR'),
       min(p."createdAt"),
       CURRENT_TIMESTAMP
  FROM "projects" p
  JOIN "tenants" t ON t."id" = p."tenantId"
 WHERE p."clientName" IS NOT NULL
 GROUP BY p."tenantId", p."clientName", t."settings";

UPDATE "projects" p
   SET "clientId" = c."id"
  FROM "clients" c
 WHERE c."tenantId" = p."tenantId" AND c."name" = p."clientName";

-- The project's search no longer carries the client's name (a client is found by its own), so the generated column is made anew.
DROP INDEX "projects_searchVector_idx";
ALTER TABLE "projects" DROP COLUMN "searchVector";
ALTER TABLE "projects" DROP COLUMN "clientName";
ALTER TABLE "projects" ADD COLUMN "searchVector" tsvector GENERATED ALWAYS AS (
    setweight(to_tsvector('simple', coalesce("name", '') || ' ' || coalesce("code", '')), 'A') ||
    setweight(to_tsvector('simple', coalesce("description", '')), 'C')
) STORED;
CREATE INDEX "projects_searchVector_idx" ON "projects" USING GIN ("searchVector");

-- CreateTable
CREATE TABLE "project_members" (
    "id" TEXT NOT NULL,
    "tenantId" TEXT NOT NULL,
    "projectId" TEXT NOT NULL,
    "tenantUserId" TEXT NOT NULL,
    "hourlyRate" DECIMAL(12,2),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "project_members_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "budget_alerts" (
    "projectId" TEXT NOT NULL,
    "metric" TEXT NOT NULL,
    "threshold" INTEGER NOT NULL,
    "period" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "budget_alerts_pkey" PRIMARY KEY ("projectId","metric","threshold","period")
);

-- CreateIndex
CREATE INDEX "clients_tenantId_createdAt_id_idx" ON "clients"("tenantId", "createdAt", "id");

-- CreateIndex
CREATE INDEX "clients_tenantId_archived_createdAt_id_idx" ON "clients"("tenantId", "archived", "createdAt", "id");

-- CreateIndex
CREATE INDEX "clients_searchVector_idx" ON "clients" USING GIN ("searchVector");

-- CreateIndex
CREATE UNIQUE INDEX "clients_tenantId_name_key" ON "clients"("tenantId", "name");

-- CreateIndex
CREATE INDEX "project_members_projectId_createdAt_id_idx" ON "project_members"("projectId", "createdAt", "id");

-- CreateIndex
CREATE INDEX "project_members_tenantUserId_idx" ON "project_members"("tenantUserId");

-- CreateIndex
CREATE UNIQUE INDEX "project_members_projectId_tenantUserId_key" ON "project_members"("projectId", "tenantUserId");

-- CreateIndex
CREATE INDEX "projects_clientId_createdAt_id_idx" ON "projects"("clientId", "createdAt", "id");

-- AddForeignKey
ALTER TABLE "clients" ADD CONSTRAINT "clients_tenantId_fkey" FOREIGN KEY ("tenantId") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "project_members" ADD CONSTRAINT "project_members_projectId_fkey" FOREIGN KEY ("projectId") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "project_members" ADD CONSTRAINT "project_members_tenantUserId_fkey" FOREIGN KEY ("tenantUserId") REFERENCES "tenant_users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "budget_alerts" ADD CONSTRAINT "budget_alerts_projectId_fkey" FOREIGN KEY ("projectId") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "projects" ADD CONSTRAINT "projects_clientId_fkey" FOREIGN KEY ("clientId") REFERENCES "clients"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
