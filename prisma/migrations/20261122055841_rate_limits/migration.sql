-- CreateTable
CREATE TABLE "rate_limits" (
    "key" VARCHAR(255) NOT NULL,
    "points" INTEGER NOT NULL DEFAULT 0,
    "expire" BIGINT,

    CONSTRAINT "rate_limits_pkey" PRIMARY KEY ("key")
);

-- Counts that live a minute need no crash safety: unlogged, they skip the WAL (one upsert per request).
ALTER TABLE "rate_limits" SET UNLOGGED;
