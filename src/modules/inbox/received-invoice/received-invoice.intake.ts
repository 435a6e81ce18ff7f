/**
 * What an incoming file is, before anything is stored: its type by content
 * (415 for one we do not take), and the e-invoice it is or carries, read
 * from its XML (a 400 naming `file` for XML that is no readable e-invoice,
 * and for a PDF whose e-invoice or structure is over what one file may cost).
 */
import type { EInvoiceFormat as ReceivedEInvoiceFormat } from '../../../generated/prisma/enums.js';
import { AppError, validationFailed } from '../../../lib/errors.js';
import type { StagedFile } from '../../../lib/file-storage.js';
import { readEInvoice, type ReceivedEInvoice } from './received-invoice.einvoice-reader.js';
import { embeddedInvoice, type EmbeddedInvoice } from './received-invoice.embedded.js';
import { maxXmlBytes, UnreadableXml } from './received-invoice.xml.js';

/** The type an XML e-invoice is stored and served with (whatever it was declared as: `text/xml` is the same). */
export const xmlType = 'application/xml';

/** What may be uploaded, by the type its content shows (never by its name or declared type). */
export const uploadTypes: Record<string, string> = {
  'application/pdf': 'pdf',
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/tiff': 'tiff',
  'image/webp': 'webp',
  [xmlType]: 'xml',
};

/** Markup by its first bytes: after a byte-order mark and blanks, `<?xml`, a comment or an element. */
function looksLikeXml(head: Buffer): boolean {
  const start = head.subarray(0, 512);
  if (start[0] === 0xff || start[0] === 0xfe)
    return /^\s*<[?!A-Za-z_]/.test(new TextDecoder(start[0] === 0xff ? 'utf-16le' : 'utf-16be').decode(start.subarray(2)));
  return /^(\uFEFF)?\s*<[?!A-Za-z_]/.test(start.toString('utf8'));
}

/** What a file that is (or carries) an e-invoice became: read from its XML, exactly, with no OCR. */
export interface ReadEInvoice {
  format: ReceivedEInvoiceFormat;
  invoice: ReceivedEInvoice;
}

/** 400 naming the multipart field: the XML is malformed, unsafe, too large or no invoice. */
const unreadableXml = (error: UnreadableXml): AppError => validationFailed([{ path: 'file', message: error.message }], `The XML file ${error.message}`);

/** 400 naming the multipart field: a PDF whose e-invoice (or whose structure) is over what one upload may cost. */
function overLimit(found: EmbeddedInvoice): AppError | undefined {
  const message =
    found.kind === 'too-large'
      ? `carries ${found.name}, which is over ${maxXmlBytes} bytes (5 MiB) once inflated; an e-invoice may have 5 MiB`
      : found.kind === 'over-budget'
        ? `is a PDF that needs more ${found.resource} to open than an invoice may take`
        : undefined;
  return message ? validationFailed([{ path: 'file', message }], `The file ${message}`) : undefined;
}

/**
 * The e-invoice a staged file is or carries. An XML file must be one (400
 * naming `file` otherwise); a PDF may carry one (Factur-X / ZUGFeRD): one
 * whose embedded XML is over the limit is a 400 too, and one whose XML is
 * missing or unreadable goes to OCR as before.
 */
export async function readStagedEInvoice(staged: StagedFile, mimeType: string): Promise<ReadEInvoice | undefined> {
  if (mimeType === xmlType) {
    if (staged.size > maxXmlBytes) throw unreadableXml(new UnreadableXml(`is ${staged.size} bytes; an XML invoice may have ${maxXmlBytes} (5 MiB)`));
    try {
      const invoice = readEInvoice(await staged.read());
      return { format: invoice.syntax, invoice };
    } catch (error) {
      throw error instanceof UnreadableXml ? unreadableXml(error) : error;
    }
  }
  if (mimeType !== 'application/pdf') return undefined;
  const found = await embeddedInvoice(await staged.read());
  const refused = overLimit(found);
  if (refused) throw refused;
  if (found.kind !== 'xml') return undefined;
  try {
    return { format: 'facturx', invoice: readEInvoice(Buffer.from(found.xml.buffer, found.xml.byteOffset, found.xml.byteLength)) };
  } catch (error) {
    if (error instanceof UnreadableXml) return undefined;
    throw error;
  }
}

/** The type the content shows, or 415. */
export async function assertUploadType(staged: StagedFile): Promise<string> {
  // Loaded by the first upload: heap a process that takes none does without (docs/performance.md).
  const { fileTypeFromBuffer } = await import('file-type');
  const detected = await fileTypeFromBuffer(staged.head);
  // file-type knows XML only by its declaration; an e-invoice may start with its root element.
  if ((!detected || detected.mime === xmlType) && looksLikeXml(staged.head)) return xmlType;
  if (!detected || !(detected.mime in uploadTypes)) {
    throw new AppError(
      'UNSUPPORTED_MEDIA_TYPE',
      `The file is ${detected ? detected.mime : 'of no type we recognise'}; send a PDF, PNG, JPEG, TIFF or WebP, or an XML e-invoice`,
    );
  }
  return detected.mime;
}
