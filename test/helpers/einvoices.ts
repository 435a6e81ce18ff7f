/**
 * Received e-invoices for the tests: the CEN EN 16931 examples, what they
 * say as read by an independent reader (libxml2's `xmllint --xpath`, not
 * Tally's parser), and a Factur-X PDF built by embedding one in a PDF with
 * pdf-lib.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { validationDirectory } from './einvoice-validation.js';
import { AFRelationship, PDFDocument, StandardFonts } from 'pdf-lib';

/** The CEN's examples, in `../shared/validation` beside the clone (as the validator is found), or under VALIDATION_DIR. */
export const examplesDir = path.join(validationDirectory, 'en16931/examples');

/** The CEN examples the contract names, with their syntax. */
export const cenExamples = [
  { file: 'CII_example1.xml', syntax: 'cii' },
  { file: 'CII_business_example_01.xml', syntax: 'cii' },
  { file: 'XRechnung-O.xml', syntax: 'cii' },
  { file: 'ubl-tc434-example1.xml', syntax: 'ubl' },
  { file: 'ubl-tc434-creditnote1.xml', syntax: 'ubl' },
] as const;

export const example = (file: string): Buffer => fs.readFileSync(path.join(examplesDir, file));

/** Every text an XPath 1.0 expression selects in `file`, by xmllint. */
function xpath(file: string, expression: string): string[] {
  let out: string;
  try {
    out = execFileSync('xmllint', ['--xpath', expression, path.join(examplesDir, file)], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (error) {
    // xmllint exits 10 when the expression selects nothing.
    if ((error as { status?: number }).status === 10) return [];
    throw error;
  }
  // Each selected element printed whole: its start tag, its text, its end tag.
  return [...out.matchAll(/<([\w.:-]+)[^>]*>([^<]*)<\/\1>/g)].map((match) => (match[2] as string).trim());
}

const local = (...names: string[]) => names.map((name) => `*[local-name()='${name}']`).join('/');

/** What an example says, as decimal text (compare with `sameDecimal`). */
export interface ExpectedInvoice {
  number: string;
  currency: string;
  netAmount: string;
  taxAmount: string | undefined;
  totalAmount: string;
  lineNets: string[];
  lineQuantities: string[];
}

export function expectedOf(file: string, syntax: 'cii' | 'ubl'): ExpectedInvoice {
  if (syntax === 'cii') {
    const summation = `/${local('CrossIndustryInvoice', 'SupplyChainTradeTransaction', 'ApplicableHeaderTradeSettlement', 'SpecifiedTradeSettlementHeaderMonetarySummation')}`;
    const items = `/${local('CrossIndustryInvoice', 'SupplyChainTradeTransaction', 'IncludedSupplyChainTradeLineItem')}`;
    return {
      number: xpath(file, `/${local('CrossIndustryInvoice', 'ExchangedDocument', 'ID')}`)[0] as string,
      currency: xpath(
        file,
        `/${local('CrossIndustryInvoice', 'SupplyChainTradeTransaction', 'ApplicableHeaderTradeSettlement', 'InvoiceCurrencyCode')}`,
      )[0] as string,
      netAmount: xpath(file, `${summation}/${local('TaxBasisTotalAmount')}`)[0] as string,
      taxAmount: xpath(file, `${summation}/${local('TaxTotalAmount')}`)[0],
      totalAmount: xpath(file, `${summation}/${local('GrandTotalAmount')}`)[0] as string,
      lineNets: xpath(file, `${items}/${local('SpecifiedLineTradeSettlement', 'SpecifiedTradeSettlementLineMonetarySummation', 'LineTotalAmount')}`),
      lineQuantities: xpath(file, `${items}/${local('SpecifiedLineTradeDelivery', 'BilledQuantity')}`),
    };
  }
  const root = file.includes('creditnote') ? 'CreditNote' : 'Invoice';
  const line = root === 'CreditNote' ? 'CreditNoteLine' : 'InvoiceLine';
  return {
    number: xpath(file, `/${local(root, 'ID')}`)[0] as string,
    currency: xpath(file, `/${local(root, 'DocumentCurrencyCode')}`)[0] as string,
    netAmount: xpath(file, `/${local(root, 'LegalMonetaryTotal', 'TaxExclusiveAmount')}`)[0] as string,
    taxAmount: xpath(file, `/${local(root, 'TaxTotal', 'TaxAmount')}`)[0],
    totalAmount: xpath(file, `/${local(root, 'LegalMonetaryTotal', 'TaxInclusiveAmount')}`)[0] as string,
    lineNets: xpath(file, `/${local(root, line, 'LineExtensionAmount')}`),
    lineQuantities: xpath(file, `/${local(root, line, root === 'CreditNote' ? 'CreditedQuantity' : 'InvoicedQuantity')}`),
  };
}

/** Decimal text without a sign of +, leading or trailing zeros ("0019.90" and "19.9" are the same), compared as text, never as a float. */
export function sameDecimal(value: string): string {
  const [whole = '', fraction = ''] = value.replace(/^\+/, '').split('.');
  const negative = whole.startsWith('-');
  const digits = whole.replace(/^-/, '').replace(/^0+(?=\d)/, '');
  const decimals = fraction.replace(/0+$/, '');
  return `${negative ? '-' : ''}${digits}${decimals ? `.${decimals}` : ''}`;
}

/** A one-page PDF with `xml` embedded as `fileName` (Factur-X's way: EmbeddedFiles and the catalog's /AF, relationship Data). */
export async function pdfWithEmbedded(xml: Buffer, fileName = 'factur-x.xml', pageText = 'Invoice 12115118'): Promise<Buffer> {
  const document = await PDFDocument.create();
  const font = await document.embedFont(StandardFonts.Helvetica);
  document.addPage([595.28, 841.89]).drawText(pageText, { x: 50, y: 780, size: 16, font });
  await document.attach(xml, fileName, {
    mimeType: 'text/xml',
    description: 'Factur-X invoice',
    afRelationship: AFRelationship.Data,
    creationDate: new Date('2026-11-01T00:00:00Z'),
    modificationDate: new Date('2026-11-01T00:00:00Z'),
  });
  return Buffer.from(await document.save());
}

/** CII_example1 with `count` lines (its first line repeated, each with its own LineID): a large invoice to time. */
export function ciiWithLines(count: number): Buffer {
  const text = example('CII_example1.xml').toString('utf8');
  const first = /<ram:IncludedSupplyChainTradeLineItem>[\s\S]*?<\/ram:IncludedSupplyChainTradeLineItem>/.exec(text)?.[0] as string;
  const lines = Array.from({ length: count }, (_, index) => first.replace('<ram:LineID>1</ram:LineID>', `<ram:LineID>${index + 1}</ram:LineID>`)).join('\n');
  return Buffer.from(text.replace(/(\s*<ram:IncludedSupplyChainTradeLineItem>[\s\S]*<\/ram:IncludedSupplyChainTradeLineItem>)/, `\n${lines}`));
}
