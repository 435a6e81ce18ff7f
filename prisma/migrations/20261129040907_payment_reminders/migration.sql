-- AlterTable
ALTER TABLE "billing_profiles" ADD COLUMN     "reminderLevels" JSONB NOT NULL DEFAULT '[{"afterDays": 7, "feeAmount": "0.00", "text": ""}, {"afterDays": 21, "feeAmount": "5.00", "text": ""}]';

-- CreateTable
CREATE TABLE "client_invoice_reminders" (
    "id" TEXT NOT NULL,
    "tenantId" TEXT NOT NULL,
    "clientInvoiceId" TEXT NOT NULL,
    "level" INTEGER NOT NULL,
    "daysOverdue" INTEGER NOT NULL,
    "feeAmount" DECIMAL(15,3) NOT NULL,
    "openAmount" DECIMAL(15,3) NOT NULL,
    "currency" TEXT NOT NULL,
    "fileName" TEXT NOT NULL,
    "content" BYTEA NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL,
    "sentAt" TIMESTAMPTZ(3),

    CONSTRAINT "client_invoice_reminders_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "client_invoice_reminders_tenantId_clientInvoiceId_idx" ON "client_invoice_reminders"("tenantId", "clientInvoiceId");

-- CreateIndex
CREATE UNIQUE INDEX "client_invoice_reminders_clientInvoiceId_level_key" ON "client_invoice_reminders"("clientInvoiceId", "level");

-- AddForeignKey
ALTER TABLE "client_invoice_reminders" ADD CONSTRAINT "client_invoice_reminders_tenantId_fkey" FOREIGN KEY ("tenantId") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "client_invoice_reminders" ADD CONSTRAINT "client_invoice_reminders_clientInvoiceId_fkey" FOREIGN KEY ("clientInvoiceId") REFERENCES "client_invoices"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- The reminder worker's daily sweep: issued and sent invoices by due date (paid, void, drafts and credit notes are never reminded).
CREATE INDEX "client_invoices_open_due_idx" ON "client_invoices"("dueDate") WHERE status IN ('issued', 'sent') AND type = 'invoice';
