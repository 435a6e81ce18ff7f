-- CreateEnum
CREATE TYPE "ExpenseStatus" AS ENUM ('draft', 'submitted', 'approved', 'rejected');

-- AlterEnum
ALTER TYPE "InvoiceLineSource" ADD VALUE 'expense';

-- CreateTable
CREATE TABLE "expenses" (
    "id" TEXT NOT NULL,
    "tenantId" TEXT NOT NULL,
    "tenantUserId" TEXT NOT NULL,
    "date" DATE,
    "projectId" TEXT,
    "clientId" TEXT,
    "category" TEXT NOT NULL,
    "description" TEXT NOT NULL,
    "amount" DECIMAL(15,3),
    "netAmount" DECIMAL(15,3),
    "taxAmount" DECIMAL(15,3),
    "currency" TEXT NOT NULL,
    "taxRate" DECIMAL(5,2),
    "billable" BOOLEAN NOT NULL DEFAULT true,
    "markupPercent" DECIMAL(7,2),
    "billedAmount" DECIMAL(15,3),
    "invoiceId" TEXT,
    "clientInvoiceId" TEXT,
    "status" "ExpenseStatus" NOT NULL DEFAULT 'draft',
    "submittedAt" TIMESTAMPTZ(3),
    "reviewedById" TEXT,
    "reviewedAt" TIMESTAMPTZ(3),
    "rejectionReason" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "expenses_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "expenses_tenantId_date_id_idx" ON "expenses"("tenantId", "date", "id");

-- CreateIndex
CREATE INDEX "expenses_tenantId_tenantUserId_date_id_idx" ON "expenses"("tenantId", "tenantUserId", "date", "id");

-- CreateIndex
CREATE INDEX "expenses_tenantId_status_date_id_idx" ON "expenses"("tenantId", "status", "date", "id");

-- CreateIndex
CREATE INDEX "expenses_tenantId_projectId_date_id_idx" ON "expenses"("tenantId", "projectId", "date", "id");

-- CreateIndex
CREATE INDEX "expenses_tenantId_clientId_date_id_idx" ON "expenses"("tenantId", "clientId", "date", "id");

-- CreateIndex
CREATE INDEX "expenses_tenantId_category_date_id_idx" ON "expenses"("tenantId", "category", "date", "id");

-- CreateIndex
CREATE INDEX "expenses_invoiceId_idx" ON "expenses"("invoiceId");

-- CreateIndex
CREATE INDEX "expenses_clientInvoiceId_idx" ON "expenses"("clientInvoiceId");

-- AddForeignKey
ALTER TABLE "expenses" ADD CONSTRAINT "expenses_tenantId_fkey" FOREIGN KEY ("tenantId") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "expenses" ADD CONSTRAINT "expenses_tenantUserId_fkey" FOREIGN KEY ("tenantUserId") REFERENCES "tenant_users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "expenses" ADD CONSTRAINT "expenses_reviewedById_fkey" FOREIGN KEY ("reviewedById") REFERENCES "tenant_users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "expenses" ADD CONSTRAINT "expenses_projectId_fkey" FOREIGN KEY ("projectId") REFERENCES "projects"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "expenses" ADD CONSTRAINT "expenses_clientId_fkey" FOREIGN KEY ("clientId") REFERENCES "clients"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "expenses" ADD CONSTRAINT "expenses_invoiceId_fkey" FOREIGN KEY ("invoiceId") REFERENCES "invoices"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "expenses" ADD CONSTRAINT "expenses_clientInvoiceId_fkey" FOREIGN KEY ("clientInvoiceId") REFERENCES "client_invoices"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- A submitted expense has what it is billed and reported with (a draft may wait for its receipt to be read).
ALTER TABLE "expenses" ADD CONSTRAINT "expenses_complete_once_submitted" CHECK (
  status = 'draft' OR (amount IS NOT NULL AND "netAmount" IS NOT NULL AND "taxAmount" IS NOT NULL AND "billedAmount" IS NOT NULL AND "taxRate" IS NOT NULL AND date IS NOT NULL)
);
