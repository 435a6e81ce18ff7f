-- CreateEnum
CREATE TYPE "InvoiceType" AS ENUM ('invoice', 'credit_note');

-- CreateEnum
CREATE TYPE "EInvoiceFormat" AS ENUM ('cii', 'ubl', 'facturx');

-- AlterTable
ALTER TABLE "invoices" ADD COLUMN     "eInvoiceFormat" "EInvoiceFormat",
ADD COLUMN     "type" "InvoiceType" NOT NULL DEFAULT 'invoice',
ADD COLUMN     "vendorVatId" TEXT;

-- CreateTable
CREATE TABLE "invoice_lines" (
    "id" TEXT NOT NULL,
    "invoiceId" TEXT NOT NULL,
    "position" INTEGER NOT NULL,
    "lineId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT,
    "quantity" DECIMAL(24,8) NOT NULL,
    "unitCode" TEXT NOT NULL,
    "unitPrice" DECIMAL(24,8),
    "priceBaseQuantity" DECIMAL(24,8),
    "netAmount" DECIMAL(14,2) NOT NULL,
    "taxCategory" TEXT,
    "taxRate" DECIMAL(7,4),

    CONSTRAINT "invoice_lines_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "invoice_lines_invoiceId_position_key" ON "invoice_lines"("invoiceId", "position");

-- AddForeignKey
ALTER TABLE "invoice_lines" ADD CONSTRAINT "invoice_lines_invoiceId_fkey" FOREIGN KEY ("invoiceId") REFERENCES "invoices"("id") ON DELETE CASCADE ON UPDATE CASCADE;
