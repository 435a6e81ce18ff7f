-- CreateEnum
CREATE TYPE "TaxCategory" AS ENUM ('S', 'Z', 'E', 'AE', 'K', 'G', 'O');

-- CreateEnum
CREATE TYPE "ClientInvoiceType" AS ENUM ('invoice', 'credit_note');

-- CreateEnum
CREATE TYPE "ClientInvoiceStatus" AS ENUM ('draft', 'issued', 'sent', 'paid', 'void');

-- CreateEnum
CREATE TYPE "InvoiceGroupBy" AS ENUM ('entry', 'project', 'task', 'user', 'day');

-- CreateEnum
CREATE TYPE "InvoiceLineUnit" AS ENUM ('HUR', 'DAY', 'C62');

-- CreateEnum
CREATE TYPE "InvoiceLineSource" AS ENUM ('time', 'manual');

-- AlterTable
ALTER TABLE "clients" ADD COLUMN     "billingAddress" JSONB,
ADD COLUMN     "buyerReference" TEXT,
ADD COLUMN     "electronicAddress" JSONB,
ADD COLUMN     "invoiceEmail" TEXT,
ADD COLUMN     "taxCategory" "TaxCategory",
ADD COLUMN     "taxExemptionReason" TEXT,
ADD COLUMN     "vatId" TEXT;

-- AlterTable
ALTER TABLE "entries" ADD COLUMN     "clientInvoiceId" TEXT;

-- CreateTable
CREATE TABLE "billing_profiles" (
    "tenantId" TEXT NOT NULL,
    "legalName" TEXT,
    "addressLine1" TEXT,
    "addressLine2" TEXT,
    "postcode" TEXT,
    "city" TEXT,
    "countryCode" TEXT,
    "vatId" TEXT,
    "taxNumber" TEXT,
    "email" TEXT,
    "phone" TEXT,
    "contactName" TEXT,
    "electronicAddressScheme" TEXT,
    "electronicAddressId" TEXT,
    "iban" TEXT,
    "bic" TEXT,
    "bankName" TEXT,
    "numberPattern" TEXT NOT NULL DEFAULT '{YYYY}-{SEQ:4}',
    "paymentTermsDays" INTEGER NOT NULL DEFAULT 14,
    "defaultTaxCategory" "TaxCategory" NOT NULL DEFAULT 'S',
    "defaultTaxRate" DECIMAL(5,2),
    "defaultTaxExemptionReason" TEXT,
    "smallBusiness" BOOLEAN NOT NULL DEFAULT false,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "billing_profiles_pkey" PRIMARY KEY ("tenantId")
);

-- CreateTable
CREATE TABLE "client_invoices" (
    "id" TEXT NOT NULL,
    "tenantId" TEXT NOT NULL,
    "clientId" TEXT NOT NULL,
    "clientName" TEXT NOT NULL,
    "type" "ClientInvoiceType" NOT NULL DEFAULT 'invoice',
    "creditNoteForId" TEXT,
    "status" "ClientInvoiceStatus" NOT NULL DEFAULT 'draft',
    "number" TEXT,
    "numberYear" INTEGER,
    "numberSequence" INTEGER,
    "currency" TEXT NOT NULL,
    "issueDate" DATE,
    "dueDate" DATE,
    "periodFrom" DATE NOT NULL,
    "periodTo" DATE NOT NULL,
    "groupBy" "InvoiceGroupBy" NOT NULL DEFAULT 'project',
    "buyerReference" TEXT,
    "notes" TEXT,
    "seller" JSONB,
    "buyer" JSONB,
    "discountPercent" DECIMAL(5,2),
    "discountAmount" DECIMAL(14,2),
    "discountReason" TEXT,
    "lineNet" DECIMAL(14,2) NOT NULL DEFAULT 0,
    "allowances" DECIMAL(14,2) NOT NULL DEFAULT 0,
    "taxBasis" DECIMAL(14,2) NOT NULL DEFAULT 0,
    "tax" DECIMAL(14,2) NOT NULL DEFAULT 0,
    "gross" DECIMAL(14,2) NOT NULL DEFAULT 0,
    "paid" DECIMAL(14,2) NOT NULL DEFAULT 0,
    "due" DECIMAL(14,2) NOT NULL DEFAULT 0,
    "taxes" JSONB NOT NULL DEFAULT '[]',
    "issuedAt" TIMESTAMPTZ(3),
    "sentAt" TIMESTAMPTZ(3),
    "paidAt" TIMESTAMPTZ(3),
    "voidedAt" TIMESTAMPTZ(3),
    "createdById" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    "searchVector" tsvector GENERATED ALWAYS AS (
        setweight(to_tsvector('simple', coalesce("number", '')), 'A') ||
        setweight(to_tsvector('simple', coalesce("clientName", '')), 'B')
    ) STORED,

    CONSTRAINT "client_invoices_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "client_invoice_lines" (
    "id" TEXT NOT NULL,
    "clientInvoiceId" TEXT NOT NULL,
    "position" INTEGER NOT NULL,
    "description" TEXT NOT NULL,
    "quantity" DECIMAL(12,4) NOT NULL,
    "unit" "InvoiceLineUnit" NOT NULL,
    "unitPrice" DECIMAL(12,2) NOT NULL,
    "netAmount" DECIMAL(14,2) NOT NULL,
    "taxCategory" "TaxCategory" NOT NULL,
    "taxRate" DECIMAL(5,2) NOT NULL,
    "taxExemptionReason" TEXT,
    "projectId" TEXT,
    "taskId" TEXT,
    "tenantUserId" TEXT,
    "entryCount" INTEGER NOT NULL DEFAULT 0,
    "source" "InvoiceLineSource" NOT NULL,

    CONSTRAINT "client_invoice_lines_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "client_invoice_payments" (
    "id" TEXT NOT NULL,
    "clientInvoiceId" TEXT NOT NULL,
    "paidAt" DATE NOT NULL,
    "amount" DECIMAL(14,2) NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "client_invoice_payments_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "invoice_number_counters" (
    "tenantId" TEXT NOT NULL,
    "year" INTEGER NOT NULL,
    "last" INTEGER NOT NULL,

    CONSTRAINT "invoice_number_counters_pkey" PRIMARY KEY ("tenantId","year")
);

