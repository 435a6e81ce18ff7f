import { execFileSync } from 'node:child_process';
import type { ClientInvoiceDocument } from '../src/modules/billing/client-invoice/client-invoice.document.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { creditNote, draftInvoice, manyLineInvoice, reverseChargeInvoice, smallBusinessInvoice, twoRateInvoice } from './helpers/client-invoice-documents.js';
import { pdfAttachments, pdfText, pdfWords } from './helpers/files.js';
import { writtenEInvoiceFormats, missingEInvoiceFields, writeEInvoice } from '../src/modules/billing/client-invoice/einvoice/writer.js';
import { clientInvoiceFileName } from '../src/modules/billing/client-invoice/client-invoice.file-name.js';
import { renderClientInvoicePdf } from '../src/modules/billing/client-invoice/client-invoice.pdf.js';
import { missingFacturXFields } from '../src/modules/billing/client-invoice/einvoice/facturx.js';

/** pdftotext's reading, with runs of spaces (its layout) as one. */
const textOf = async (bytes: Buffer) => (await pdfText(bytes)).replace(/[ \t]+/g, ' ');
/** Text without any white space: what is printed, in reading order, whatever the layout's spacing. */
const squeezed = (text: string) => text.replace(/\s+/g, '');

describe('the invoice PDF', () => {
  it('shows the seller, buyer, number, dates, period, lines, VAT breakdown, totals, bank details and the page count', async () => {
    const text = await textOf(await renderClientInvoicePdf(twoRateInvoice, { format: 'pdf' }));
    for (const expected of [
      'Nordlicht Software GmbH',
      'Hanse Logistik AG',
      'Am Sandtorkai 5',
      'VAT ID DE987654321',
      'Invoice 2026-0042',
      '02/11/2026',
      '16/11/2026',
      '01/10/2026 – 31/10/2026',
      'For our services from 1 October 2026 to 31 October 2026',
      'PO-2026-118',
      'Website relaunch: development',
      '42:30 h 95.00 19 % 4,037.50',
      '1.00 unit 480.00 7 % 480.00',
      'Framework agreement discount −526.75',
      `VAT 19 % on ${twoRateInvoice.totals.taxes[0]?.basis.replace(/(\d)(\d{3})\./, '$1,$2.')}`,
      'Total (EUR) 5,589.65',
      'DE89 3704 0044 0532 0130 00',
      'COBADEFFXXX',
      'Please quote the invoice number with your payment.',
      'Page 1 of 1',
    ]) {
      expect(squeezed(text)).toContain(squeezed(expected));
    }
  });

  it('runs a 60-line invoice over pages with the column titles again and "Page x of y" on each', async () => {
    const text = await textOf(await renderClientInvoicePdf(manyLineInvoice(60), { format: 'pdf' }));
    const pages = text.split('\f').filter((page) => page.trim() !== '');
    expect(pages.length).toBeGreaterThan(1);
    pages.forEach((page, index) => {
      expect(page).toContain(`Page ${index + 1} of ${pages.length}`);
      expect(page).toContain('Unit price');
    });
    expect(pages.at(-1)).toContain('Total (EUR)');
    for (let position = 1; position <= 60; position += 1) expect(text).toMatch(new RegExp(`\\n ?${position} `));
  });

  it('marks a draft DRAFT, and titles a credit note as such with the invoice it corrects', async () => {
    const draftBytes = await renderClientInvoicePdf(draftInvoice, { format: 'pdf' });
    expect(await textOf(draftBytes)).toContain('Invoice (draft)');
    // The mark is large and turned: poppler reads it as five big letters.
    const bigLetters = async (bytes: Buffer) =>
      (await pdfWords(bytes))
        .filter((word) => word.yMax - word.yMin > 60)
        .sort((a, b) => a.xMin - b.xMin)
        .map((word) => word.text)
        .join('');
    expect(await bigLetters(draftBytes)).toBe('DRAFT');
    expect(await bigLetters(await renderClientInvoicePdf(twoRateInvoice, { format: 'pdf' }))).toBe('');
    const credit = await textOf(await renderClientInvoicePdf(creditNote, { format: 'pdf' }));
    expect(credit).toContain('CREDIT NOTE');
    expect(credit).toContain('Credit note 2026-0043');
    expect(credit).toContain('2026-0042 of 2 November 2026');
    expect(credit).toContain('Total credit (EUR)');
    expect(clientInvoiceFileName(creditNote, 'pdf')).toBe('credit-note-2026-0043.pdf');
    expect(clientInvoiceFileName(creditNote, 'facturx')).toBe('credit-note-2026-0043.pdf');
    expect(clientInvoiceFileName({ ...creditNote, number: null }, 'peppol')).toBe('credit-note-draft-peppol.xml');
  });

  it('prints exemption reasons, a payment made and what is left to pay', async () => {
    const reverse = await textOf(await renderClientInvoicePdf(reverseChargeInvoice, { format: 'pdf' }));
    for (const expected of ['Reverse charge (AE)', 'VAT to be paid by the recipient', 'France']) expect(squeezed(reverse)).toContain(squeezed(expected));
    const small = await textOf(await renderClientInvoicePdf(smallBusinessInvoice, { format: 'pdf' }));
    for (const expected of ['Kleinunternehmer gemäß § 19 UStG', 'Paid −100.00', 'Amount due (EUR) 500.00'])
      expect(squeezed(small)).toContain(squeezed(expected));
  });
  it('flows long notes onto further pages and prints names beyond Latin-1', async () => {
    const notes = Array.from({ length: 90 }, (_, index) => `Note line ${index + 1}: milestones, acceptance and the terms agreed.`).join('\n');
    const document = {
      ...twoRateInvoice,
      notes,
      buyer: { ...twoRateInvoice.buyer, name: 'Łódź Żółć Sp. z o.o. · Ελληνικά · Київ' },
    };
    const text = await textOf(await renderClientInvoicePdf(document, { format: 'pdf' }));
    const pages = text.split('\f').filter((page) => page.trim() !== '');
    expect(pages.length).toBeGreaterThan(1);
    for (const [index, page] of pages.entries()) expect(page).toContain(`Page ${index + 1} of ${pages.length}`);
    expect(text).toContain('Note line 1:');
    expect(text).toContain('Note line 90:');
    expect(text).toContain('Łódź Żółć Sp. z o.o. · Ελληνικά · Київ');
    // Every note above the footer: none after the footer's e-mail address on its page.
    for (const page of pages) expect(page.lastIndexOf('Note line')).toBeLessThan(page.lastIndexOf('billing@nordlicht.example'));
  });
});

