/**
 * Which of a mail's attachments make one invoice together: a PDF and the
 * XML e-invoice that states it (docs/decisions.md, "A PDF and its XML in one
 * mail"). An XML e-invoice pairs with the PDF of the same name but for the
 * extension, or with the PDF whose name contains the XML's invoice number
 * (BT-1, of three characters or more); failing both, the only XML e-invoice
 * of a mail pairs with its only PDF. Everything else stays on its own.
 */
import path from 'node:path';

export interface MailFile {
  fileName: string;
  mimeType: string | undefined;
  /** The invoice number (BT-1) of an XML file that is an e-invoice. */
  eInvoiceNumber?: string;
}

/** Each file once: alone, or a PDF with the XML that states it. */
export interface Pairing<File> {
  file: File;
  statement?: File;
}

const stem = (fileName: string): string => path.parse(fileName.toLowerCase()).name;

export function pairAttachments<File extends MailFile>(files: File[]): Pairing<File>[] {
  const statements = files.filter((file) => file.eInvoiceNumber !== undefined);
  const pdfs = files.filter((file) => file.mimeType === 'application/pdf');
  const partners = new Map<File, File>();
  for (const statement of statements) {
    const number = (statement.eInvoiceNumber as string).toLowerCase();
    const pdf =
      pdfs.find((each) => !partners.has(each) && stem(each.fileName) === stem(statement.fileName)) ??
      pdfs.find((each) => !partners.has(each) && number.length >= 3 && each.fileName.toLowerCase().includes(number));
    if (pdf) partners.set(pdf, statement);
  }
  if (partners.size === 0 && statements.length === 1 && pdfs.length === 1) partners.set(pdfs[0] as File, statements[0] as File);
  const paired = new Set(partners.values());
  return files.filter((file) => !paired.has(file)).map((file) => ({ file, statement: partners.get(file) }));
}
