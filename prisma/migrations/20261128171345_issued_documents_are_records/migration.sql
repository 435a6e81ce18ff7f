-- CreateTable
CREATE TABLE "client_invoice_files" (
    "clientInvoiceId" TEXT NOT NULL,
    "format" TEXT NOT NULL,
    "fileName" TEXT NOT NULL,
    "contentType" TEXT NOT NULL,
    "content" BYTEA NOT NULL,
    "sha256" TEXT NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "client_invoice_files_pkey" PRIMARY KEY ("clientInvoiceId","format")
);

-- AddForeignKey
ALTER TABLE "client_invoice_files" ADD CONSTRAINT "client_invoice_files_clientInvoiceId_fkey" FOREIGN KEY ("clientInvoiceId") REFERENCES "client_invoices"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Issued documents are records (CONTRACT.md section 11; GoBD, UStG § 14b): the database itself refuses
-- changing the content of an issued invoice or credit note, and deleting it, until 8 years after the end of
-- its issue year, whoever asks (the API, a script, psql) and whichever way (a cascade from its tenant, a
-- TRUNCATE). Each refusal is SQLSTATE TR409 (the API answers it 409 RECORD_RETAINED). A draft is no record yet:
-- it changes and goes freely. The files an issued document was first served as are kept beside it,
-- append-only, under the same rules.

-- The first day an issued document may be deleted: 1 January of the 9th year after its issue year.
CREATE FUNCTION client_invoice_retained_until(issue_date date) RETURNS date
  LANGUAGE sql IMMUTABLE
  AS $$ SELECT make_date(extract(year FROM issue_date)::int + 9, 1, 1) $$;

-- Whether an invoice in `status`, issued on `issue_date`, is a record still kept (an issued one without a date is kept).
CREATE FUNCTION client_invoice_retained(status "ClientInvoiceStatus", issue_date date) RETURNS boolean
  LANGUAGE sql STABLE
  AS $$ SELECT status <> 'draft' AND (issue_date IS NULL OR current_date < client_invoice_retained_until(issue_date)) $$;

CREATE FUNCTION client_invoice_refuse(invoice_number text, what text, retained_until date) RETURNS void
  LANGUAGE plpgsql
  AS $$
BEGIN
  RAISE EXCEPTION 'client invoice % is an issued record: %', coalesce(invoice_number, '(no number)'), what
    USING ERRCODE = 'TR409',
          DETAIL = format('Issued invoices and credit notes are kept unchanged until %s (GoBD, UStG § 14b).', coalesce(retained_until::text, 'their issue date is known')),
          HINT = 'Void the invoice: a credit note corrects it.';
END
$$;

