-- AlterTable
ALTER TABLE "billing_profiles" ADD COLUMN     "language" TEXT NOT NULL DEFAULT 'en';

-- AlterTable
ALTER TABLE "clients" ADD COLUMN     "language" TEXT;
