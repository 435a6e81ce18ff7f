/**
 * The files a client invoice becomes, over REST and GraphQL (issues 31 and 32): the PDF (a draft marked
 * DRAFT), the Factur-X PDF with its CII inside, and each EN 16931 XML format of an issued invoice and of
 * its credit note, every one passing the official rules; a draft's e-invoice is 409 INVOICE_DRAFT and an
 * XRechnung without a buyer reference is 409 EINVOICE_INCOMPLETE naming it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClientInvoice, Problem } from './generated/openapi/types.gen.js';
import { approvedEntry, billingTenant, publicClient, sellerProfile, xrechnungSeller } from './helpers/billing.js';
import { validateEInvoices } from './helpers/einvoice-validation.js';
import { download, pdfAttachments, pdfText } from './helpers/files.js';
import { invoiceForm } from './helpers/invoices.js';
import { startIdentityProvider, type IdentityProvider } from './helpers/oidc.js';
import { startTestServer, type TestServer } from './helpers/server.js';

let provider: IdentityProvider;
let server: TestServer;
const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'tally-invoice-files-'));

beforeAll(async () => {
  provider = await startIdentityProvider();
  server = await startTestServer({ env: provider.env });
});
afterAll(async () => {
  await server?.stop();
  await provider?.close();
  fs.rmSync(directory, { recursive: true, force: true });
});

/** The e-invoice formats the invoice's `client_invoice.issued` event names. */
async function issuedFormats(invoiceId: string): Promise<unknown> {
  const event = await server.app.db.event.findFirstOrThrow({ where: { type: 'client_invoice.issued', subjectId: invoiceId } });
  return (event.data as { eInvoiceFormats?: unknown }).eInvoiceFormats;
}

