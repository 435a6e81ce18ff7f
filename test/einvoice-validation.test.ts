/**
 * Every e-invoice Tally writes passes the official rules (issues 32 and 37): each fixture (a two-rate invoice
 * with a discount, a credit note, reverse charge, a small business, a public-sector client with a Leitweg-ID,
 * an intra-community supply, work not subject to VAT, time in awkward minutes with rounding lines) in each
 * format, XRechnung ones with `--xrechnung`, the four Peppol cases (domestic, cross-border reverse charge, a
 * credit note, a small business with only a tax number) with `--peppol`, and the CII XML taken out of each
 * Factur-X PDF with `pdfdetach`. No fatal rule, and no warning of any kind.
 *
 * Every line of every one of those files, and of every fixture's PDF, is read again by a second reader and
 * its net recomputed exactly (round(quantity x price / base quantity, 2)): saxes for the XML, pdftotext for
 * the PDF, and factur-x-kit (a Factur-X library with a line rule of its own, BR-OWN-4) for the CII.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { FacturX } from 'factur-x-kit';
import { afterAll, describe, expect, it } from 'vitest';
import type { ClientInvoiceDocument } from '../src/modules/billing/client-invoice/client-invoice.document.js';
import { type WrittenEInvoiceFormat, writtenEInvoiceFormats, writeEInvoice } from '../src/modules/billing/client-invoice/einvoice/writer.js';
import { renderClientInvoicePdf } from '../src/modules/billing/client-invoice/client-invoice.pdf.js';
import { issuedFixtures } from './helpers/client-invoice-documents.js';
import { peppolFixtures } from './helpers/peppol-documents.js';
import { centsOf, inexactLines, readPdfLines, readXmlLines } from './helpers/einvoice-lines.js';
import { validateEInvoices, validateWithScript, validationDirectory, type ValidationFile } from './helpers/einvoice-validation.js';
import { pdfAttachments, pdfText } from './helpers/files.js';

const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'tally-einvoice-'));
afterAll(() => fs.rmSync(directory, { recursive: true, force: true }));

/** What the second reader finds wrong with a file's lines: inexact nets, line allowances, a line total that is not their sum. */
function lineProblems(name: string, xml: string): string[] {
  const { lines, lineTotal, lineAllowancesAndCharges } = readXmlLines(xml);
  const sum = lines.reduce((total, line) => total + centsOf(line.net), 0n);
  return [
    ...inexactLines(lines).map((problem) => `${name} ${problem}`),
    ...(lineAllowancesAndCharges > 0 ? [`${name}: ${lineAllowancesAndCharges} line allowances or charges`] : []),
    ...(sum === centsOf(lineTotal) ? [] : [`${name}: the lines sum to ${sum} cents, the invoice says ${lineTotal}`]),
  ];
}

