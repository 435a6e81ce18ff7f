-- AlterEnum
ALTER TYPE "InvoiceLineSource" ADD VALUE 'rounding';

-- AlterEnum
ALTER TYPE "InvoiceLineUnit" ADD VALUE 'MIN';

-- AlterTable
ALTER TABLE "billing_profiles" ADD COLUMN     "registrationId" TEXT,
ADD COLUMN     "registrationScheme" TEXT;

-- AlterTable
ALTER TABLE "client_invoice_lines" ADD COLUMN     "baseQuantity" INTEGER NOT NULL DEFAULT 1;

-- AlterTable
ALTER TABLE "clients" ADD COLUMN     "einvoiceFormat" TEXT NOT NULL DEFAULT 'none';

-- The formats a client can be sent (the API's names; CONTRACT.md section 11).
ALTER TABLE "clients" ADD CONSTRAINT "clients_einvoiceFormat_check"
  CHECK ("einvoiceFormat" IN ('none', 'cii', 'ubl', 'xrechnung-cii', 'xrechnung-ubl', 'peppol', 'facturx'));
