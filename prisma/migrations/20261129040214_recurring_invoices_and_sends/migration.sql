-- CreateEnum
CREATE TYPE "ClientInvoiceSendStatus" AS ENUM ('not_configured', 'queued', 'delivered', 'failed');

-- CreateEnum
CREATE TYPE "RecurringInterval" AS ENUM ('month', 'quarter', 'year');

-- AlterTable
ALTER TABLE "client_invoices" ADD COLUMN     "sentTo" TEXT[] DEFAULT ARRAY[]::TEXT[];

-- CreateTable
CREATE TABLE "client_invoice_sends" (
    "id" TEXT NOT NULL,
    "tenantId" TEXT NOT NULL,
    "clientInvoiceId" TEXT NOT NULL,
    "status" "ClientInvoiceSendStatus" NOT NULL,
    "to" TEXT[],
    "cc" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "message" TEXT,
    "attach" TEXT[],
    "messageId" TEXT NOT NULL,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "lastError" TEXT,
    "deliveredAt" TIMESTAMPTZ(3),
    "createdById" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "client_invoice_sends_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "recurring_invoices" (
    "id" TEXT NOT NULL,
    "tenantId" TEXT NOT NULL,
    "clientId" TEXT NOT NULL,
    "lines" JSONB NOT NULL DEFAULT '[]',
    "interval" "RecurringInterval" NOT NULL,
    "dayOfPeriod" INTEGER NOT NULL DEFAULT 1,
    "startDate" DATE NOT NULL,
    "endDate" DATE,
    "includeTime" BOOLEAN NOT NULL DEFAULT false,
    "autoIssue" BOOLEAN NOT NULL DEFAULT false,
    "autoSend" BOOLEAN NOT NULL DEFAULT false,
    "nextPeriodStart" DATE,
    "nextRunDate" DATE,
    "createdById" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "recurring_invoices_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "recurring_invoice_runs" (
    "recurringInvoiceId" TEXT NOT NULL,
    "periodStart" DATE NOT NULL,
    "clientInvoiceId" TEXT,
    "finishedAt" TIMESTAMPTZ(3),
    "finishLeaseUntil" TIMESTAMPTZ(3),
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "recurring_invoice_runs_pkey" PRIMARY KEY ("recurringInvoiceId","periodStart")
);

-- CreateIndex
CREATE UNIQUE INDEX "client_invoice_sends_messageId_key" ON "client_invoice_sends"("messageId");

-- CreateIndex
CREATE INDEX "client_invoice_sends_clientInvoiceId_createdAt_idx" ON "client_invoice_sends"("clientInvoiceId", "createdAt");

-- CreateIndex
CREATE INDEX "client_invoice_sends_tenantId_createdAt_idx" ON "client_invoice_sends"("tenantId", "createdAt");

-- CreateIndex
CREATE INDEX "recurring_invoices_tenantId_createdAt_id_idx" ON "recurring_invoices"("tenantId", "createdAt", "id");

-- CreateIndex
CREATE INDEX "recurring_invoices_tenantId_clientId_createdAt_id_idx" ON "recurring_invoices"("tenantId", "clientId", "createdAt", "id");

-- CreateIndex
CREATE INDEX "recurring_invoices_nextRunDate_idx" ON "recurring_invoices"("nextRunDate");

-- CreateIndex
CREATE INDEX "recurring_invoice_runs_finishedAt_idx" ON "recurring_invoice_runs"("finishedAt");

-- CreateIndex
CREATE UNIQUE INDEX "recurring_invoice_runs_clientInvoiceId_key" ON "recurring_invoice_runs"("clientInvoiceId");

-- AddForeignKey
ALTER TABLE "client_invoice_sends" ADD CONSTRAINT "client_invoice_sends_tenantId_fkey" FOREIGN KEY ("tenantId") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "client_invoice_sends" ADD CONSTRAINT "client_invoice_sends_clientInvoiceId_fkey" FOREIGN KEY ("clientInvoiceId") REFERENCES "client_invoices"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "recurring_invoices" ADD CONSTRAINT "recurring_invoices_tenantId_fkey" FOREIGN KEY ("tenantId") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "recurring_invoices" ADD CONSTRAINT "recurring_invoices_clientId_fkey" FOREIGN KEY ("clientId") REFERENCES "clients"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "recurring_invoice_runs" ADD CONSTRAINT "recurring_invoice_runs_recurringInvoiceId_fkey" FOREIGN KEY ("recurringInvoiceId") REFERENCES "recurring_invoices"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "recurring_invoice_runs" ADD CONSTRAINT "recurring_invoice_runs_clientInvoiceId_fkey" FOREIGN KEY ("clientInvoiceId") REFERENCES "client_invoices"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- Sending by e-mail (issue 40): "sentTo" moves after issue like "sentAt" (the mail job writes both when the
-- SMTP server accepted the message), so it joins the moves list; everything else stays content.
CREATE OR REPLACE FUNCTION client_invoices_keep_content() RETURNS trigger
  LANGUAGE plpgsql
  AS $$
DECLARE
  moves constant text[] := ARRAY['status', 'sentAt', 'sentTo', 'paid', 'due', 'paidAt', 'voidedAt', 'updatedAt', 'searchVector'];
  after jsonb;
  before jsonb;
  changed text;
BEGIN
  IF OLD.status = 'draft' THEN
    RETURN NEW;
  END IF;
  after := to_jsonb(NEW) - moves;
  before := to_jsonb(OLD) - moves;
  IF after <> before THEN
    SELECT string_agg(key, ', ' ORDER BY key) INTO changed FROM jsonb_each(after) AS content(key, value) WHERE value IS DISTINCT FROM before -> key;
    PERFORM client_invoice_refuse(OLD.number, format('its %s cannot change', changed), client_invoice_retained_until(OLD."issueDate"));
  END IF;
  IF NEW.status = 'draft' OR (OLD.status = 'void' AND NEW.status <> 'void') THEN
    PERFORM client_invoice_refuse(OLD.number, format('its status cannot go from %s to %s', OLD.status, NEW.status), client_invoice_retained_until(OLD."issueDate"));
  END IF;
  RETURN NEW;
END
$$;
