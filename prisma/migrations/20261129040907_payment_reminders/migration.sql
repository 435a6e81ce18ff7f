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
    "text" TEXT NOT NULL DEFAULT '',
    "fileName" TEXT NOT NULL,
    "content" BYTEA,
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

-- The reminder worker's daily sweep: issued and sent invoices by due date (paid, void and drafts are never reminded).
CREATE INDEX "client_invoices_status_dueDate_idx" ON "client_invoices"("status", "dueDate");

-- A reminder is a record like the invoice it reminds of (its PDF is what the client was told): only when it was
-- sent may change (sentAt, by the sending worker), and its PDF be written, once. SQLSTATE TR409, as the invoices' refusals.
CREATE FUNCTION client_invoice_reminders_keep_content() RETURNS trigger
  LANGUAGE plpgsql
  AS $$
BEGIN
  IF (to_jsonb(NEW) - 'sentAt' - 'content') IS DISTINCT FROM (to_jsonb(OLD) - 'sentAt' - 'content')
     OR (OLD.content IS NOT NULL AND NEW.content IS DISTINCT FROM OLD.content) THEN
    RAISE EXCEPTION 'payment reminder % is a record: only sentAt may change, and its PDF be written once', OLD.id USING ERRCODE = 'TR409';
  END IF;
  RETURN NEW;
END
$$;

CREATE TRIGGER client_invoice_reminders_keep_content BEFORE UPDATE ON client_invoice_reminders
  FOR EACH ROW EXECUTE FUNCTION client_invoice_reminders_keep_content();
