/**
 * Finding the EN 16931 XML a PDF carries (Factur-X, ZUGFeRD 2.x, XRechnung in
 * a PDF) and inflating that one file, at most `limit` bytes of it.
 *
 * The file is the one named `factur-x.xml`, `zugferd-invoice.xml` or
 * `xrechnung.xml` (names compared without case), found in the document's
 * EmbeddedFiles name tree or in the catalog's /AF array (Factur-X requires
 * both; some writers fill only /AF). pdf-lib reads the structure: it keeps
 * every stream as the bytes the file has, so nothing is decoded but the
 * object and cross-reference streams it needs to find objects. The invoice's
 * stream is then inflated by node:zlib with `maxOutputLength`, which stops
 * at the limit instead of growing with what the stream claims; a stream with
 * any other filter (or a predictor) is not read at all.
 *
 * This runs in a worker thread under a memory and time budget
 * (invoice.embedded.ts): the parser itself, given a hostile cross-reference
 * or object stream, would otherwise decode it whole. It imports nothing of
 * the application, so the worker loads only pdf-lib.
 */
import { inflateSync } from 'node:zlib';
import { PDFArray, PDFDict, PDFDocument, PDFHexString, PDFName, type PDFObject, PDFRawStream, PDFString, ParseSpeeds } from 'pdf-lib';

/** Embedded file names that hold the invoice's XML, lower-cased. */
const invoiceFileNames = new Set(['factur-x.xml', 'zugferd-invoice.xml', 'xrechnung.xml']);

/** Name-tree nodes and /AF entries looked at, at most: a cycle or a tree of millions ends here. */
const maxNodes = 2_000;

/** What a PDF carries. */
export type PdfAttachment =
  | { kind: 'none' }
  /** The XML, whole. */
  | { kind: 'xml'; name: string; xml: Uint8Array }
  /** Named as an e-invoice, but over `limit` once inflated. */
  | { kind: 'too-large'; name: string }
  /** Named as an e-invoice, but not readable here (another filter, damaged, encrypted): the PDF is read as a picture. */
  | { kind: 'unreadable'; name: string; reason: string };

const text = (value: PDFObject | undefined): string | undefined =>
  value instanceof PDFString || value instanceof PDFHexString ? value.decodeText() : undefined;

/** The e-invoice a file specification names, if it names one (/UF, the Unicode name, first). */
function invoiceName(spec: PDFDict, treeKey?: string): string | undefined {
  const names = [text(spec.lookup(PDFName.of('UF'))), text(spec.lookup(PDFName.of('F'))), treeKey];
  return names.find((name) => name !== undefined && invoiceFileNames.has(name.replaceAll('\\', '/').split('/').pop()?.toLowerCase() ?? ''));
}

/** The raw stream a file specification embeds (/EF /F, or /UF). */
function embeddedStream(spec: PDFDict): PDFRawStream | undefined {
  const files = spec.lookup(PDFName.of('EF'));
  if (!(files instanceof PDFDict)) return undefined;
  for (const key of ['F', 'UF']) {
    const stream = files.lookup(PDFName.of(key));
    if (stream instanceof PDFRawStream) return stream;
  }
  return undefined;
}

/** The stream's bytes, inflated to at most `limit` (a FlateDecode stream without predictor, or an unfiltered one). */
function contents(stream: PDFRawStream, name: string, limit: number): PdfAttachment {
  const filter = stream.dict.lookup(PDFName.of('Filter'));
  const filters = filter instanceof PDFArray ? filter.asArray().map((each) => stream.dict.context.lookup(each)) : filter ? [filter] : [];
  const names = filters.map((each) => (each instanceof PDFName ? each.decodeText() : '?'));
  if (names.length === 0) {
    if (stream.contents.length > limit) return { kind: 'too-large', name };
    return { kind: 'xml', name, xml: stream.contents };
  }
  if (names.length > 1 || !['FlateDecode', 'Fl'].includes(names[0] as string)) {
    return { kind: 'unreadable', name, reason: `its filter ${names.join(', ')} is not read (only FlateDecode)` };
  }
  const parameters = stream.dict.lookup(PDFName.of('DecodeParms'));
  if (parameters instanceof PDFDict && parameters.has(PDFName.of('Predictor'))) {
    return { kind: 'unreadable', name, reason: 'it uses a predictor, which an XML stream never needs' };
  }
  try {
    return { kind: 'xml', name, xml: inflateSync(stream.contents, { maxOutputLength: limit }) };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') return { kind: 'too-large', name };
    return { kind: 'unreadable', name, reason: `its stream does not inflate (${(error as Error).message})` };
  }
}

/** The file specifications of the catalog's EmbeddedFiles name tree (with their keys) and /AF array, each once. */
function* fileSpecifications(document: PDFDocument): Generator<[PDFDict, string | undefined]> {
  const { catalog, context } = document;
  const seen = new Set<PDFObject>();
  let visited = 0;
  const visit = (value: PDFObject | undefined): PDFObject | undefined => {
    const resolved = value === undefined ? undefined : context.lookup(value);
    if (resolved === undefined || seen.has(resolved) || (visited += 1) > maxNodes) return undefined;
    seen.add(resolved);
    return resolved;
  };
  const names = catalog.lookup(PDFName.of('Names'));
  const pending: (PDFObject | undefined)[] = [names instanceof PDFDict ? names.get(PDFName.of('EmbeddedFiles')) : undefined];
  while (pending.length > 0) {
    const node = visit(pending.pop());
    if (!(node instanceof PDFDict)) continue;
    const kids = node.lookup(PDFName.of('Kids'));
    if (kids instanceof PDFArray) pending.push(...kids.asArray());
    const pairs = node.lookup(PDFName.of('Names'));
    if (!(pairs instanceof PDFArray)) continue;
    for (let index = 0; index + 1 < pairs.size(); index += 2) {
      const spec = visit(pairs.get(index + 1));
      if (spec instanceof PDFDict) yield [spec, text(context.lookup(pairs.get(index)))];
    }
  }
  const associated = catalog.lookup(PDFName.of('AF'));
  for (const entry of associated instanceof PDFArray ? associated.asArray() : []) {
    const spec = visit(entry);
    if (spec instanceof PDFDict) yield [spec, undefined];
  }
}

/** The e-invoice `pdf` carries, inflated to at most `limit` bytes; `none` for a PDF without one, or one pdf-lib cannot open. */
export async function pdfAttachment(pdf: Uint8Array, limit: number): Promise<PdfAttachment> {
  let document: PDFDocument;
  try {
    document = await PDFDocument.load(pdf, { ignoreEncryption: true, updateMetadata: false, parseSpeed: ParseSpeeds.Fastest });
  } catch {
    // Damaged: OCR says so in words.
    return { kind: 'none' };
  }
  let found: PdfAttachment = { kind: 'none' };
  try {
    for (const [spec, key] of fileSpecifications(document)) {
      const name = invoiceName(spec, key);
      const stream = name ? embeddedStream(spec) : undefined;
      if (!name || !stream) continue;
      if (document.isEncrypted) return { kind: 'unreadable', name, reason: 'the PDF is encrypted' };
      found = contents(stream, name, limit);
      if (found.kind === 'xml' || found.kind === 'too-large') return found;
    }
  } catch {
    // A catalog, name tree or string pdf-lib cannot make sense of: no e-invoice found; OCR reads the pages.
    return found;
  }
  return found;
}
