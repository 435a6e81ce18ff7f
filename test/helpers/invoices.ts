/**
 * Invoices the tests make themselves, with known values: an image rendered
 * from text, a PDF with a text layer, a scanned PDF (the image, no text), a
 * password-protected PDF, and uploads of them as multipart forms.
 */
import { createRequire } from 'node:module';
import { createCanvas, GlobalFonts } from '@napi-rs/canvas';
import { PDFDocument, StandardFonts } from 'pdf-lib';

const require = createRequire(import.meta.url);
// A font that ships with pdfjs-dist, so rendering depends on no system font.
GlobalFonts.registerFromPath(require.resolve('pdfjs-dist/standard_fonts/LiberationSans-Regular.ttf'), 'InvoiceSans');

export const invoiceLines = [
  'ACME Supplies Ltd',
  'Invoice INV-2026-0042',
  'Date: 2026-11-02',
  'Due: 2026-12-02',
  'Net 1,037.44 EUR',
  'VAT 19% 197.12 EUR',
  'Total 1,234.56 EUR',
];

/** A white page with `lines` in black, as PNG. */
export function invoicePng(lines: readonly string[] = invoiceLines, { width = 1240, height = 640 } = {}): Buffer {
  const canvas = createCanvas(width, height);
  const context = canvas.getContext('2d');
  context.fillStyle = '#ffffff';
  context.fillRect(0, 0, width, height);
  context.fillStyle = '#000000';
  context.font = '32px "InvoiceSans"';
  context.textBaseline = 'top';
  for (const [index, line] of lines.entries()) context.fillText(line, 60, 60 + index * 32 * 1.6);
  return canvas.toBuffer('image/png');
}

/** A PDF whose pages carry `lines` as text. */
export async function textPdf(lines: readonly string[] = invoiceLines, pages = 1): Promise<Buffer> {
  const document = await PDFDocument.create();
  const font = await document.embedFont(StandardFonts.Helvetica);
  for (let page = 0; page < pages; page += 1) {
    const sheet = document.addPage([595.28, 841.89]);
    for (const [index, line] of lines.entries()) sheet.drawText(line, { x: 50, y: 780 - index * 24, size: 16, font });
  }
  return Buffer.from(await document.save());
}

/** A PDF of one page that is only the image: what a scanner makes. */
export async function scannedPdf(png: Buffer = invoicePng()): Promise<Buffer> {
  const document = await PDFDocument.create();
  const image = await document.embedPng(png);
  const width = 595.28;
  const height = (image.height * width) / image.width;
  document.addPage([width, height]).drawImage(image, { x: 0, y: 0, width, height });
  return Buffer.from(await document.save());
}

/**
 * A PDF encrypted with the standard security handler and a user password
 * nobody knows: readers must ask for the password. Written by hand (pdf-lib
 * does not encrypt): the /Encrypt dictionary is what makes a reader ask.
 */
export function encryptedPdf(): Buffer {
  const hex = (bytes: number) => Buffer.from(Array.from({ length: bytes }, (_, index) => (index * 37 + 11) % 256)).toString('hex');
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] >>',
    `<< /Filter /Standard /V 1 /R 2 /O <${hex(32)}> /U <${hex(32)}> /P -4 >>`,
  ];
  let body = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((object, index) => {
    offsets.push(Buffer.byteLength(body));
    body += `${index + 1} 0 obj\n${object}\nendobj\n`;
  });
  const xref = Buffer.byteLength(body);
  body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((offset) => `${String(offset).padStart(10, '0')} 00000 n \n`).join('')}`;
  body += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R /Encrypt 4 0 R /ID [<${hex(16)}> <${hex(16)}>] >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(body, 'latin1');
}

/** A multipart form with `file` (named `fileName`) and text `fields`. */
export function invoiceForm(file: Buffer, fileName: string, fields: Record<string, string> = {}, type = 'application/octet-stream'): FormData {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  form.append('file', new Blob([new Uint8Array(file)], { type }), fileName);
  return form;
}
