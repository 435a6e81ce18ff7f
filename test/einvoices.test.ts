/**
 * Received EN 16931 e-invoices against a real server with its workers: each
 * CEN example uploaded as XML (CII, UBL invoice and credit note) and a
 * Factur-X PDF built with pdf-lib are read from their XML to the figures an
 * independent reader (xmllint) finds in them, with their lines, over REST and
 * GraphQL, and queue no OCR; a PDF without one still goes to OCR; and XML
 * that is malformed, no invoice, too large or declares a DOCTYPE or an
 * external entity is a 400 naming `file`, fetches nothing and stores nothing.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { deflateSync } from 'node:zlib';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Invoice } from './generated/openapi/types.gen.js';
import { pdfBomb, pdfWithCompressedAttachment } from './helpers/bombs.js';
import { cenExamples, example, expectedOf, pdfWithEmbedded, sameDecimal } from './helpers/einvoices.js';
import type { ApiResponse } from './helpers/http.js';
import { invoiceForm, textPdf } from './helpers/invoices.js';
import { startIdentityProvider, type IdentityProvider } from './helpers/oidc.js';
import { seeder, type SeededTenant } from './helpers/seed.js';
import { startTestServer, type TestServer } from './helpers/server.js';

type Line = { position: number; lineId: string; name: string; quantity: string; unitCode: string; netAmount: string; taxCategory: string | null };
type Received = Invoice & { lines: Line[]; eInvoiceFormat: string | null; type: string; vendorVatId: string | null };
type Problem = { code: string; detail: string; errors?: { path: string; message: string }[] };

let provider: IdentityProvider;
let server: TestServer;
let tenant: SeededTenant;
let database: pg.Client;

beforeAll(async () => {
  provider = await startIdentityProvider();
  server = await startTestServer({ env: provider.env });
  tenant = await seeder(server).tenant();
  database = new pg.Client({ connectionString: server.databaseUrl });
  await database.connect();
});
afterAll(async () => {
  await database?.end();
  await server?.stop();
  await provider?.close();
});

async function upload(to: SeededTenant, file: Buffer, fileName: string, type = 'application/xml'): Promise<ApiResponse<Received & Problem>> {
  const response = await fetch(`${server.url}/tenants/${to.id}/invoices/upload`, {
    method: 'POST',
    headers: { authorization: `Bearer ${to.key}` },
    body: invoiceForm(file, fileName, {}, type),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined, text } as ApiResponse<Received & Problem>;
}

const ocrJobs = async (invoiceId: string): Promise<number> =>
  (await database.query(`SELECT count(*)::int AS n FROM pgboss.job WHERE name = 'invoice.ocr' AND data->>'invoiceId' = $1`, [invoiceId])).rows[0].n;

const invoiceCount = async (of: SeededTenant): Promise<number> =>
  (await database.query(`SELECT count(*)::int AS n FROM invoices WHERE "tenantId" = $1`, [of.id])).rows[0].n;

const filesDir = () => path.join(server.app.config.dataDir, 'files');
const stagingLeft = () => (fs.existsSync(path.join(filesDir(), 'staging')) ? fs.readdirSync(path.join(filesDir(), 'staging')) : []);

describe('the CEN examples, uploaded as XML', () => {
  for (const { file, syntax } of cenExamples) {
    it(`${file}: read exactly, with its lines, and no OCR`, async () => {
      const expected = expectedOf(file, syntax);
      const answer = await upload(tenant, example(file), file, file.startsWith('ubl') ? 'text/xml' : 'application/xml');
      expect(answer.status, answer.text).toBe(201);
      const invoice = answer.body;
      expect(invoice).toMatchObject({
        eInvoiceFormat: syntax,
        ocrStatus: 'none',
        mimeType: 'application/xml',
        number: expected.number,
        currency: expected.currency,
      });
      expect(invoice.type).toBe(file.includes('creditnote') ? 'credit_note' : 'invoice');
      expect(sameDecimal(invoice.netAmount as string)).toBe(sameDecimal(expected.netAmount));
      expect(sameDecimal(invoice.totalAmount as string)).toBe(sameDecimal(expected.totalAmount));
      // XRechnung-O has no BT-110: its tax is the sum of its VAT breakdown (0.00 there).
      expect(sameDecimal(invoice.taxAmount as string)).toBe(sameDecimal(expected.taxAmount ?? '0'));
      expect(invoice.vendorName).toBeTruthy();
      expect(invoice.issueDate).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      expect(invoice.lines.map((line) => sameDecimal(line.netAmount))).toEqual(expected.lineNets.map(sameDecimal));
      expect(invoice.lines.map((line) => sameDecimal(line.quantity))).toEqual(expected.lineQuantities.map(sameDecimal));
      expect(invoice.lines.map((line) => line.position)).toEqual(expected.lineNets.map((_, index) => index + 1));
      expect(await ocrJobs(invoice.id)).toBe(0);
      // The same, read again later.
      const again = await tenant.api.get<Received>(`/tenants/${tenant.id}/invoices/${invoice.id}`);
      expect(again.body).toEqual(invoice);
    });
  }

  it('keeps the vendor, VAT id, dates and a line of CII_example1 as written, and OCR is refused for it', async () => {
    const other = await seeder(server).tenant();
    const answer = await upload(other, example('CII_example1.xml'), 'CII_example1.xml');
    expect(answer.status, answer.text).toBe(201);
    expect(answer.body).toMatchObject({
      vendorName: 'De Koksmaat',
      vendorVatId: 'NL8200.98.395.B.01',
      issueDate: '2015-01-09',
      dueDate: '2015-01-09',
      netAmount: '229.60',
      taxAmount: '20.73',
      totalAmount: '250.33',
    });
    expect(answer.body.lines[0]).toEqual({
      position: 1,
      lineId: '1',
      name: 'PATAT FRITES 10MM 10KG',
      description: null,
      quantity: '2',
      unitCode: 'H87',
      unitPrice: '9.95',
      priceBaseQuantity: null,
      netAmount: '19.90',
      taxCategory: 'S',
      taxRate: '6.00',
    });
    const ocr = await other.api.post<Problem & { reason: string }>(`/tenants/${other.id}/invoices/${answer.body.id}/ocr`);
    expect(ocr.status).toBe(409);
    expect(ocr.body.reason).toBe('READ_FROM_EINVOICE');
    // Served back as it came.
    const file = await fetch(`${server.url}/tenants/${other.id}/invoices/${answer.body.id}/file`, { headers: { authorization: `Bearer ${other.key}` } });
    expect(file.headers.get('content-type')).toBe('application/xml');
    expect(Buffer.from(await file.arrayBuffer()).equals(example('CII_example1.xml'))).toBe(true);
  });

  it('take the fields the uploader sends over the file’s, as OCR does, and keep the file’s lines', async () => {
    const other = await seeder(server).tenant();
    const form = invoiceForm(example('XRechnung-O.xml'), 'x.xml', { number: 'MY-REF-7', vendorName: 'Insurer' }, 'application/xml');
    const response = await fetch(`${server.url}/tenants/${other.id}/invoices/upload`, {
      method: 'POST',
      headers: { authorization: `Bearer ${other.key}` },
      body: form,
    });
    const answer = (await response.json()) as Received;
    expect(response.status).toBe(201);
    expect(answer).toMatchObject({ number: 'MY-REF-7', vendorName: 'Insurer', totalAmount: '385544.60', eInvoiceFormat: 'cii' });
    expect(answer.lines).toHaveLength(2);
  });

  it('are the same over GraphQL, lines included', async () => {
    const other = await seeder(server).tenant();
    const uploaded = await upload(other, example('ubl-tc434-creditnote1.xml'), 'credit.xml');
    expect(uploaded.status, uploaded.text).toBe(201);
    const answer = await other.api.graphql<{
      invoice: { type: string; eInvoiceFormat: string; totalAmount: string; lines: { name: string; netAmount: string }[] };
    }>('query ($t: ID!, $id: ID!) { invoice(tenantId: $t, id: $id) { type eInvoiceFormat totalAmount lines { name netAmount } } }', {
      t: other.id,
      id: uploaded.body.id,
    });
    expect(answer.body.errors).toBeUndefined();
    expect(answer.body.data?.invoice).toEqual({
      type: 'credit_note',
      eInvoiceFormat: 'ubl',
      totalAmount: '100.11',
      lines: [{ name: 'Exonération du versement du PP', netAmount: '100.11' }],
    });
  });
});

describe('the type of an invoice', () => {
  it('is invoice by default, and may be set or corrected by hand to credit_note', async () => {
    const typed = await tenant.api.post<Received>(`/tenants/${tenant.id}/invoices`, { number: 'GS-1', totalAmount: '10.00' });
    expect(typed.status, typed.text).toBe(201);
    expect(typed.body).toMatchObject({ type: 'invoice', eInvoiceFormat: null, lines: [], vendorVatId: null });
    const corrected = await tenant.api.patch<Received>(`/tenants/${tenant.id}/invoices/${typed.body.id}`, { type: 'credit_note' });
    expect(corrected.body.type).toBe('credit_note');
    const credit = await tenant.api.post<Received>(`/tenants/${tenant.id}/invoices`, { number: 'GS-2', type: 'credit_note' });
    expect(credit.body.type).toBe('credit_note');
    const wrong = await tenant.api.post<Problem>(`/tenants/${tenant.id}/invoices`, { type: 'refund' });
    expect(wrong.status).toBe(400);
    expect(wrong.body.errors?.map((error) => error.path)).toEqual(['type']);
  });
});

describe('a PDF', () => {
  it('carrying CII_example1 as factur-x.xml (Factur-X) is read from its XML, with no OCR', async () => {
    const other = await seeder(server).tenant();
    const pdf = await pdfWithEmbedded(example('CII_example1.xml'));
    const answer = await upload(other, pdf, 'facturx.pdf', 'application/pdf');
    expect(answer.status, answer.text).toBe(201);
    const expected = expectedOf('CII_example1.xml', 'cii');
    expect(answer.body).toMatchObject({ eInvoiceFormat: 'facturx', ocrStatus: 'none', mimeType: 'application/pdf', number: expected.number, currency: 'EUR' });
    expect(sameDecimal(answer.body.totalAmount as string)).toBe(sameDecimal(expected.totalAmount));
    expect(sameDecimal(answer.body.netAmount as string)).toBe(sameDecimal(expected.netAmount));
    expect(answer.body.lines).toHaveLength(expected.lineNets.length);
    expect(await ocrJobs(answer.body.id)).toBe(0);
  });

  it('carrying a UBL invoice as xrechnung.xml, or ZUGFeRD’s name, is read too', async () => {
    const other = await seeder(server).tenant();
    const ubl = await upload(other, await pdfWithEmbedded(example('ubl-tc434-example1.xml'), 'xrechnung.xml'), 'x.pdf', 'application/pdf');
    expect(ubl.body).toMatchObject({ eInvoiceFormat: 'facturx', totalAmount: '250.33' });
    const zugferd = await upload(other, await pdfWithEmbedded(example('CII_business_example_01.xml'), 'ZUGFeRD-invoice.xml'), 'z.pdf', 'application/pdf');
    expect(zugferd.body).toMatchObject({ eInvoiceFormat: 'facturx', totalAmount: '1801.78', currency: 'NOK' });
  });

  it('listing its XML only in the catalog’s /AF (no EmbeddedFiles tree) is read from its XML too', async () => {
    const other = await seeder(server).tenant();
    const xml = example('CII_example1.xml');
    const pdf = await pdfWithCompressedAttachment(deflateSync(xml), { only: 'AF' });
    const answer = await upload(other, pdf, 'af-only.pdf', 'application/pdf');
    expect(answer.status, answer.text).toBe(201);
    expect(answer.body).toMatchObject({ eInvoiceFormat: 'facturx', ocrStatus: 'none', number: '12115118', totalAmount: '250.33' });
    expect(await ocrJobs(answer.body.id)).toBe(0);
  });

  it('whose e-invoice is over 5 MiB once inflated is a 400 naming file, and nothing is stored', async () => {
    const other = await seeder(server).tenant();
    const answer = await upload(other, await pdfBomb(64 * 1024 * 1024), 'bomb.pdf', 'application/pdf');
    expect(answer.status, answer.text).toBe(400);
    expect(answer.body.errors).toEqual([{ path: 'file', message: expect.stringMatching(/carries factur-x\.xml, which is over 5242880 bytes/) }]);
    expect(await invoiceCount(other)).toBe(0);
    expect(stagingLeft()).toEqual([]);
  });

  it('without an e-invoice (none, another attachment, or a broken one) goes to OCR as before', async () => {
    const other = await seeder(server).tenant();
    const cases = [
      { name: 'plain.pdf', file: await textPdf() },
      { name: 'notes.pdf', file: await pdfWithEmbedded(example('CII_example1.xml'), 'notes.xml') },
      { name: 'broken.pdf', file: await pdfWithEmbedded(Buffer.from('<rsm:CrossIndustryInvoice'), 'factur-x.xml') },
    ];
    for (const { name, file } of cases) {
      const answer = await upload(other, file, name, 'application/pdf');
      expect(answer.status, answer.text).toBe(201);
      expect(answer.body, name).toMatchObject({ eInvoiceFormat: null, ocrStatus: 'pending', lines: [] });
      expect(await ocrJobs(answer.body.id), name).toBe(1);
    }
  });
});

describe('XML that is not a readable e-invoice', () => {
  const cii = example('CII_example1.xml').toString('utf8');

  async function refused(file: Buffer, message: RegExp): Promise<void> {
    const other = await seeder(server).tenant();
    const answer = await upload(other, file, 'bad.xml');
    expect(answer.status, answer.text).toBe(400);
    expect(answer.headers.get('content-type')).toContain('application/problem+json');
    expect(answer.body.code).toBe('VALIDATION_FAILED');
    expect(answer.body.errors?.map((error) => error.path)).toEqual(['file']);
    expect(answer.body.errors?.[0]?.message).toMatch(message);
    // Nothing stored: no invoice, no file kept, nothing left staged.
    expect(await invoiceCount(other)).toBe(0);
    const sha256 = (await import('node:crypto')).createHash('sha256').update(file).digest('hex');
    expect(fs.existsSync(path.join(filesDir(), 'sha256', sha256.slice(0, 2), sha256))).toBe(false);
    expect(stagingLeft()).toEqual([]);
  }

  it('malformed: 400 saying where', async () => {
    await refused(Buffer.from(cii.slice(0, cii.length - 200)), /not well-formed XML/);
    await refused(Buffer.from(cii.replace('<ram:ID>12115118</ram:ID>', '<ram:ID>12115118</ram:Id>')), /not well-formed XML at line \d+/);
  });

  it('not an invoice, or one without its required terms: 400 naming what is missing', async () => {
    await refused(Buffer.from('<?xml version="1.0"?><note><to>Tove</to></note>'), /not an EN 16931 invoice: its root element is note/);
    await refused(
      Buffer.from(
        cii.replace(/<ram:GrandTotalAmount>[^<]*<\/ram:GrandTotalAmount>/, '').replace('<ram:InvoiceCurrencyCode>EUR', '<ram:InvoiceCurrencyCode>euro'),
      ),
      /BT-5 \(InvoiceCurrencyCode\) "euro" is not an ISO 4217 code; BT-112 \(GrandTotalAmount\) is missing/,
    );
    await refused(
      Buffer.from(cii.replace('<ram:LineTotalAmount>19.9<', '<ram:LineTotalAmount>19.901<')),
      /line 1: BT-131 \(LineTotalAmount\) "19.901" is not an amount/,
    );
  });

  it('a DOCTYPE or an external entity: 400, and nothing is fetched', async () => {
    const requests: string[] = [];
    const bait = http.createServer((request, response) => {
      requests.push(request.url ?? '');
      response.end('<!ENTITY secret "leaked">');
    });
    await new Promise<void>((resolve) => bait.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(bait.address() as AddressInfo).port}`;
    try {
      const withEntity = (doctype: string, use: string) =>
        cii.replace('<rsm:CrossIndustryInvoice', `${doctype}\n<rsm:CrossIndustryInvoice`).replace('<ram:ID>12115118</ram:ID>', `<ram:ID>${use}</ram:ID>`);
      await refused(Buffer.from(withEntity(`<!DOCTYPE rsm:CrossIndustryInvoice [<!ENTITY number SYSTEM "${url}/entity">]>`, '&number;')), /DOCTYPE/);
      await refused(Buffer.from(withEntity(`<!DOCTYPE x [<!ENTITY % remote SYSTEM "${url}/parameter"> %remote;]>`, '&secret;')), /DOCTYPE/);
      await refused(Buffer.from(withEntity(`<!DOCTYPE x SYSTEM "${url}/dtd">`, '1')), /DOCTYPE/);
      // The same in UTF-16, and an entity used without any declaration.
      await refused(Buffer.from(`\ufeff${withEntity(`<!DOCTYPE x [<!ENTITY n SYSTEM "${url}/utf16">]>`, '&n;')}`, 'utf16le'), /DOCTYPE/);
      await refused(Buffer.from(withEntity('', '&undeclared;')), /not well-formed XML/);
      expect(requests).toEqual([]);
    } finally {
      await new Promise((resolve) => bait.close(resolve));
    }
  });

  it('too large: 400 before it is parsed', async () => {
    const padding = `<!--${'x'.repeat(5 * 1024 * 1024)}-->`;
    await refused(Buffer.from(cii.replace('<rsm:CrossIndustryInvoice', `${padding}\n<rsm:CrossIndustryInvoice`)), /5 MiB/);
  });
});