describe('the invoice PDF in the language of its buyer snapshot', () => {
  const inLanguage = (document: ClientInvoiceDocument, language: string): ClientInvoiceDocument => ({
    ...document,
    issueDate: '2026-11-28',
    dueDate: '2026-12-12',
    buyer: { ...document.buyer, language },
  });

  it('speaks German: the title, the dates as 28.11.2026, numbers and amounts as ICU writes them in de', async () => {
    const text = await textOf(await renderClientInvoicePdf(inLanguage(twoRateInvoice, 'de'), { format: 'pdf' }));
    for (const expected of [
      'RECHNUNG',
      'Rechnung 2026-0042',
      'Rechnungsdatum 28.11.2026',
      'Fällig am 12.12.2026',
      '01.10.2026 – 31.10.2026',
      'Für unsere Leistungen vom 1. Oktober 2026 bis 31. Oktober 2026',
      '42:30 Std. 95,00 19 % 4.037,50',
      'Gesamtbetrag (EUR) 5.589,65',
      'Bitte überweisen Sie 5.589,65 € bis zum 12.12.2026',
      'Seite 1 von 1',
    ]) {
      expect(squeezed(text)).toContain(squeezed(expected));
    }
    expect(text).not.toMatch(/Invoice|Total|Page \d/);
  });

  it('speaks French, and a credit note is an "Avoir"', async () => {
    const text = await textOf(await renderClientInvoicePdf(inLanguage(twoRateInvoice, 'fr'), { format: 'pdf' }));
    for (const expected of ['FACTURE', 'Facture 2026-0042', 'Date d’émission 28/11/2026', 'Total TTC (EUR) 5 589,65', 'Page 1 sur 1']) {
      expect(squeezed(text)).toContain(squeezed(expected));
    }
    const credit = await textOf(await renderClientInvoicePdf(inLanguage(creditNote, 'fr'), { format: 'pdf' }));
    expect(credit).toContain('Avoir 2026-0043');
  });

  it('formats for the region of the tag (de-CH groups with an apostrophe) and marks the PDF with the tag', async () => {
    const bytes = await renderClientInvoicePdf(inLanguage(twoRateInvoice, 'de-CH'), { format: 'pdf' });
    expect(squeezed(await textOf(bytes))).toContain(squeezed("Gesamtbetrag (EUR) 5'589.65"));
    expect(bytes.toString('latin1')).toContain('/Lang (de-CH)');
  });

  it('writes the e-invoice notes and payment terms in the language too', async () => {
    const xml = await writeEInvoice(inLanguage(smallBusinessInvoice, 'de'), 'cii');
    expect(xml).toContain('Gemäß § 19 UStG wird keine Umsatzsteuer berechnet.');
    expect(xml).toMatch(/Zahlbar (sofort|innerhalb von \d+ Tagen) ohne Abzug\./);
  });
});