describe('client invoice files', () => {
  it(
    'serves a draft PDF marked DRAFT, refuses its e-invoice; after issue every format and the credit note pass validate-einvoice, and its Factur-X uploaded to another tenant is read exactly',
    { timeout: 300_000 },
    async () => {
      const b = await billingTenant(server, provider, xrechnungSeller, publicClient);
      const headers = { authorization: `Bearer ${b.tenant.key}` };
      const [alpha, beta] = b.projects as unknown as [{ id: string }, { id: string }];
      await approvedEntry(b, alpha.id, '2026-03-02T08:00:00Z', 95);
      await approvedEntry(b, beta.id, '2026-03-04T08:00:00Z', 50);
      const created = await b.api.post<ClientInvoice>(b.path, {
        clientId: b.clientId,
        periodFrom: '2026-03-01',
        periodTo: '2026-03-31',
        discount: { percent: '5', reason: 'Loyalty' },
      });
      expect(created.status).toBe(201);
      const invoice = created.body;

      const draftPdf = await download(server.url, `${b.path}/${invoice.id}/pdf`, {}, headers);
      expect(draftPdf.response.status).toBe(200);
      expect(draftPdf.response.headers.get('content-type')).toBe('application/pdf');
      const draftText = await pdfText(draftPdf.bytes);
      expect(draftText).toContain('Invoice (draft)');
      expect(draftText).toContain('Buyer AG');

      for (const route of [`${b.path}/${invoice.id}/e-invoice?format=cii`, `${b.path}/${invoice.id}/pdf?format=facturx`]) {
        const refused = await b.api.get<Problem>(route);
        expect(refused.status, route).toBe(409);
        expect(refused.body.reason, route).toBe('INVOICE_DRAFT');
      }

      const issued = await b.api.post<ClientInvoice>(`${b.path}/${invoice.id}/issue`);
      expect(issued.status).toBe(200);
      const number = issued.body.number as string;
      // Webhooks and the feed say which e-invoices the issued invoice has: every format, as the profile and client are complete.
      expect(await issuedFormats(invoice.id)).toEqual(['cii', 'ubl', 'xrechnung-cii', 'xrechnung-ubl']);

      const files: { file: string; xrechnung: boolean }[] = [];
      for (const format of ['cii', 'ubl', 'xrechnung-cii', 'xrechnung-ubl']) {
        const xml = await download(server.url, `${b.path}/${invoice.id}/e-invoice`, { format }, headers);
        expect(xml.response.status, format).toBe(200);
        expect(xml.response.headers.get('content-type'), format).toMatch(/^application\/xml/);
        expect(xml.response.headers.get('content-disposition'), format).toContain('.xml');
        const text = xml.bytes.toString('utf8');
        expect(text, format).toContain(number);
        expect(text, format).toContain('04011000-12345-34');
        const file = path.join(directory, `invoice.${format}.xml`);
        fs.writeFileSync(file, xml.bytes);
        files.push({ file, xrechnung: format.startsWith('xrechnung') });
      }
      const facturX = await download(server.url, `${b.path}/${invoice.id}/pdf`, { format: 'facturx' }, headers);
      expect(facturX.response.status).toBe(200);
      const attachments = await pdfAttachments(facturX.bytes);
      expect(attachments.names).toEqual(['factur-x.xml']);
      expect(await pdfText(facturX.bytes)).toContain(`Invoice ${number}`);
      // What Tally sends, another Tally receives exactly: the buyer's upload is read from the embedded XML, with no OCR.
      const buyer = await billingTenant(server, provider);
      const received = await fetch(`${server.url}/tenants/${buyer.tenant.id}/invoices/upload`, {
        method: 'POST',
        headers: { authorization: `Bearer ${buyer.tenant.key}` },
        body: invoiceForm(facturX.bytes, `invoice-${number}.pdf`, {}, 'application/pdf'),
      });
      const receivedInvoice = (await received.json()) as Record<string, unknown>;
      expect(received.status, JSON.stringify(receivedInvoice)).toBe(201);
      expect(receivedInvoice).toMatchObject({
        eInvoiceFormat: 'facturx',
        ocrStatus: 'none',
        number,
        vendorName: 'Tally Test GmbH',
        vendorVatId: 'DE123456789',
        currency: 'EUR',
        totalAmount: issued.body.totals.gross,
        taxAmount: issued.body.totals.tax,
      });
      const embedded = path.join(directory, 'invoice.facturx.xml');
      fs.writeFileSync(embedded, attachments.first as Buffer);
      files.push({ file: embedded, xrechnung: false });

      // Voiding issues a credit note (type 381, naming the invoice) with the next number.
      const voided = await b.api.post<ClientInvoice>(`${b.path}/${invoice.id}/void`);
      expect(voided.status).toBe(200);
      const creditNoteId = (voided.body as ClientInvoice & { creditNoteId: string }).creditNoteId;
      for (const format of ['ubl', 'xrechnung-cii']) {
        const xml = await download(server.url, `${b.path}/${creditNoteId}/e-invoice`, { format }, headers);
        expect(xml.response.status, format).toBe(200);
        const text = xml.bytes.toString('utf8');
        expect(text).toContain('381');
        expect(text).toContain(number);
        const file = path.join(directory, `credit-note.${format}.xml`);
        fs.writeFileSync(file, xml.bytes);
        files.push({ file, xrechnung: format.startsWith('xrechnung') });
      }

      const results = await validateEInvoices(files);
      expect(
        results
          .filter((result) => result.exitCode !== 0 || result.lines.length > 0)
          .map((result) => `${path.basename(result.file)}: ${result.lines.join(' | ')}`),
      ).toEqual([]);
    },
  );

  it('names what an XRechnung lacks (409 EINVOICE_INCOMPLETE) while the plain EN 16931 formats are served', { timeout: 120_000 }, async () => {
    const b = await billingTenant(server, provider);
    await approvedEntry(b, (b.projects[0] as { id: string }).id, '2026-03-02T08:00:00Z', 60);
    const created = await b.api.post<ClientInvoice>(b.path, { clientId: b.clientId, periodFrom: '2026-03-01', periodTo: '2026-03-31' });
    expect((await b.api.post(`${b.path}/${created.body.id}/issue`)).status).toBe(200);

    expect(await issuedFormats(created.body.id)).toEqual(['cii', 'ubl']);
    const refused = await b.api.get<Problem>(`${b.path}/${created.body.id}/e-invoice?format=xrechnung-ubl`);
    expect(refused.status).toBe(409);
    expect(refused.body.reason).toBe('EINVOICE_INCOMPLETE');
    const named = (refused.body.errors as { path: string }[]).map((error) => error.path);
    expect(named).toEqual(expect.arrayContaining(['buyerReference', 'billingProfile.contactName', 'billingProfile.phone', 'client.electronicAddress']));
    expect((await b.api.get(`${b.path}/${created.body.id}/e-invoice?format=ubl`)).status).toBe(200);

    // Issuing to a client with a Leitweg-ID asks for XRechnung's seller fields first: the issued snapshot cannot gain them later.
    const publicBuyer = await billingTenant(server, provider, sellerProfile, { buyerReference: '04011000-12345-34' });
    await approvedEntry(publicBuyer, (publicBuyer.projects[0] as { id: string }).id, '2026-03-02T08:00:00Z', 60);
    const draft = await publicBuyer.api.post<ClientInvoice>(publicBuyer.path, {
      clientId: publicBuyer.clientId,
      periodFrom: '2026-03-01',
      periodTo: '2026-03-31',
    });
    const notIssued = await publicBuyer.api.post<Problem>(`${publicBuyer.path}/${draft.body.id}/issue`);
    expect(notIssued.status).toBe(409);
    expect(notIssued.body.reason).toBe('BILLING_PROFILE_INCOMPLETE');
    expect((notIssued.body.errors as { path: string }[]).map((error) => error.path)).toEqual(['contactName', 'phone', 'electronicAddress']);
    expect((await publicBuyer.api.get<ClientInvoice>(`${publicBuyer.path}/${draft.body.id}`)).body).toMatchObject({ status: 'draft', number: null });

    const unknown = await b.api.get<Problem>(`${b.path}/${created.body.id}/e-invoice?format=pdf`);
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors).toEqual([expect.objectContaining({ path: 'format' })]);
  });

  it('gives the same XML over GraphQL, and another tenant’s invoice is not found', { timeout: 120_000 }, async () => {
    const b = await billingTenant(server, provider);
    await approvedEntry(b, (b.projects[0] as { id: string }).id, '2026-03-02T08:00:00Z', 60);
    const created = await b.api.post<ClientInvoice>(b.path, { clientId: b.clientId, periodFrom: '2026-03-01', periodTo: '2026-03-31' });
    expect((await b.api.post(`${b.path}/${created.body.id}/issue`)).status).toBe(200);
    const rest = await download(server.url, `${b.path}/${created.body.id}/e-invoice`, { format: 'cii' }, { authorization: `Bearer ${b.tenant.key}` });

    const graphql = await b.api.post<{ data: { clientInvoiceEInvoice: { xml: string; fileName: string; contentType: string } } }>('/graphql', {
      query: 'query ($t: ID!, $id: ID!) { clientInvoiceEInvoice(tenantId: $t, id: $id, format: cii) { xml fileName contentType } }',
      variables: { t: b.tenant.id, id: created.body.id },
    });
    expect(graphql.status).toBe(200);
    expect(graphql.body.data.clientInvoiceEInvoice.xml).toBe(rest.bytes.toString('utf8'));
    expect(graphql.body.data.clientInvoiceEInvoice.fileName).toMatch(/\.xml$/);

    const other = await billingTenant(server, provider);
    const foreign = await other.api.get<Problem>(`${other.path}/${created.body.id}/pdf`);
    expect(foreign.status).toBe(404);
  });
});
