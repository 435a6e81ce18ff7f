/**
 * Reading an uploaded XML file safely, before anything about it is trusted:
 * at most `maxXmlBytes`, decoded by its BOM or declared encoding, refused whole when it declares a
 * DOCTYPE (so no DTD, no entity of any kind, internal or external, is ever
 * read, and nothing is ever fetched), bounded in tags before it is parsed and
 * in depth after, then parsed by @xmldom/xmldom with every error fatal.
 *
 * The limits bound what one upload costs the API process that reads it:
 * parsing is CPU and memory in proportion to the tags (docs/performance.md,
 * "Receiving e-invoices"). A refusal is an `UnreadableXml` whose message
 * names what is wrong, for a 400.
 */
import { DOMParser, type Document, type Element } from '@xmldom/xmldom';

/** At most this many bytes: an EN 16931 invoice of a few thousand lines (larger ones come as several). */
export const maxXmlBytes = 5 * 1024 * 1024;
/** At most this many `<` (tags, comments, declarations): an EN 16931 invoice of about 2,000 lines. */
export const maxXmlTags = 100_000;
/** Elements nested at most this deep (EN 16931 invoices need about ten levels). */
export const maxXmlDepth = 64;

/** An XML file we will not read; the message says why, for the uploader (it reads after "The file"). */
export class UnreadableXml extends Error {}

const byteOrderMarks: [Buffer, string][] = [
  [Buffer.from([0xef, 0xbb, 0xbf]), 'utf-8'],
  [Buffer.from([0xff, 0xfe]), 'utf-16le'],
  [Buffer.from([0xfe, 0xff]), 'utf-16be'],
];

/** The text of `bytes`: by its byte-order mark, else by the encoding its declaration names (UTF-8 when none). */
function decode(bytes: Buffer): string {
  const marked = byteOrderMarks.find(([mark]) => bytes.subarray(0, mark.length).equals(mark));
  const declared = /^<\?xml[^>]*?\sencoding\s*=\s*["']([A-Za-z0-9._-]{1,40})["']/.exec(bytes.subarray(0, 200).toString('latin1'))?.[1];
  const encoding = marked?.[1] ?? declared ?? 'utf-8';
  let decoder: TextDecoder;
  try {
    decoder = new TextDecoder(encoding, { fatal: true });
  } catch {
    throw new UnreadableXml(`is in ${encoding}, an encoding we do not read; send UTF-8`);
  }
  try {
    return decoder.decode(marked ? bytes.subarray(marked[0].length) : bytes);
  } catch {
    throw new UnreadableXml(`is not valid ${encoding}`);
  }
}

/** How deep the elements under `root` nest (an explicit stack: a document nested deeper than the limit must not overflow ours). */
function depthOf(root: Element): number {
  let deepest = 0;
  const stack: [Element, number][] = [[root, 1]];
  while (stack.length > 0) {
    const [element, depth] = stack.pop() as [Element, number];
    if (depth > deepest) deepest = depth;
    if (deepest > maxXmlDepth) break;
    for (let child = element.firstChild; child; child = child.nextSibling) {
      if (child.nodeType === child.ELEMENT_NODE) stack.push([child as Element, depth + 1]);
    }
  }
  return deepest;
}

/** The parsed document, or an `UnreadableXml` naming what is wrong (malformed, a DOCTYPE, over a limit). */
export function readXml(bytes: Buffer): Document {
  if (bytes.length > maxXmlBytes) throw new UnreadableXml(`is ${bytes.length} bytes; an XML invoice may have ${maxXmlBytes} (5 MiB)`);
  const text = decode(bytes);
  // Refused before the parser sees it: no DTD is read, so no entity (external or expanding) can exist.
  if (/<!DOCTYPE/i.test(text)) throw new UnreadableXml('declares a DOCTYPE; e-invoices have none, and no DTD or entity is ever read');
  let tags = 0;
  for (let at = text.indexOf('<'); at !== -1; at = text.indexOf('<', at + 1)) {
    tags += 1;
    if (tags > maxXmlTags) throw new UnreadableXml(`has more than ${maxXmlTags} tags`);
  }
  let reason: string | undefined;
  let document: Document;
  try {
    document = new DOMParser({
      onError: (level, message) => {
        // Warnings are about style; anything a reader could take two ways stops the parse.
        if (level === 'warning') return;
        reason ??= message.split('\n')[0];
        throw new UnreadableXml(message);
      },
    }).parseFromString(text, 'application/xml');
  } catch (error) {
    const line = (error as { locator?: { lineNumber?: number; columnNumber?: number } }).locator;
    const where = line?.lineNumber ? ` at line ${line.lineNumber}, column ${line.columnNumber ?? 0}` : '';
    throw new UnreadableXml(`is not well-formed XML${where}: ${reason ?? (error as Error).message}`);
  }
  const root = document.documentElement;
  if (!root) throw new UnreadableXml('has no root element');
  if (depthOf(root) > maxXmlDepth) throw new UnreadableXml(`nests its elements deeper than ${maxXmlDepth} levels`);
  return document;
}
