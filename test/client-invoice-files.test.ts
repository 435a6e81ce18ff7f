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
import { inexactLines, readXmlLines } from './helpers/einvoice-lines.js';
import { failedRules, type ValidationFile } from './helpers/einvoice-validation.js';
import { download, pdfAttachments, pdfText } from './helpers/files.js';
import type { Json } from './helpers/http.js';
import { invoiceForm } from './helpers/invoices.js';
import { startIdentityProvider, type IdentityProvider } from './helpers/oidc.js';
import { sellerBe } from './helpers/peppol-documents.js';
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

/** The fields a problem names. */
const pathsOf = (problem: Problem) => (problem.errors ?? []).map((error) => error.path);

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

      const files: ValidationFile[] = [];
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

      expect(await failedRules(files)).toEqual([]);
    },
  );

  it(
    'bills time in exact lines (minutes at a rate per hour, a rounding line to the entries’ cents after them) and sends a Belgian client Peppol BIS 3.0, invoice and credit note, over REST and GraphQL',
    { timeout: 300_000 },
    async () => {
      const { legalName, address, vatId, registrationId, registrationScheme, email, electronicAddress, iban } = sellerBe;
      const belgian = { legalName, address, vatId, registrationId, registrationScheme, email, electronicAddress, iban, defaultTaxRate: '21.00' } as Json;
      const peppolClient = {
        billingAddress: { line1: 'Korenmarkt 3', postcode: '9000', city: 'Gent', countryCode: 'BE' },
        vatId: 'BE0403170701',
        buyerReference: 'PO-88412',
        electronicAddress: { scheme: '0208', id: '0403170701' },
        einvoiceFormat: 'peppol',
      };
      const b = await billingTenant(server, provider, belgian, peppolClient);
      const headers = { authorization: `Bearer ${b.tenant.key}` };
      const [alpha, beta] = b.projects as unknown as [{ id: string }, { id: string }];
      // 95 minutes at 100.00 is 158.33 each; 190 minutes on one line is 316.67: the entries come to a cent less.
      await approvedEntry(b, alpha.id, '2026-03-02T08:00:00Z', 95);
      await approvedEntry(b, alpha.id, '2026-03-03T08:00:00Z', 95);
      await approvedEntry(b, beta.id, '2026-03-04T08:00:00Z', 50);
      const created = await b.api.post<ClientInvoice>(b.path, { clientId: b.clientId, periodFrom: '2026-03-01', periodTo: '2026-03-31' });
      expect(created.status).toBe(201);
      const lines = (created.body.lines as unknown as Record<string, unknown>[]).map((line) => [
        line.quantity,
        line.unit,
        line.baseQuantity,
        line.unitPrice,
        line.netAmount,
      ]);
      expect(lines.map((line) => line.map((value) => (typeof value === 'string' && /^-?[\d.]+$/.test(value) ? Number(value) : value)))).toEqual([
        [190, 'MIN', 60, 100, 316.67],
        [50, 'MIN', 60, 85.5, 71.25],
        [-1, 'C62', 1, 0.01, -0.01],
      ]);
      expect(Number(created.body.totals.lineNet)).toBe(387.91);
      const graphqlLines = await b.api.post<{ data: { clientInvoice: { lines: { baseQuantity: number; unit: string }[] } } }>('/graphql', {
        query: 'query ($t: ID!, $id: ID!) { clientInvoice(tenantId: $t, id: $id) { lines { unit baseQuantity } } }',
        variables: { t: b.tenant.id, id: created.body.id },
      });
      expect(graphqlLines.body.data.clientInvoice.lines).toEqual([
        { unit: 'MIN', baseQuantity: 60 },
        { unit: 'MIN', baseQuantity: 60 },
        { unit: 'C62', baseQuantity: 1 },
      ]);
      const issued = await b.api.post<ClientInvoice>(`${b.path}/${created.body.id}/issue`);
      expect(issued.status).toBe(200);
      expect(await issuedFormats(created.body.id)).toEqual(['cii', 'ubl', 'peppol']);

      const files: ValidationFile[] = [];
      const invoiceXml = await download(server.url, `${b.path}/${created.body.id}/e-invoice`, { format: 'peppol' }, headers);
      expect(invoiceXml.response.status).toBe(200);
      expect(invoiceXml.response.headers.get('content-disposition')).toContain('-peppol.xml');
      const text = invoiceXml.bytes.toString('utf8');
      expect(text).toContain('urn:fdc:peppol.eu:2017:poacc:billing:3.0');
      expect(inexactLines(readXmlLines(text).lines)).toEqual([]);
      const graphql = await b.api.post<{ data: { clientInvoiceEInvoice: { xml: string } } }>('/graphql', {
        query: 'query ($t: ID!, $id: ID!) { clientInvoiceEInvoice(tenantId: $t, id: $id, format: peppol) { xml } }',
        variables: { t: b.tenant.id, id: created.body.id },
      });
      expect(graphql.body.data.clientInvoiceEInvoice.xml).toBe(text);
      fs.writeFileSync(path.join(directory, 'peppol-invoice.xml'), invoiceXml.bytes);
      files.push({ file: path.join(directory, 'peppol-invoice.xml'), peppol: true });

      const voided = await b.api.post<ClientInvoice & { creditNoteId: string }>(`${b.path}/${created.body.id}/void`);
      const creditXml = await download(server.url, `${b.path}/${voided.body.creditNoteId}/e-invoice`, { format: 'peppol' }, headers);
      expect(creditXml.response.status).toBe(200);
      expect(creditXml.bytes.toString('utf8')).toContain('<CreditNote');
      fs.writeFileSync(path.join(directory, 'peppol-credit-note.xml'), creditXml.bytes);
      files.push({ file: path.join(directory, 'peppol-credit-note.xml'), peppol: true });

      // A German small business with only a tax number issues, and its e-invoice names the seller by it.
      const small = await billingTenant(server, provider, { ...sellerProfile, vatId: null, taxNumber: '06/123/45678', smallBusiness: true });
      await approvedEntry(small, (small.projects[0] as { id: string }).id, '2026-03-02T08:00:00Z', 7);
      const smallDraft = await small.api.post<ClientInvoice>(small.path, { clientId: small.clientId, periodFrom: '2026-03-01', periodTo: '2026-03-31' });
      expect((await small.api.post(`${small.path}/${smallDraft.body.id}/issue`)).status).toBe(200);
      const smallXml = await download(
        server.url,
        `${small.path}/${smallDraft.body.id}/e-invoice`,
        { format: 'cii' },
        { authorization: `Bearer ${small.tenant.key}` },
      );
      expect(smallXml.response.status).toBe(200);
      expect(smallXml.bytes.toString('utf8')).toContain('06/123/45678');
      fs.writeFileSync(path.join(directory, 'tax-number-only.cii.xml'), smallXml.bytes);
      files.push({ file: path.join(directory, 'tax-number-only.cii.xml') });

      expect(await failedRules(files)).toEqual([]);
    },
  );

  it('refuses an electronic address outside the EAS list, an e-mail address for a Peppol client and a registration scheme outside ISO 6523, by name', async () => {
    const b = await billingTenant(server, provider);
    const t = b.tenant.id;
    const badScheme = await b.api.patch<Problem>(`/tenants/${t}/billing-profile`, { electronicAddress: { scheme: '1234', id: 'x' } });
    expect(badScheme.status).toBe(400);
    expect(badScheme.body.errors?.map((error) => error.path)).toEqual(['electronicAddress.scheme']);
    const badRegistration = await b.api.patch<Problem>(`/tenants/${t}/billing-profile`, { registrationId: 'X', registrationScheme: '9999' });
    expect(badRegistration.status).toBe(400);
    expect(badRegistration.body.errors?.map((error) => error.path)).toEqual(['registrationScheme']);
    const clientPath = `/tenants/${t}/clients/${b.clientId}`;
    expect((await b.api.patch(clientPath, { electronicAddress: { scheme: 'EM', id: 'ap@buyer.example' } })).status).toBe(200);
    const email = await b.api.patch<Problem>(clientPath, { einvoiceFormat: 'peppol' });
    expect(email.status).toBe(400);
    expect(email.body.errors?.map((error) => error.path)).toEqual(['electronicAddress.scheme']);
    const unknownFormat = await b.api.patch<Problem>(clientPath, { einvoiceFormat: 'pdf' });
    expect(unknownFormat.status).toBe(400);
    expect(unknownFormat.body.errors?.map((error) => error.path)).toEqual(['einvoiceFormat']);
    const peppol = await b.api.patch<{ einvoiceFormat: string }>(clientPath, {
      einvoiceFormat: 'peppol',
      electronicAddress: { scheme: '9915', id: 'ATU12345678' },
    });
    expect(peppol.status).toBe(200);
    expect(peppol.body.einvoiceFormat).toBe('peppol');
  });

  it(
    'names what an issued invoice lacks for XRechnung (409 EINVOICE_INCOMPLETE) without asking to fill what cannot change it, and serves the EN 16931 formats',
    { timeout: 120_000 },
    async () => {
      const b = await billingTenant(server, provider);
      await approvedEntry(b, (b.projects[0] as { id: string }).id, '2026-03-02T08:00:00Z', 60);
      const created = await b.api.post<ClientInvoice>(b.path, { clientId: b.clientId, periodFrom: '2026-03-01', periodTo: '2026-03-31' });
      const issued = await b.api.post<ClientInvoice>(`${b.path}/${created.body.id}/issue`);
      expect(issued.status).toBe(200);

      expect(await issuedFormats(created.body.id)).toEqual(['cii', 'ubl']);
      const refused = await b.api.get<Problem>(`${b.path}/${created.body.id}/e-invoice?format=xrechnung-ubl`);
      expect(refused.status).toBe(409);
      expect(refused.body.reason).toBe('EINVOICE_INCOMPLETE');
      // The fields of the invoice as issued, not the profile's or the client's: changing those cannot change it any more.
      expect(pathsOf(refused.body)).toEqual(['buyerReference', 'seller.contactName', 'seller.phone', 'seller.electronicAddress', 'buyer.electronicAddress']);
      expect(refused.body.detail).toContain(`The invoice ${issued.body.number} was issued without what xrechnung-ubl needs`);
      expect(refused.body.detail).toContain('It can be fetched as cii, ubl.');
      expect(refused.body.detail).toContain('void it (a credit note cancels it), then set client.buyerReference, billingProfile.contactName');
      expect(refused.body.detail).toContain("the client's einvoiceFormat to xrechnung-ubl");
      expect((await b.api.get(`${b.path}/${created.body.id}/e-invoice?format=ubl`)).status).toBe(200);

      const unknown = await b.api.get<Problem>(`${b.path}/${created.body.id}/e-invoice?format=pdf`);
      expect(unknown.status).toBe(400);
      expect(unknown.body.errors).toEqual([expect.objectContaining({ path: 'format' })]);
    },
  );

  it(
    'issues only what its files can be written from: the profile and the client the format the client receives needs, each field named',
    { timeout: 120_000 },
    async () => {
      // A client set to receive XRechnung: issuing asks for XRechnung's seller fields and the client's address, all at once.
      const publicBuyer = await billingTenant(server, provider, sellerProfile, { buyerReference: '04011000-12345-34', einvoiceFormat: 'xrechnung-ubl' });
      await approvedEntry(publicBuyer, (publicBuyer.projects[0] as { id: string }).id, '2026-03-02T08:00:00Z', 60);
      const draft = await publicBuyer.api.post<ClientInvoice>(publicBuyer.path, {
        clientId: publicBuyer.clientId,
        periodFrom: '2026-03-01',
        periodTo: '2026-03-31',
      });
      const notIssued = await publicBuyer.api.post<Problem>(`${publicBuyer.path}/${draft.body.id}/issue`);
      expect(notIssued.status).toBe(409);
      expect(notIssued.body.reason).toBe('BILLING_PROFILE_INCOMPLETE');
      expect(pathsOf(notIssued.body)).toEqual(['contactName', 'phone', 'electronicAddress', 'client.electronicAddress']);
      expect((await publicBuyer.api.get<ClientInvoice>(`${publicBuyer.path}/${draft.body.id}`)).body).toMatchObject({ status: 'draft', number: null });

      // With the profile complete, the client is what is missing.
      const t = publicBuyer.tenant.id;
      expect((await publicBuyer.api.patch(`/tenants/${t}/billing-profile`, xrechnungSeller)).status).toBe(200);
      const clientMissing = await publicBuyer.api.post<Problem>(`${publicBuyer.path}/${draft.body.id}/issue`);
      expect(clientMissing.status).toBe(409);
      expect(clientMissing.body.reason).toBe('CLIENT_INCOMPLETE');
      expect(pathsOf(clientMissing.body)).toEqual(['electronicAddress']);
      const clientPath = `/tenants/${t}/clients/${publicBuyer.clientId}`;
      expect((await publicBuyer.api.patch(clientPath, { electronicAddress: { scheme: '0204', id: '04011000-12345-34' } })).status).toBe(200);
      expect((await publicBuyer.api.post(`${publicBuyer.path}/${draft.body.id}/issue`)).status).toBe(200);
      expect(await issuedFormats(draft.body.id)).toEqual(['cii', 'ubl', 'xrechnung-cii', 'xrechnung-ubl']);

      // Whatever the format, the buyer's address: an EN 16931 invoice (and so every issued one) names it.
      const noAddress = await billingTenant(server, provider, sellerProfile, { billingAddress: null });
      await approvedEntry(noAddress, (noAddress.projects[0] as { id: string }).id, '2026-03-02T08:00:00Z', 60);
      const bare = await noAddress.api.post<ClientInvoice>(noAddress.path, { clientId: noAddress.clientId, periodFrom: '2026-03-01', periodTo: '2026-03-31' });
      const addressMissing = await noAddress.api.post<Problem>(`${noAddress.path}/${bare.body.id}/issue`);
      expect(addressMissing.status).toBe(409);
      expect(addressMissing.body.reason).toBe('CLIENT_INCOMPLETE');
      expect(pathsOf(addressMissing.body)).toEqual(['billingAddress']);
    },
  );

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
