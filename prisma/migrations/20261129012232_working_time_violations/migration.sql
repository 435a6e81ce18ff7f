-- CreateTable
CREATE TABLE "working_time_violations" (
    "id" TEXT NOT NULL,
    "tenantId" TEXT NOT NULL,
    "tenantUserId" TEXT NOT NULL,
    "date" DATE NOT NULL,
    "rule" TEXT NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "working_time_violations_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "working_time_violations_tenantUserId_idx" ON "working_time_violations"("tenantUserId");

-- CreateIndex
CREATE UNIQUE INDEX "working_time_violations_tenantId_tenantUserId_date_rule_key" ON "working_time_violations"("tenantId", "tenantUserId", "date", "rule");

-- AddForeignKey
ALTER TABLE "working_time_violations" ADD CONSTRAINT "working_time_violations_tenantId_fkey" FOREIGN KEY ("tenantId") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "working_time_violations" ADD CONSTRAINT "working_time_violations_tenantUserId_fkey" FOREIGN KEY ("tenantUserId") REFERENCES "tenant_users"("id") ON DELETE CASCADE ON UPDATE CASCADE;
