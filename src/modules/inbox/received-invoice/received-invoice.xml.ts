/**
 * Reading an uploaded XML file safely, before anything about it is trusted:
 * at most `maxXmlBytes`, decoded by its BOM or declared encoding, refused
 * whole when it declares a DOCTYPE (so no DTD, no entity of any kind,
 * internal or external, is ever read, and nothing is ever fetched), then
 * parsed by saxes (a non-validating parser that never loads anything: an
 * entity it does not know is an error) into a small tree of elements by
 * namespace and local name, bounded in elements and depth while it parses.
 *
 * The limits bound what one upload costs the API process that reads it:
 * parsing is CPU and memory in proportion to the elements (docs/performance.md,
 * "Receiving e-invoices"). A refusal is an `UnreadableXml` whose message
 * names what is wrong, for a 400.
 */
import { SaxesParser } from 'saxes';

/** At most this many bytes: an EN 16931 invoice of a few thousand lines (larger ones come as several). */
export const maxXmlBytes = 5 * 1024 * 1024;
/** At most this many elements: an EN 16931 invoice of about 5,000 lines. */
export const maxXmlElements = 100_000;
/** Elements nested at most this deep (EN 16931 invoices need about ten levels). */
export const maxXmlDepth = 64;

/** An XML file we will not read; the message says why, for the uploader (it reads after "The file"). */
export class UnreadableXml extends Error {}

/** An element: its namespace and local name, its unprefixed attributes, its own text and its child elements. */
export interface XmlElement {
  uri: string;
  local: string;
  attributes: Record<string, string>;
  text: string;
  children: XmlElement[];
}

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

/** The root element, or an `UnreadableXml` naming what is wrong (malformed, a DOCTYPE, over a limit). */
export function readXml(bytes: Buffer): XmlElement {
  if (bytes.length > maxXmlBytes) throw new UnreadableXml(`is ${bytes.length} bytes; an XML invoice may have ${maxXmlBytes} (5 MiB)`);
  const text = decode(bytes);
  // Refused before the parser sees it: no DTD is read, so no entity (external or expanding) can exist.
  if (/<!DOCTYPE/i.test(text)) throw new UnreadableXml('declares a DOCTYPE; e-invoices have none, and no DTD or entity is ever read');
  const parser = new SaxesParser({ xmlns: true, position: true });
  const document: XmlElement = { uri: '', local: '', attributes: {}, text: '', children: [] };
  const open: XmlElement[] = [document];
  let elements = 0;
  // No error handler: saxes throws at the first error, and the parse stops there.
  parser.on('doctype', () => {
    throw new UnreadableXml('declares a DOCTYPE; e-invoices have none, and no DTD or entity is ever read');
  });
  parser.on('opentag', (tag) => {
    elements += 1;
    if (elements > maxXmlElements) throw new UnreadableXml(`has more than ${maxXmlElements} elements`);
    if (open.length > maxXmlDepth) throw new UnreadableXml(`nests its elements deeper than ${maxXmlDepth} levels`);
    const attributes: Record<string, string> = {};
    for (const attribute of Object.values(tag.attributes)) {
      if (attribute.prefix === '' && attribute.local !== 'xmlns') attributes[attribute.local] = attribute.value;
    }
    const element: XmlElement = { uri: tag.uri, local: tag.local, attributes, text: '', children: [] };
    (open.at(-1) as XmlElement).children.push(element);
    open.push(element);
  });
  const addText = (value: string) => {
    const current = open.at(-1) as XmlElement;
    if (current !== document) current.text += value;
  };
  parser.on('text', addText);
  parser.on('cdata', addText);
  parser.on('closetag', () => {
    open.pop();
  });
  try {
    parser.write(text).close();
  } catch (error) {
    if (error instanceof UnreadableXml) throw error;
    // saxes says where: "line:column: what".
    const message = (error as Error).message.split('\n')[0] ?? '';
    const located = /^(?:[^:]*:)?(\d+):(\d+): (.*)$/.exec(message);
    throw new UnreadableXml(
      located ? `is not well-formed XML at line ${located[1]}, column ${located[2]}: ${located[3]}` : `is not well-formed XML: ${message}`,
    );
  }
  const root = document.children[0];
  if (!root) throw new UnreadableXml('has no root element');
  return root;
}
