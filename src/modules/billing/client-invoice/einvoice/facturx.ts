/**
 * Factur-X 1.0 / ZUGFeRD 2 (EN 16931 profile): a PDF/A-3b that carries its CII XML (cii.ts) as the attached
 * `factur-x.xml`, with the XMP metadata readers look for. The PDF's pages are the PDF people read
 * (client-invoice.pdf.ts), which asks this file for what makes them a Factur-X.
 */
import type { ClientInvoiceDocument } from '../client-invoice.document.js';
import { missingEInvoiceFields } from './requirements.js';

/** The fields a Factur-X PDF needs that `document` lacks: those of its embedded CII XML. */
export function missingFacturXFields(document: ClientInvoiceDocument): string[] {
  return missingEInvoiceFields(document, 'cii');
}

const facturXNamespace = 'urn:factur-x:pdfa:CrossIndustryDocument:invoice:1p0#';
const rdfNamespace = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#';

/** The XMP properties Factur-X defines, each described in the PDF/A extension schema that PDF/A requires for them. */
const facturXProperties: [name: string, value: string, description: string][] = [
  ['DocumentType', 'INVOICE', 'The type of the hybrid document in capital letters, e.g. INVOICE or ORDER'],
  ['DocumentFileName', 'factur-x.xml', 'The name of the embedded XML document'],
  ['Version', '1.0', 'The actual version of the standard applying to the embedded XML document'],
  ['ConformanceLevel', 'EN 16931', 'The conformance level of the embedded XML document'],
];

/** `xml` as the attached `factur-x.xml` (relationship Alternative: the XML says what the pages show) and its XMP. */
export async function embedFacturX(pdf: PDFKit.PDFDocument, xml: string, date: Date): Promise<void> {
  const { create } = await import('xmlbuilder2');
  const attachment: PDFKit.Mixins.PDFAttachmentOptions & { relationship: string } = {
    name: 'factur-x.xml',
    type: 'text/xml',
    description: 'Factur-X / ZUGFeRD invoice (EN 16931)',
    relationship: 'Alternative',
    creationDate: date,
    modifiedDate: date,
  };
  pdf.file(Buffer.from(xml, 'utf8'), attachment);
  const values = create()
    .ele(rdfNamespace, 'rdf:Description')
    .att(rdfNamespace, 'rdf:about', '')
    .att('http://www.w3.org/2000/xmlns/', 'xmlns:fx', facturXNamespace);
  for (const [name, value] of facturXProperties) values.ele(facturXNamespace, `fx:${name}`).txt(value);
  const extension = create()
    .ele(rdfNamespace, 'rdf:Description')
    .att(rdfNamespace, 'rdf:about', '')
    .att('http://www.w3.org/2000/xmlns/', 'xmlns:pdfaExtension', 'http://www.aiim.org/pdfa/ns/extension/')
    .att('http://www.w3.org/2000/xmlns/', 'xmlns:pdfaSchema', 'http://www.aiim.org/pdfa/ns/schema#')
    .att('http://www.w3.org/2000/xmlns/', 'xmlns:pdfaProperty', 'http://www.aiim.org/pdfa/ns/property#');
  const schema = extension
    .ele('http://www.aiim.org/pdfa/ns/extension/', 'pdfaExtension:schemas')
    .ele(rdfNamespace, 'rdf:Bag')
    .ele(rdfNamespace, 'rdf:li')
    .att(rdfNamespace, 'rdf:parseType', 'Resource');
  schema.ele('http://www.aiim.org/pdfa/ns/schema#', 'pdfaSchema:schema').txt('Factur-X PDFA Extension Schema');
  schema.ele('http://www.aiim.org/pdfa/ns/schema#', 'pdfaSchema:namespaceURI').txt(facturXNamespace);
  schema.ele('http://www.aiim.org/pdfa/ns/schema#', 'pdfaSchema:prefix').txt('fx');
  const properties = schema.ele('http://www.aiim.org/pdfa/ns/schema#', 'pdfaSchema:property').ele(rdfNamespace, 'rdf:Seq');
  for (const [name, , description] of facturXProperties) {
    const property = properties.ele(rdfNamespace, 'rdf:li').att(rdfNamespace, 'rdf:parseType', 'Resource');
    property.ele('http://www.aiim.org/pdfa/ns/property#', 'pdfaProperty:name').txt(name);
    property.ele('http://www.aiim.org/pdfa/ns/property#', 'pdfaProperty:valueType').txt('Text');
    property.ele('http://www.aiim.org/pdfa/ns/property#', 'pdfaProperty:category').txt('external');
    property.ele('http://www.aiim.org/pdfa/ns/property#', 'pdfaProperty:description').txt(description);
  }
  // Fragments: pdfkit writes the XMP packet around them (and the PDF/A identification beside them).
  pdf.appendXML(values.end({ headless: true }));
  pdf.appendXML(extension.end({ headless: true }));
}
