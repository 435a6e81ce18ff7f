-- CreateEnum
CREATE TYPE "AbsenceKind" AS ENUM ('vacation', 'sickness', 'overtime', 'unpaid', 'other');

-- CreateEnum
CREATE TYPE "AbsenceStatus" AS ENUM ('pending', 'approved', 'rejected', 'cancelled');

-- CreateEnum
CREATE TYPE "HalfDay" AS ENUM ('am', 'pm');

-- AlterTable
ALTER TABLE "tenant_users" ADD COLUMN     "holidayRegion" TEXT;

-- CreateTable
CREATE TABLE "work_schedules" (
    "id" TEXT NOT NULL,
    "tenantId" TEXT NOT NULL,
    "tenantUserId" TEXT NOT NULL,
    "validFrom" DATE NOT NULL,
    "minutes" INTEGER[],
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "work_schedules_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "holidays" (
    "id" TEXT NOT NULL,
    "tenantId" TEXT NOT NULL,
    "date" DATE NOT NULL,
    "name" TEXT NOT NULL,
    "fraction" DOUBLE PRECISION NOT NULL DEFAULT 1,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "holidays_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "absence_types" (
    "id" TEXT NOT NULL,
    "tenantId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "kind" "AbsenceKind" NOT NULL,
    "countsAsWork" BOOLEAN NOT NULL,
    "deductsVacation" BOOLEAN NOT NULL,
    "needsApproval" BOOLEAN NOT NULL,
    "archived" BOOLEAN NOT NULL DEFAULT false,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "absence_types_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "absences" (
    "id" TEXT NOT NULL,
    "tenantId" TEXT NOT NULL,
    "tenantUserId" TEXT NOT NULL,
    "absenceTypeId" TEXT NOT NULL,
    "startDate" DATE NOT NULL,
    "endDate" DATE NOT NULL,
    "halfDay" "HalfDay",
    "note" TEXT,
    "status" "AbsenceStatus" NOT NULL DEFAULT 'pending',
    "reviewedById" TEXT,
    "reviewedAt" TIMESTAMPTZ(3),
    "rejectionReason" TEXT,
    "cancelledAt" TIMESTAMPTZ(3),
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "absences_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "vacation_allowances" (
    "id" TEXT NOT NULL,
    "tenantId" TEXT NOT NULL,
    "tenantUserId" TEXT NOT NULL,
    "year" INTEGER NOT NULL,
    "allowanceDays" DECIMAL(5,1) NOT NULL,
    "carriedOverDays" DECIMAL(5,1),
    "carryOverExpires" DATE,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "vacation_allowances_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "vacation_corrections" (
    "id" TEXT NOT NULL,
    "tenantId" TEXT NOT NULL,
    "tenantUserId" TEXT NOT NULL,
    "year" INTEGER NOT NULL,
    "days" DECIMAL(5,1) NOT NULL,
    "reason" TEXT NOT NULL,
    "actorType" "ActorType" NOT NULL,
    "actorId" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "vacation_corrections_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "calendar_tokens" (
    "id" TEXT NOT NULL,
    "tenantId" TEXT NOT NULL,
    "tenantUserId" TEXT NOT NULL,
    "tokenHash" TEXT NOT NULL,
    "prefix" TEXT NOT NULL,
    "lastUsedAt" TIMESTAMPTZ(3),
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "calendar_tokens_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "work_schedules_tenantId_tenantUserId_validFrom_idx" ON "work_schedules"("tenantId", "tenantUserId", "validFrom");

-- CreateIndex
CREATE UNIQUE INDEX "work_schedules_tenantUserId_validFrom_key" ON "work_schedules"("tenantUserId", "validFrom");

-- CreateIndex
CREATE UNIQUE INDEX "holidays_tenantId_date_key" ON "holidays"("tenantId", "date");

-- CreateIndex
CREATE INDEX "absence_types_tenantId_createdAt_id_idx" ON "absence_types"("tenantId", "createdAt", "id");

-- CreateIndex
CREATE UNIQUE INDEX "absence_types_tenantId_name_key" ON "absence_types"("tenantId", "name");

-- CreateIndex
CREATE INDEX "absences_tenantId_startDate_id_idx" ON "absences"("tenantId", "startDate", "id");

-- CreateIndex
CREATE INDEX "absences_tenantId_tenantUserId_startDate_id_idx" ON "absences"("tenantId", "tenantUserId", "startDate", "id");

-- CreateIndex
CREATE INDEX "absences_tenantId_status_startDate_id_idx" ON "absences"("tenantId", "status", "startDate", "id");

-- CreateIndex
CREATE INDEX "absences_absenceTypeId_idx" ON "absences"("absenceTypeId");

-- CreateIndex
CREATE INDEX "vacation_allowances_tenantId_tenantUserId_year_idx" ON "vacation_allowances"("tenantId", "tenantUserId", "year");

-- CreateIndex
CREATE UNIQUE INDEX "vacation_allowances_tenantUserId_year_key" ON "vacation_allowances"("tenantUserId", "year");

-- CreateIndex
CREATE INDEX "vacation_corrections_tenantId_tenantUserId_year_createdAt_idx" ON "vacation_corrections"("tenantId", "tenantUserId", "year", "createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "calendar_tokens_tenantUserId_key" ON "calendar_tokens"("tenantUserId");

-- CreateIndex
CREATE UNIQUE INDEX "calendar_tokens_tokenHash_key" ON "calendar_tokens"("tokenHash");

-- CreateIndex
CREATE INDEX "calendar_tokens_tenantId_createdAt_id_idx" ON "calendar_tokens"("tenantId", "createdAt", "id");

-- AddForeignKey
ALTER TABLE "work_schedules" ADD CONSTRAINT "work_schedules_tenantId_fkey" FOREIGN KEY ("tenantId") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "work_schedules" ADD CONSTRAINT "work_schedules_tenantUserId_fkey" FOREIGN KEY ("tenantUserId") REFERENCES "tenant_users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "holidays" ADD CONSTRAINT "holidays_tenantId_fkey" FOREIGN KEY ("tenantId") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "absence_types" ADD CONSTRAINT "absence_types_tenantId_fkey" FOREIGN KEY ("tenantId") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "absences" ADD CONSTRAINT "absences_tenantId_fkey" FOREIGN KEY ("tenantId") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "absences" ADD CONSTRAINT "absences_tenantUserId_fkey" FOREIGN KEY ("tenantUserId") REFERENCES "tenant_users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "absences" ADD CONSTRAINT "absences_reviewedById_fkey" FOREIGN KEY ("reviewedById") REFERENCES "tenant_users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "absences" ADD CONSTRAINT "absences_absenceTypeId_fkey" FOREIGN KEY ("absenceTypeId") REFERENCES "absence_types"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "vacation_allowances" ADD CONSTRAINT "vacation_allowances_tenantId_fkey" FOREIGN KEY ("tenantId") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "vacation_allowances" ADD CONSTRAINT "vacation_allowances_tenantUserId_fkey" FOREIGN KEY ("tenantUserId") REFERENCES "tenant_users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "vacation_corrections" ADD CONSTRAINT "vacation_corrections_tenantId_fkey" FOREIGN KEY ("tenantId") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "vacation_corrections" ADD CONSTRAINT "vacation_corrections_tenantUserId_fkey" FOREIGN KEY ("tenantUserId") REFERENCES "tenant_users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "calendar_tokens" ADD CONSTRAINT "calendar_tokens_tenantId_fkey" FOREIGN KEY ("tenantId") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "calendar_tokens" ADD CONSTRAINT "calendar_tokens_tenantUserId_fkey" FOREIGN KEY ("tenantUserId") REFERENCES "tenant_users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- A week of a work schedule has seven days (Monday first).
ALTER TABLE "work_schedules" ADD CONSTRAINT "work_schedules_minutes_week" CHECK (cardinality("minutes") = 7);

-- Every tenant starts with four absence types (CONTRACT.md section 10): the tenants there are now, and each new one,
-- whoever creates it (the API, the CLI, the first start), through one function.
CREATE FUNCTION tally_add_default_absence_types(tenant text) RETURNS void LANGUAGE sql AS $$
  INSERT INTO absence_types (id, "tenantId", name, kind, "countsAsWork", "deductsVacation", "needsApproval", "updatedAt")
  VALUES
    (uuidv7()::text, tenant, 'Vacation', 'vacation', true, true, true, now()),
    (uuidv7()::text, tenant, 'Sickness', 'sickness', true, false, false, now()),
    (uuidv7()::text, tenant, 'Overtime compensation', 'overtime', false, false, true, now()),
    (uuidv7()::text, tenant, 'Unpaid', 'unpaid', false, false, true, now())
  ON CONFLICT ("tenantId", name) DO NOTHING;
$$;

CREATE FUNCTION tally_tenant_default_absence_types() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM tally_add_default_absence_types(NEW.id);
  RETURN NULL;
END;
$$;

CREATE TRIGGER tenants_default_absence_types AFTER INSERT ON tenants
  FOR EACH ROW EXECUTE FUNCTION tally_tenant_default_absence_types();

SELECT tally_add_default_absence_types(id) FROM tenants;
