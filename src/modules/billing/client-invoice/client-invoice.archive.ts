/**
 * The files of issued invoices and credit notes, kept as they were first served (`client_invoice_files`):
 * an issued document's PDF, Factur-X and each e-invoice format is written once, on its first download, and
 * served byte for byte ever after, whatever changes later in the billing profile, the client, the fonts or
 * the writers themselves (a new release may lay out a PDF differently; the invoice sent stays the one sent).
 * The database keeps the rows as it keeps the invoice (append-only, checked SHA-256), so this is the archive
 * GoBD asks for. Drafts are never kept: they change until they are issued.
 */
import { createHash } from 'node:crypto';
import type { TenantAccess } from '../../../auth/tenant-access.js';
import type { Db } from '../../../db/client.js';

/** A file, ready to send: its bytes (or text), name and media type. */
export interface ClientInvoiceFile {
  fileName: string;
  contentType: string;
  content: string | Buffer;
}

/** What a kept file is filed under: `pdf`, `facturx`, or an e-invoice format (`cii`, `xrechnung-ubl`, ...). */
export type KeptFormat = string;

export function createClientInvoiceArchive({ db }: { db: Db }) {
  /** The file of the caller's issued document `id` in `format` as kept, or null while none is. */
  async function keptFile(access: TenantAccess, id: string, format: KeptFormat): Promise<ClientInvoiceFile | null> {
    const row = await db.clientInvoiceFile.findFirst({
      where: { clientInvoiceId: id, format, invoice: access.scope('read', 'ClientInvoice') },
      select: { fileName: true, contentType: true, content: true },
    });
    return row && { fileName: row.fileName, contentType: row.contentType, content: Buffer.from(row.content) };
  }

  /**
   * Keeps `file` as issued document `id`'s `format` unless one is kept already, and returns the kept one: of two
   * first downloads at once, both answer the bytes of the one that was stored first. The caller has read the
   * document through its access.
   */
  async function keepFile(access: TenantAccess, id: string, format: KeptFormat, file: ClientInvoiceFile): Promise<ClientInvoiceFile> {
    const content = typeof file.content === 'string' ? Buffer.from(file.content, 'utf8') : file.content;
    await db.clientInvoiceFile.createMany({
      data: [
        {
          clientInvoiceId: id,
          format,
          fileName: file.fileName,
          contentType: file.contentType,
          content: new Uint8Array(content),
          sha256: createHash('sha256').update(content).digest('hex'),
        },
      ],
      skipDuplicates: true,
    });
    const kept = await keptFile(access, id, format);
    if (kept === null) throw new Error(`The file ${format} of client invoice ${id} was kept but cannot be read back`);
    return kept;
  }

  return { keptFile, keepFile };
}
