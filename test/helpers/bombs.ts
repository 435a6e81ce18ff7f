/**
 * Hostile files, made in milliseconds instead of committed: a zlib stream
 * that inflates to gigabytes, a PDF that embeds one as its `factur-x.xml`,
 * and XML that nests deep, expands entities or is simply large.
 *
 * The zlib stream is one block of a mebibyte of spaces, compressed once
 * with a full flush (so it is byte-aligned and refers to nothing before it)
 * and repeated, after the compressed prefix; its Adler-32 is computed from
 * the run lengths, so the stream is valid to its end.
 */
import { constants, deflateRawSync } from 'node:zlib';
import { AFRelationship, PDFDocument, PDFHexString, PDFName, PDFRawStream, PDFString, StandardFonts } from 'pdf-lib';

const mebibyte = 1024 * 1024;
const adlerBase = 65521n;

/** Adler-32 over `prefix` and then `run` bytes of `fill`. */
function adler32(prefix: Buffer, fill: number, run: bigint): number {
  let a = 1n;
  let b = 0n;
  for (const byte of prefix) {
    a = (a + BigInt(byte)) % adlerBase;
    b = (b + a) % adlerBase;
  }
  // After k more bytes of `fill`: a + fill*k; b grows by each of those.
  b = (b + run * a + (BigInt(fill) * run * (run + 1n)) / 2n) % adlerBase;
  a = (a + BigInt(fill) * run) % adlerBase;
  return Number((b << 16n) | a);
}

/** A zlib stream of `prefix` followed by spaces, `bytes` long once inflated (rounded up to whole MiB after the prefix). */
export function zlibBomb(prefix: Buffer, bytes: number): Buffer {
  const blocks = Math.ceil(Math.max(0, bytes - prefix.length) / mebibyte);
  const flushed = { finishFlush: constants.Z_FULL_FLUSH, level: 9 };
  const block = deflateRawSync(Buffer.alloc(mebibyte, 0x20), flushed);
  const checksum = Buffer.alloc(4);
  checksum.writeUInt32BE(adler32(prefix, 0x20, BigInt(blocks) * BigInt(mebibyte)) >>> 0);
  return Buffer.concat([
    Buffer.from([0x78, 0xda]),
    deflateRawSync(prefix, flushed),
    ...Array.from({ length: blocks }, () => block),
    // The last block: empty, final.
    deflateRawSync(Buffer.alloc(0)),
    checksum,
  ]);
}

/** The start of a CII invoice, for bombs that look like one until they do not end. */
export const ciiStart = Buffer.from(
  '<?xml version="1.0" encoding="UTF-8"?>\n<rsm:CrossIndustryInvoice xmlns:rsm="urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100">\n<!--',
);

/**
 * A one-page PDF whose `fileName` is the already-compressed `zlib` stream
 * (Factur-X's way: in the EmbeddedFiles name tree and the catalog's /AF, or
 * with `only: 'AF'` in /AF alone).
 */
export async function pdfWithCompressedAttachment(zlib: Buffer, { fileName = 'factur-x.xml', only }: { fileName?: string; only?: 'AF' } = {}): Promise<Buffer> {
  const document = await PDFDocument.create({ updateMetadata: false });
  const font = await document.embedFont(StandardFonts.Helvetica);
  document.addPage([595.28, 841.89]).drawText('Invoice BOMB-1  Total 10.00 EUR', { x: 50, y: 780, size: 14, font });
  const { context } = document;
  const stream = context.register(
    PDFRawStream.of(context.obj({ Type: 'EmbeddedFile', Subtype: 'text/xml', Filter: 'FlateDecode', Length: zlib.length }), new Uint8Array(zlib)),
  );
  const spec = context.register(
    context.obj({
      Type: 'Filespec',
      F: PDFString.of(fileName),
      UF: PDFHexString.fromText(fileName),
      EF: { F: stream },
      AFRelationship: AFRelationship.Data,
    }),
  );
  document.catalog.set(PDFName.of('AF'), context.obj([spec]));
  if (only !== 'AF') document.catalog.set(PDFName.of('Names'), context.obj({ EmbeddedFiles: { Names: [PDFHexString.fromText(fileName), spec] } }));
  return Buffer.from(await document.save());
}

/** A PDF whose embedded `factur-x.xml` inflates to `bytes` (4 GiB: a 4 MiB PDF). */
export const pdfBomb = (bytes: number): Promise<Buffer> => pdfWithCompressedAttachment(zlibBomb(ciiStart, bytes));

/** XML nested `depth` elements deep (3 bytes an element, so 1.5 million stay under the 5 MiB limit). */
export const deepXml = (depth: number): Buffer => Buffer.from(`<?xml version="1.0"?>${'<a>'.repeat(depth)}${'</a>'.repeat(depth)}`);

/** The billion laughs: ten entities of ten of the one before, about 3 GB once expanded, in under a kilobyte. */
export function billionLaughs(): Buffer {
  const entities = ['<!ENTITY lol0 "lol">'];
  for (let level = 1; level <= 9; level += 1) entities.push(`<!ENTITY lol${level} "${`&lol${level - 1};`.repeat(10)}">`);
  return Buffer.from(`<?xml version="1.0"?>\n<!DOCTYPE lolz [\n${entities.join('\n')}\n]>\n<lolz>&lol9;</lolz>`);
}

/** `count` empty elements under one root: a flat XML just under `bytes` (the 5 MiB limit lets 1.3 million through to the parser). */
export const wideXml = (bytes: number): Buffer => Buffer.from(`<?xml version="1.0"?><r>${'<a/>'.repeat(Math.floor((bytes - 40) / 4))}</r>`);

/** A PDF of `count` tiny objects with a correct cross-reference table: cheap to send, costly for a parser that builds them all. */
export function pdfOfManyObjects(count: number): Buffer {
  const parts = ['%PDF-1.7\n', '1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n', '2 0 obj\n<< /Type /Pages /Kids [] /Count 0 >>\nendobj\n'];
  const offsets = [9, 9 + (parts[1] as string).length];
  let offset = (offsets[1] as number) + (parts[2] as string).length;
  for (let number = 3; number <= count; number += 1) {
    const object = `${number} 0 obj\n[${number}]\nendobj\n`;
    offsets.push(offset);
    parts.push(object);
    offset += object.length;
  }
  const table = offsets.map((each) => `${String(each).padStart(10, '0')} 00000 n \n`).join('');
  parts.push(`xref\n0 ${count + 1}\n0000000000 65535 f \n${table}trailer\n<< /Size ${count + 1} /Root 1 0 R >>\nstartxref\n${offset}\n%%EOF\n`);
  return Buffer.from(parts.join(''), 'latin1');
}
