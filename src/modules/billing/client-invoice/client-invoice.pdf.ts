/**
 * A client invoice as the PDF a business sends (pdfkit, as the report exports): letterhead, the
 * client's address with the sender line above it, the invoice's facts beside it, the lines, the VAT
 * breakdown beside the totals, payment instructions with the bank account, notes, and on every page a
 * footer with the seller's legal data and "Page x of y". A draft carries a large DRAFT mark.
 *
 * `format: 'facturx'` writes the same pages as PDF/A-3b with the EN 16931 CII XML embedded as
 * `factur-x.xml` and the XMP metadata Factur-X 1.0 / ZUGFeRD 2 readers look for. PDF/A wants every
 * font embedded, so both formats print in DejaVu Sans Condensed (a TrueType font from npm, subset into
 * the file), which also covers names beyond Latin-1 that the standard 14 fonts cannot print. The
 * pages are written by client-invoice.pdf-layout.ts on the sheet of client-invoice.pdf-sheet.ts; what makes them
 * a Factur-X is einvoice/facturx.ts.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { dayColumn } from '../../../lib/day.js';
import { documentLocale } from '../../../lib/i18n.js';
import type { ClientInvoiceDocument } from './client-invoice.document.js';
import { layOutClientInvoice } from './client-invoice.pdf-layout.js';
import { flowBottom, left, pageHeight, right, Sheet, top } from './client-invoice.pdf-sheet.js';
import { embedFacturX } from './einvoice/facturx.js';
import { writeEInvoice } from './einvoice/writer.js';

export type ClientInvoicePdfFormat = 'pdf' | 'facturx';

export const clientInvoicePdfContentType = 'application/pdf';

const require = createRequire(import.meta.url);
/** The two faces, read once per process (a few hundred KB each), parsed by pdfkit per document. */
let fonts: { regular: Buffer; bold: Buffer } | undefined;
const fontsOnce = () =>
  (fonts ??= {
    regular: fs.readFileSync(require.resolve('dejavu-fonts-ttf/ttf/DejaVuSansCondensed.ttf')),
    bold: fs.readFileSync(require.resolve('dejavu-fonts-ttf/ttf/DejaVuSansCondensed-Bold.ttf')),
  });

/**
 * The PDF of `document`: an invoice people read, or with `format: 'facturx'` the same pages as a Factur-X
 * PDF/A-3 carrying its CII XML. A Factur-X of a document that cannot be an e-invoice (a draft, missing
 * fields: `missingFacturXFields`) throws; check first.
 */
export async function renderClientInvoicePdf(document: ClientInvoiceDocument, options: { format: ClientInvoicePdfFormat }): Promise<Buffer> {
  const facturX = options.format === 'facturx';
  const xml = facturX ? await writeEInvoice(document, 'cii') : undefined;
  // A draft has no issue date yet: it is dated by its period's last day, not the system clock, so a draft's PDF
  // is the same bytes whenever it is rendered (and tests need not pin the day).
  const issued = dayColumn(document.issueDate ?? document.periodTo);
  const { pdf, ended } = await openPdf(document, issued, facturX);
  layOutClientInvoice(new Sheet(pdf, document));
  if (xml !== undefined) await embedFacturX(pdf, xml, issued);
  pdf.end();
  return ended;
}

/**
 * A new A4 document in the two faces, titled for `document` in its language (`kind` of it: the invoice, or a
 * reminder of it), dated `created`; `ended` is its bytes once it is ended.
 */
export async function openPdf(
  document: ClientInvoiceDocument,
  created: Date,
  facturX = false,
  kind: 'invoice' | 'creditNote' | 'reminder' = document.type === 'credit_note' ? 'creditNote' : 'invoice',
): Promise<{ pdf: PDFKit.PDFDocument; ended: Promise<Buffer> }> {
  const { default: PDFDocument } = await import('pdfkit');
  const faces = fontsOnce();
  const locale = documentLocale(document.buyer.language);
  const kindTitle = locale.t(`document.${kind}`);
  const pdf: PDFKit.PDFDocument = new PDFDocument({
    size: 'A4',
    // The bottom margin keeps text that pdfkit flows itself (long notes) above the footer, on new pages.
    margins: { top, bottom: pageHeight - flowBottom, left, right: 595.28 - right },
    bufferPages: true,
    ...(facturX ? { pdfVersion: '1.7' as const, subset: 'PDF/A-3b' as const } : {}),
    info: {
      Title: locale.t('document.title', { kind: kindTitle, number: document.number ?? locale.t('document.draftNumber') }),
      Author: document.seller.legalName,
      Subject: locale.t('document.subject', { kind: kindTitle, buyer: document.buyer.name }),
      Creator: 'Tally',
      // No ModDate: PDF/A wants each Info entry matched in the XMP, and pdfkit writes only the creation date there.
      CreationDate: created,
    },
    lang: locale.tag,
  });
  const chunks: Buffer[] = [];
  pdf.on('data', (chunk: Buffer) => chunks.push(chunk));
  const ended = new Promise<Buffer>((resolve, reject) => {
    pdf.on('end', () => resolve(Buffer.concat(chunks)));
    pdf.on('error', reject);
  });
  pdf.registerFont('regular', faces.regular);
  pdf.registerFont('bold', faces.bold);
  return { pdf, ended };
}