-- CreateIndex
CREATE UNIQUE INDEX "client_invoices_creditNoteForId_key" ON "client_invoices"("creditNoteForId");

-- CreateIndex
CREATE INDEX "client_invoices_tenantId_createdAt_id_idx" ON "client_invoices"("tenantId", "createdAt", "id");

-- CreateIndex
CREATE INDEX "client_invoices_tenantId_status_createdAt_id_idx" ON "client_invoices"("tenantId", "status", "createdAt", "id");

-- CreateIndex
CREATE INDEX "client_invoices_tenantId_clientId_createdAt_id_idx" ON "client_invoices"("tenantId", "clientId", "createdAt", "id");

-- CreateIndex
CREATE UNIQUE INDEX "client_invoices_tenantId_number_key" ON "client_invoices"("tenantId", "number");

-- CreateIndex
CREATE UNIQUE INDEX "client_invoice_lines_clientInvoiceId_position_key" ON "client_invoice_lines"("clientInvoiceId", "position");

-- CreateIndex
CREATE INDEX "client_invoice_payments_clientInvoiceId_paidAt_idx" ON "client_invoice_payments"("clientInvoiceId", "paidAt");

-- CreateIndex
CREATE INDEX "entries_clientInvoiceId_idx" ON "entries"("clientInvoiceId");

-- AddForeignKey
ALTER TABLE "entries" ADD CONSTRAINT "entries_clientInvoiceId_fkey" FOREIGN KEY ("clientInvoiceId") REFERENCES "client_invoices"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "billing_profiles" ADD CONSTRAINT "billing_profiles_tenantId_fkey" FOREIGN KEY ("tenantId") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "client_invoices" ADD CONSTRAINT "client_invoices_tenantId_fkey" FOREIGN KEY ("tenantId") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "client_invoices" ADD CONSTRAINT "client_invoices_clientId_fkey" FOREIGN KEY ("clientId") REFERENCES "clients"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "client_invoices" ADD CONSTRAINT "client_invoices_creditNoteForId_fkey" FOREIGN KEY ("creditNoteForId") REFERENCES "client_invoices"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "client_invoice_lines" ADD CONSTRAINT "client_invoice_lines_clientInvoiceId_fkey" FOREIGN KEY ("clientInvoiceId") REFERENCES "client_invoices"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "client_invoice_payments" ADD CONSTRAINT "client_invoice_payments_clientInvoiceId_fkey" FOREIGN KEY ("clientInvoiceId") REFERENCES "client_invoices"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "invoice_number_counters" ADD CONSTRAINT "invoice_number_counters_tenantId_fkey" FOREIGN KEY ("tenantId") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Search finds client invoices by number and client (written by the database, as the other searched tables).
CREATE INDEX "client_invoices_searchVector_idx" ON "client_invoices" USING GIN ("searchVector");