describe('e-invoices against the official rules', () => {
  it('finds the validator', () => {
    expect(fs.existsSync(path.join(validationDirectory, 'validate-einvoice')), `validate-einvoice in ${validationDirectory} (VALIDATION_DIR)`).toBe(true);
  });

  it(
    'passes every format of every fixture, the Peppol cases and the XML in every Factur-X PDF, without a fatal rule or a warning, and a second reader recomputes every line',
    { timeout: 600_000 },
    async () => {
      const files: ValidationFile[] = [];
      const problems: string[] = [];
      const write = async (name: string, document: ClientInvoiceDocument, format: WrittenEInvoiceFormat) => {
        const xml = await writeEInvoice(document, format);
        const file = path.join(directory, `${name}.${format}.xml`);
        fs.writeFileSync(file, xml);
        problems.push(...lineProblems(`${name}.${format}`, xml));
        files.push({ file, xrechnung: format.startsWith('xrechnung'), peppol: format === 'peppol' });
        return xml;
      };
      for (const [name, document] of Object.entries(issuedFixtures)) {
        // The CII a Factur-X PDF carries is the cii format byte for byte: validating what pdfdetach takes out
        // of the PDF validates both, with one JVM less per fixture.
        const facturX = await renderClientInvoicePdf(document, { format: 'facturx' });
        const attachments = await pdfAttachments(facturX);
        expect(attachments.names, name).toEqual(['factur-x.xml']);
        const cii = attachments.first?.toString('utf8') ?? '';
        expect(cii, name).toBe(await writeEInvoice(document, 'cii'));
        const embedded = path.join(directory, `${name}.facturx-cii.xml`);
        fs.writeFileSync(embedded, cii);
        files.push({ file: embedded });
        problems.push(...lineProblems(`${name}.facturx`, cii));
        const kit = (await FacturX.fromXML(cii)).validate();
        if (!kit.valid) problems.push(`${name}.facturx (factur-x-kit): ${JSON.stringify(kit.errors)}`);
        // The PDF people read says the same: h:mm at a rate per hour, or a quantity at a price, to the cent.
        const printed = readPdfLines(await pdfText(facturX));
        expect(
          printed.map((line) => line.position),
          `${name}: every line read from the PDF`,
        ).toEqual(document.lines.map((line) => line.position));
        problems.push(...inexactLines(printed).map((problem) => `${name}.pdf ${problem}`));
        for (const format of writtenEInvoiceFormats.filter((format) => format !== 'cii' && format !== 'peppol')) await write(name, document, format);
      }
      for (const [name, document] of Object.entries(peppolFixtures)) await write(name, document, 'peppol');

      const results = await validateEInvoices(files);
      const failures = results.filter((result) => result.exitCode !== 0 || result.lines.length > 0);
      expect(
        failures.map((result) => `${path.basename(result.file)} (exit ${result.exitCode}):\n  ${result.lines.join('\n  ')}`),
        'validate-einvoice prints nothing for a valid invoice: every line is a failed rule',
      ).toEqual([]);
      expect(results).toHaveLength(Object.keys(issuedFixtures).length * (writtenEInvoiceFormats.length - 1) + Object.keys(peppolFixtures).length);
      expect(problems, 'every line net is round(quantity x price / base quantity, 2), and the lines sum to the invoice').toEqual([]);
    },
  );

  it('is a test that can fail: a wrong country code is fatal, an EM address fails Peppol, and a net a cent off is found', { timeout: 120_000 }, async () => {
    const [name, document] = Object.entries(issuedFixtures)[0] as [string, ClientInvoiceDocument];
    const broken = {
      ...document,
      buyer: { ...document.buyer, address: { ...(document.buyer.address as NonNullable<typeof document.buyer.address>), countryCode: 'XX' } },
    };
    const file = path.join(directory, `${name}.broken.xml`);
    fs.writeFileSync(file, await writeEInvoice(broken, 'ubl'));
    // Peppol's rules on a UBL whose endpoints are e-mail addresses: R020's scheme list refuses EM.
    const email = path.join(directory, `${name}.email-endpoints.xml`);
    fs.writeFileSync(
      email,
      (await writeEInvoice(document, 'ubl')).replace('urn:cen.eu:en16931:2017<', 'urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0<'),
    );
    // A CII the schema refuses (an element it does not know), with KoSIT's rules on top: every step of the script says something.
    const unknownElement = path.join(directory, `${name}.unknown-element.xml`);
    fs.writeFileSync(
      unknownElement,
      (await writeEInvoice(document, 'xrechnung-cii')).replace('<ram:LineTotalAmount>', '<ram:Unknown>1</ram:Unknown><ram:LineTotalAmount>'),
    );
    const broken3: ValidationFile[] = [{ file }, { file: email, peppol: true }, { file: unknownElement, xrechnung: true }];
    const batch = await validateEInvoices(broken3);
    const [result, peppol, schema] = batch;
    expect(result?.exitCode).toBe(1);
    expect(result?.lines.some((line) => line.startsWith('fatal BR-CL-14'))).toBe(true);
    expect(peppol?.exitCode).toBe(1);
    expect(peppol?.lines.some((line) => line.startsWith('fatal PEPPOL-EN16931-CL008'))).toBe(true);
    expect(schema?.exitCode).toBe(1);
    expect(schema?.lines[0]).toMatch(/^fatal XSD .*Unknown/);
    // The tests validate all their files at once (test/helpers/einvoice-validation.ts): line for line what the script says of each alone.
    expect(batch, 'validateEInvoices says what validate-einvoice says, file by file').toEqual(await validateWithScript(broken3));

    const cii = await writeEInvoice(document, 'cii');
    const oneCentOff = cii.replace('<ram:LineTotalAmount>174.17</ram:LineTotalAmount>', '<ram:LineTotalAmount>174.16</ram:LineTotalAmount>');
    expect(oneCentOff).not.toBe(cii);
    expect(inexactLines(readXmlLines(oneCentOff).lines)).toEqual(['line 1: 95.0000 x 110.00 / 60 = 17417 cents, written 174.16']);
  });
});
