-- AlterTable
ALTER TABLE "tenant_users" ADD COLUMN     "employmentEnd" DATE,
ADD COLUMN     "employmentStart" DATE;

-- CreateTable
CREATE TABLE "time_balance_corrections" (
    "id" TEXT NOT NULL,
    "tenantId" TEXT NOT NULL,
    "tenantUserId" TEXT NOT NULL,
    "date" DATE NOT NULL,
    "minutes" INTEGER NOT NULL,
    "reason" TEXT NOT NULL,
    "actorType" "ActorType" NOT NULL,
    "actorId" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "time_balance_corrections_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "time_balance_caps" (
    "tenantUserId" TEXT NOT NULL,
    "tenantId" TEXT NOT NULL,
    "overCap" BOOLEAN NOT NULL,
    "balanceMinutes" INTEGER NOT NULL,
    "checkedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "time_balance_caps_pkey" PRIMARY KEY ("tenantUserId")
);

-- CreateIndex
CREATE INDEX "time_balance_corrections_tenantId_tenantUserId_date_idx" ON "time_balance_corrections"("tenantId", "tenantUserId", "date");

-- CreateIndex
CREATE INDEX "time_balance_caps_tenantId_idx" ON "time_balance_caps"("tenantId");

-- AddForeignKey
ALTER TABLE "time_balance_corrections" ADD CONSTRAINT "time_balance_corrections_tenantId_fkey" FOREIGN KEY ("tenantId") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "time_balance_corrections" ADD CONSTRAINT "time_balance_corrections_tenantUserId_fkey" FOREIGN KEY ("tenantUserId") REFERENCES "tenant_users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "time_balance_caps" ADD CONSTRAINT "time_balance_caps_tenantId_fkey" FOREIGN KEY ("tenantId") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "time_balance_caps" ADD CONSTRAINT "time_balance_caps_tenantUserId_fkey" FOREIGN KEY ("tenantUserId") REFERENCES "tenant_users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- The API answers 400 naming employmentEnd first; this keeps any other writer to the same rule.
ALTER TABLE "tenant_users" ADD CONSTRAINT "tenant_users_employment_order" CHECK ("employmentEnd" IS NULL OR "employmentStart" IS NULL OR "employmentEnd" >= "employmentStart");