-- An issued document takes only what a status move writes: send (sentAt), pay (paid, due, paidAt), void
-- (voidedAt), the status itself and updatedAt. Every other column, present or added later, is content: a new
-- column that moves after issue must be named here by the migration that adds it (searchVector is written by
-- the database from the number and the client's name, which are content). The status never goes back to
-- draft, and void is final.
CREATE FUNCTION client_invoices_keep_content() RETURNS trigger
  LANGUAGE plpgsql
  AS $$
DECLARE
  moves constant text[] := ARRAY['status', 'sentAt', 'paid', 'due', 'paidAt', 'voidedAt', 'updatedAt', 'searchVector'];
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

-- Row triggers fire for the rows a cascade deletes too (a tenant's), so this guards every way but TRUNCATE.
CREATE FUNCTION client_invoices_keep_records() RETURNS trigger
  LANGUAGE plpgsql
  AS $$
BEGIN
  IF client_invoice_retained(OLD.status, OLD."issueDate") THEN
    PERFORM client_invoice_refuse(OLD.number, 'it cannot be deleted', client_invoice_retained_until(OLD."issueDate"));
  END IF;
  RETURN OLD;
END
$$;

CREATE TRIGGER client_invoices_keep_content BEFORE UPDATE ON "client_invoices"
  FOR EACH ROW EXECUTE FUNCTION client_invoices_keep_content();
CREATE TRIGGER client_invoices_keep_records BEFORE DELETE ON "client_invoices"
  FOR EACH ROW EXECUTE FUNCTION client_invoices_keep_records();

-- The parts of an issued document: its lines never change (none added, changed or removed); its payments are
-- added, never changed or removed; its files are added once, never changed or removed. A part whose invoice is
-- gone goes with it (a cascade: the invoice's own delete was allowed), and so does one of a draft or of a
-- document past its retention. Statement triggers over the rows a statement touched: one query for the
-- hundreds of lines a draft is made with.
CREATE FUNCTION client_invoice_parts_keep() RETURNS trigger
  LANGUAGE plpgsql
  AS $$
DECLARE
  part constant text := CASE TG_TABLE_NAME WHEN 'client_invoice_lines' THEN 'lines' WHEN 'client_invoice_payments' THEN 'payments' ELSE 'files' END;
  invoice record;
BEGIN
  IF TG_OP = 'DELETE' THEN
    SELECT ci.number, ci."issueDate" INTO invoice FROM client_invoices ci
     WHERE ci.id IN (SELECT "clientInvoiceId" FROM removed) AND client_invoice_retained(ci.status, ci."issueDate") LIMIT 1;
  ELSIF TG_OP = 'UPDATE' THEN
    SELECT ci.number, ci."issueDate" INTO invoice FROM client_invoices ci
     WHERE ci.id IN (SELECT "clientInvoiceId" FROM removed UNION SELECT "clientInvoiceId" FROM added) AND ci.status <> 'draft' LIMIT 1;
  ELSE
    SELECT ci.number, ci."issueDate" INTO invoice FROM client_invoices ci
     WHERE ci.id IN (SELECT "clientInvoiceId" FROM added) AND ci.status <> 'draft' LIMIT 1;
  END IF;
  IF FOUND THEN
    PERFORM client_invoice_refuse(invoice.number, format('its %s cannot be %s', part, CASE TG_OP WHEN 'INSERT' THEN 'added to' WHEN 'UPDATE' THEN 'changed' ELSE 'deleted' END),
      client_invoice_retained_until(invoice."issueDate"));
  END IF;
  RETURN NULL;
END
$$;

-- A file is kept of an issued document only, and under the SHA-256 of its content.
CREATE FUNCTION client_invoice_files_check() RETURNS trigger
  LANGUAGE plpgsql
  AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM added a LEFT JOIN client_invoices ci ON ci.id = a."clientInvoiceId" WHERE ci.status IS NULL OR ci.status = 'draft') THEN
    RAISE EXCEPTION 'only the files of an issued invoice or credit note are kept' USING ERRCODE = 'TR409';
  END IF;
  IF EXISTS (SELECT 1 FROM added WHERE sha256 IS DISTINCT FROM encode(sha256(content), 'hex')) THEN
    RAISE EXCEPTION 'the sha256 of a kept file must be that of its content' USING ERRCODE = 'TR409';
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER client_invoice_lines_keep_added AFTER INSERT ON "client_invoice_lines"
  REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION client_invoice_parts_keep();
CREATE TRIGGER client_invoice_lines_keep_changed AFTER UPDATE ON "client_invoice_lines"
  REFERENCING OLD TABLE AS removed NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION client_invoice_parts_keep();
CREATE TRIGGER client_invoice_lines_keep_removed AFTER DELETE ON "client_invoice_lines"
  REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION client_invoice_parts_keep();
CREATE TRIGGER client_invoice_payments_keep_changed AFTER UPDATE ON "client_invoice_payments"
  REFERENCING OLD TABLE AS removed NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION client_invoice_parts_keep();
CREATE TRIGGER client_invoice_payments_keep_removed AFTER DELETE ON "client_invoice_payments"
  REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION client_invoice_parts_keep();
CREATE TRIGGER client_invoice_files_check AFTER INSERT ON "client_invoice_files"
  REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION client_invoice_files_check();
CREATE TRIGGER client_invoice_files_keep_changed AFTER UPDATE ON "client_invoice_files"
  REFERENCING OLD TABLE AS removed NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION client_invoice_parts_keep();
CREATE TRIGGER client_invoice_files_keep_removed AFTER DELETE ON "client_invoice_files"
  REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION client_invoice_parts_keep();

-- TRUNCATE skips row triggers: it is refused while any record is kept (also when a TRUNCATE of tenants cascades here).
CREATE FUNCTION client_invoices_refuse_truncate() RETURNS trigger
  LANGUAGE plpgsql
  AS $$
DECLARE
  kept record;
BEGIN
  SELECT number, "issueDate" INTO kept FROM client_invoices WHERE client_invoice_retained(status, "issueDate") LIMIT 1;
  IF FOUND THEN
    PERFORM client_invoice_refuse(kept.number, format('%s cannot be truncated', TG_TABLE_NAME), client_invoice_retained_until(kept."issueDate"));
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER client_invoices_refuse_truncate BEFORE TRUNCATE ON "client_invoices"
  FOR EACH STATEMENT EXECUTE FUNCTION client_invoices_refuse_truncate();
CREATE TRIGGER client_invoice_lines_refuse_truncate BEFORE TRUNCATE ON "client_invoice_lines"
  FOR EACH STATEMENT EXECUTE FUNCTION client_invoices_refuse_truncate();
CREATE TRIGGER client_invoice_payments_refuse_truncate BEFORE TRUNCATE ON "client_invoice_payments"
  FOR EACH STATEMENT EXECUTE FUNCTION client_invoices_refuse_truncate();
CREATE TRIGGER client_invoice_files_refuse_truncate BEFORE TRUNCATE ON "client_invoice_files"
  FOR EACH STATEMENT EXECUTE FUNCTION client_invoices_refuse_truncate();
