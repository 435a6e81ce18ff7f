/**
 * Every e-invoice Tally writes passes the official rules (issue 32): each fixture (a two-rate invoice
 * with a discount, a credit note, reverse charge, a small business, a public-sector client with a
 * Leitweg-ID, an intra-community supply, work not subject to VAT) in each format, XRechnung ones with
 * `--xrechnung`, and the CII XML taken out of each Factur-X PDF with `pdfdetach`. No fatal rule, and no
 * warning of any kind.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { eInvoiceFormats, writeEInvoice } from '../src/modules/client-invoice/client-invoice.einvoice.js';
import { renderClientInvoicePdf } from '../src/modules/client-invoice/client-invoice.pdf.js';
import { issuedFixtures } from './helpers/client-invoice-documents.js';
import { validateEInvoices, validationDirectory } from './helpers/einvoice-validation.js';
import { pdfAttachments } from './helpers/files.js';

const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'tally-einvoice-'));
afterAll(() => fs.rmSync(directory, { recursive: true, force: true }));

describe('e-invoices against the official rules', () => {
  it('finds the validator', () => {
    expect(fs.existsSync(path.join(validationDirectory, 'validate-einvoice')), `validate-einvoice in ${validationDirectory} (VALIDATION_DIR)`).toBe(true);
  });

  it('passes every format of every fixture, and the XML in every Factur-X PDF, without a fatal rule or a warning', { timeout: 600_000 }, async () => {
    const files: { file: string; xrechnung: boolean }[] = [];
    for (const [name, document] of Object.entries(issuedFixtures)) {
      // The CII a Factur-X PDF carries is the cii format byte for byte: validating what pdfdetach takes out
      // of the PDF validates both, with one JVM less per fixture.
      const attachments = await pdfAttachments(await renderClientInvoicePdf(document, { format: 'facturx' }));
      expect(attachments.names, name).toEqual(['factur-x.xml']);
      expect(attachments.first?.toString('utf8'), name).toBe(await writeEInvoice(document, 'cii'));
      const embedded = path.join(directory, `${name}.facturx-cii.xml`);
      fs.writeFileSync(embedded, attachments.first as Buffer);
      files.push({ file: embedded, xrechnung: false });
      for (const format of eInvoiceFormats.filter((format) => format !== 'cii')) {
        const file = path.join(directory, `${name}.${format}.xml`);
        fs.writeFileSync(file, await writeEInvoice(document, format));
        files.push({ file, xrechnung: format.startsWith('xrechnung') });
      }
    }
    const results = await validateEInvoices(files);
    const failures = results.filter((result) => result.exitCode !== 0 || result.lines.length > 0);
    expect(
      failures.map((result) => `${path.basename(result.file)} (exit ${result.exitCode}):\n  ${result.lines.join('\n  ')}`),
      'validate-einvoice prints nothing for a valid invoice: every line is a failed rule',
    ).toEqual([]);
    expect(results).toHaveLength(Object.keys(issuedFixtures).length * eInvoiceFormats.length);
  });

  it('is a test that can fail: a wrong country code is fatal', { timeout: 120_000 }, async () => {
    const [name, document] = Object.entries(issuedFixtures)[0] as [string, (typeof issuedFixtures)[string]];
    const broken = {
      ...document,
      buyer: { ...document.buyer, address: { ...(document.buyer.address as NonNullable<typeof document.buyer.address>), countryCode: 'XX' } },
    };
    const file = path.join(directory, `${name}.broken.xml`);
    fs.writeFileSync(file, await writeEInvoice(broken, 'ubl'));
    const [result] = await validateEInvoices([{ file, xrechnung: false }]);
    expect(result?.exitCode).toBe(1);
    expect(result?.lines.some((line) => line.startsWith('fatal BR-CL-14'))).toBe(true);
  });
});
