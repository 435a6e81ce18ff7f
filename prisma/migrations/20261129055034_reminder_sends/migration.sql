-- AlterTable
ALTER TABLE "client_invoice_sends" ADD COLUMN     "reminderId" TEXT;

-- CreateIndex
CREATE INDEX "client_invoice_sends_reminderId_idx" ON "client_invoice_sends"("reminderId");

-- AddForeignKey
ALTER TABLE "client_invoice_sends" ADD CONSTRAINT "client_invoice_sends_reminderId_fkey" FOREIGN KEY ("reminderId") REFERENCES "client_invoice_reminders"("id") ON DELETE CASCADE ON UPDATE CASCADE;