describe('the Factur-X PDF', () => {
  it('is the same invoice as PDF/A-3 with its CII XML as factur-x.xml and the Factur-X XMP', async () => {
    const bytes = await renderClientInvoicePdf(twoRateInvoice, { format: 'facturx' });
    expect(await textOf(bytes)).toContain('Invoice 2026-0042');
    const { names, first, metadata } = await pdfAttachments(bytes);
    expect(names).toEqual(['factur-x.xml']);
    expect(first?.toString('utf8')).toBe(await writeEInvoice(twoRateInvoice, 'cii'));
    for (const expected of [
      '<pdfaid:part>3</pdfaid:part>',
      '<pdfaid:conformance>B</pdfaid:conformance>',
      '<fx:DocumentType>INVOICE</fx:DocumentType>',
      '<fx:DocumentFileName>factur-x.xml</fx:DocumentFileName>',
      '<fx:Version>1.0</fx:Version>',
      '<fx:ConformanceLevel>EN 16931</fx:ConformanceLevel>',
      '<pdfaSchema:namespaceURI>urn:factur-x:pdfa:CrossIndustryDocument:invoice:1p0#</pdfaSchema:namespaceURI>',
    ]) {
      expect(metadata).toContain(expected);
    }
    // The XMP packet with the Factur-X additions is well-formed XML (xmllint reads it).
    expect(() => execFileSync('xmllint', ['--noout', '-'], { input: metadata, stdio: ['pipe', 'ignore', 'pipe'] })).not.toThrow();
    const raw = bytes.toString('latin1');
    expect(raw).toContain('/AFRelationship /Alternative');
    expect(raw).toContain('/OutputIntents');
    expect(raw).toMatch(/\/Subtype \/text#2Fxml/);
  });

  it('refuses a draft, which has no number to put in the XML', async () => {
    expect(missingFacturXFields(draftInvoice)).toEqual(['number', 'issueDate']);
    await expect(renderClientInvoicePdf(draftInvoice, { format: 'facturx' })).rejects.toThrow(/number/);
  });
});

describe('the files of an issued document', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  /** Every file of `document`: the PDF, the Factur-X PDF and each e-invoice format, rendered by the given modules. */
  async function filesOf(document: typeof twoRateInvoice, modules: { pdf: typeof import('../src/modules/billing/client-invoice/client-invoice.pdf.js') }) {
    const files: Record<string, Buffer> = {};
    for (const format of ['pdf', 'facturx'] as const) files[format] = await modules.pdf.renderClientInvoicePdf(document, { format });
    // Every format the document has what it needs for (Peppol asks for electronic addresses this one lacks).
    for (const format of writtenEInvoiceFormats.filter((each) => missingEInvoiceFields(document, each).length === 0)) {
      files[format] = Buffer.from(await writeEInvoice(document, format), 'utf8');
    }
    return files;
  }

  it('are a pure function of the document: the same bytes years later, and after the fonts are loaded again', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-11-02T09:30:00Z'));
    const atIssue = await filesOf(twoRateInvoice, { pdf: await import('../src/modules/billing/client-invoice/client-invoice.pdf.js') });
    vi.setSystemTime(new Date('2034-12-31T23:59:59Z'));
    // A fresh copy of the renderer: its fonts read and registered again, as in a process started later.
    vi.resetModules();
    const later = await filesOf(twoRateInvoice, { pdf: await import('../src/modules/billing/client-invoice/client-invoice.pdf.js') });
    for (const [format, bytes] of Object.entries(atIssue)) expect(later[format]?.equals(bytes), format).toBe(true);
    // The dates a PDF carries are the issue date's, never the time of rendering.
    const raw = (atIssue.facturx as Buffer).toString('latin1');
    expect(raw).toContain('/CreationDate (D:20261102000000Z)');
    expect(raw).toContain('<xmp:CreateDate>2026-11-02T00:00:00Z</xmp:CreateDate>');
    expect(raw).not.toMatch(/2034|ModDate \(D:(?!20261102)/);
  });
});
