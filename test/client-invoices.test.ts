/**
 * Client invoices over REST (issue 31): from approved time to an issued,
 * paid or voided invoice; nets equal the entries' amounts; gapless numbers
 * under concurrency over two API processes and a failed issue; entries are
 * claimed once and read-only while invoiced; every bad input named and
 * nothing written.
 */
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemActor } from '../src/auth/actor.js';
import { systemAccess } from '../src/auth/tenant-access.js';
import { Prisma } from '../src/generated/prisma/client.js';
import type { ClientInvoice, Problem } from './generated/openapi/types.gen.js';
import { testClock } from './helpers/clock.js';
import { download, pdfText } from './helpers/files.js';
import { apiClient, type ApiClient, type Json } from './helpers/http.js';
import { approvedEntry, type Billing, billingTenant, sellerProfile } from './helpers/billing.js';
import { startIdentityProvider, type IdentityProvider } from './helpers/oidc.js';
import { startTallyProcess, type TallyProcess } from './helpers/processes.js';
import { startTestServer, type TestServer } from './helpers/server.js';

let provider: IdentityProvider;
let server: TestServer;

beforeAll(async () => {
  provider = await startIdentityProvider();
  server = await startTestServer({ env: provider.env });
});
afterAll(async () => {
  await server?.stop();
  await provider?.close();
});

/** The tenant to bill, with the default profile unless given. */
const billing = (profile?: Json, client?: Json) => billingTenant(server, provider, profile, client);
const seller = sellerProfile;

const sum = (values: (string | null | undefined)[]) => values.reduce((acc, value) => acc.add(value ?? 0), new Prisma.Decimal(0));

describe('an invoice from approved time', () => {
  it('creates, issues and pays one invoice, and voids a second into a credit note that releases its entries', async () => {
    const b = await billing();
    const [alpha, beta] = b.projects as unknown as [{ id: string }, { id: string }];
    const march = [
      await approvedEntry(b, alpha.id, '2026-03-02T08:00:00Z', 95),
      await approvedEntry(b, alpha.id, '2026-03-03T08:00:00Z', 37),
      await approvedEntry(b, beta.id, '2026-03-04T08:00:00Z', 50),
    ];
    const created = await b.api.post<ClientInvoice>(b.path, { clientId: b.clientId, periodFrom: '2026-03-01', periodTo: '2026-03-31' });
    expect(created.status).toBe(201);
    const draft = created.body;
    expect(draft).toMatchObject({ status: 'draft', number: null, currency: 'EUR', type: 'invoice', seller: null });
    expect(draft.lines).toHaveLength(2);
    // Time in minutes at the rate per hour (base quantity 60): 132 minutes at 100 is 220.00, as its entries (158.33 + 61.67) are.
    expect(draft.lines.map((line) => [line.quantity, line.unit, line.baseQuantity, line.unitPrice, line.entryCount])).toEqual([
      ['132', 'MIN', 60, '100.00', 2],
      ['50', 'MIN', 60, '85.50', 1],
    ]);
    // The net is the entries' amounts to the cent: 95 + 37 minutes at 100 and 50 at 85.50.
    const entriesNet = sum(march.map((entry) => entry.billableAmount));
    expect(new Prisma.Decimal(draft.totals.lineNet).equals(entriesNet)).toBe(true);
    expect(draft.totals.lineNet).toBe('291.25');
    expect(draft.totals.taxes).toEqual([{ category: 'S', rate: '19.00', basis: '291.25', amount: '55.34', exemptionReason: null }]);
    expect(draft.totals.gross).toBe('346.59');
    const stored = await server.app.db.entry.findMany({ where: { id: { in: march.map((entry) => entry.id) } } });
    expect(stored.every((entry) => entry.clientInvoiceId === draft.id)).toBe(true);

    // An invoiced entry is read-only, whatever the change.
    const entryPath = `/tenants/${b.tenant.id}/entries/${march[0]?.id}`;
    for (const answer of [
      await b.api.patch<Problem>(entryPath, { description: 'changed' }),
      await b.api.delete<Problem>(entryPath),
      await b.api.post<Problem>(`${entryPath}/reopen`),
      await b.api.post<Problem>(`${entryPath}/reject`, { reason: 'no' }),
    ]) {
      expect(answer.status).toBe(409);
      expect(answer.body.reason).toBe('ENTRY_INVOICED');
    }

    const issued = await b.api.post<ClientInvoice>(`${b.path}/${draft.id}/issue`);
    expect(issued.status).toBe(200);
    expect(issued.body).toMatchObject({
      status: 'issued',
      seller: { legalName: 'Tally Test GmbH', iban: 'DE89370400440532013000' },
      buyer: { name: 'Buyer AG' },
    });
    // Issued today, by the clock, in the tenant's zone; numbered in that year.
    expect(issued.body.issueDate).toBe(testClock.today('Europe/Berlin'));
    const year = testClock.today('Europe/Berlin').slice(0, 4);
    expect(issued.body.number).toBe(`${year}-0001`);
    const edited = await b.api.patch<Problem>(`${b.path}/${draft.id}`, { notes: 'late' });
    expect(edited.status).toBe(409);
    expect(edited.body.reason).toBe('INVOICE_ISSUED');
    expect((await b.api.delete<Problem>(`${b.path}/${draft.id}`)).body.reason).toBe('INVOICE_ISSUED');

    // Without SMTP_URL, send only marks the invoice sent, and says so; a send without a body takes the defaults.
    const sent = await b.api.post<ClientInvoice>(`${b.path}/${draft.id}/send`);
    expect(sent.body.status).toBe('sent');
    expect(sent.body.lastSend).toMatchObject({ status: 'not_configured', attempts: 0 });
    expect(sent.body.sentTo).toEqual([]);
    const partly = await b.api.post<ClientInvoice>(`${b.path}/${draft.id}/pay`, { paidAt: '2026-04-10', amount: '100.00' });
    expect(partly.body).toMatchObject({ status: 'sent', totals: { paid: '100.00', due: '246.59' } });
    const paid = await b.api.post<ClientInvoice>(`${b.path}/${draft.id}/pay`, { paidAt: '2026-04-20' });
    expect(paid.body).toMatchObject({ status: 'paid', totals: { paid: '346.59', due: '0.00' } });
    expect(paid.body.payments.map((payment) => payment.amount)).toEqual(['100.00', '246.59']);
    // Its PDF, as the client gets it: number, buyer, the two lines' rates, the total and where to pay.
    const pdf = await download(server.url, `${b.path}/${draft.id}/pdf`, {}, { authorization: `Bearer ${b.tenant.key}` });
    expect(pdf.response.status).toBe(200);
    expect(pdf.response.headers.get('content-type')).toBe('application/pdf');
    const pdfWords = await pdfText(pdf.bytes);
    for (const shown of [`Invoice ${issued.body.number}`, 'Buyer AG', '100.00', '85.50', '346.59', 'DE89 3704 0044 0532 0130 00'])
      expect(pdfWords).toContain(shown);

    // A second invoice, voided: a credit note takes the next number and the entries are free again.
    const april = [await approvedEntry(b, beta.id, '2026-04-02T08:00:00Z', 60)];
    const second = await b.api.post<ClientInvoice>(b.path, { clientId: b.clientId, periodFrom: '2026-04-01', periodTo: '2026-04-30', groupBy: 'entry' });
    expect(second.status).toBe(201);
    expect((await b.api.post<ClientInvoice>(`${b.path}/${second.body.id}/issue`)).body.number).toBe(`${year}-0002`);
    const voided = await b.api.post<ClientInvoice>(`${b.path}/${second.body.id}/void`);
    expect(voided.status).toBe(200);
    expect(voided.body.status).toBe('void');
    const creditNote = await b.api.get<ClientInvoice>(`${b.path}/${voided.body.creditNoteId}`);
    expect(creditNote.body).toMatchObject({
      type: 'credit_note',
      status: 'issued',
      number: `${year}-0003`,
      creditNoteForId: second.body.id,
      totals: second.body.totals,
    });
    expect((await server.app.db.entry.findUniqueOrThrow({ where: { id: april[0]?.id } })).clientInvoiceId).toBeNull();
    // Released: a new invoice takes them again.
    expect((await b.api.post<ClientInvoice>(b.path, { clientId: b.clientId, periodFrom: '2026-04-01', periodTo: '2026-04-30' })).status).toBe(201);

    const document = await server.app.services.clientInvoices.document(accessOf(b), creditNote.body.id);
    expect(document).toMatchObject({ type: 'credit_note', number: `${year}-0003`, creditNoteFor: { number: `${year}-0002` }, totals: { gross: '101.75' } });

    const events = await server.app.db.event.findMany({ where: { tenantId: b.tenant.id, type: { startsWith: 'client_invoice.' } }, orderBy: { id: 'asc' } });
    expect(new Set(events.map((event) => event.type))).toEqual(
      new Set(['client_invoice.created', 'client_invoice.issued', 'client_invoice.sent', 'client_invoice.paid', 'client_invoice.voided']),
    );

    const listed = await b.api.get<ClientInvoice[]>(b.path, { query: { status: 'paid' } });
    expect(listed.body.map((invoice) => invoice.id)).toEqual([draft.id]);
  });

  it('spreads a discount over the tax groups, taxes each group on its sum, and adds manual lines', async () => {
    const b = await billing({ ...seller, defaultTaxRate: '19.00' });
    await approvedEntry(b, b.projects[0]?.id as string, '2026-05-04T08:00:00Z', 60);
    const created = await b.api.post<ClientInvoice>(b.path, {
      clientId: b.clientId,
      periodFrom: '2026-05-01',
      periodTo: '2026-05-31',
      lines: [
        { description: 'Licence', quantity: '3', unitPrice: '33.33', taxCategory: 'S', taxRate: '7.00' },
        { description: 'Export service', quantity: '1', unitPrice: '50.00', taxCategory: 'G' },
      ],
      discount: { percent: '10.00', reason: 'Loyalty' },
    });
    expect(created.status).toBe(201);
    const { totals } = created.body;
    expect(totals).toMatchObject({ lineNet: '249.99', allowances: '25.00', taxBasis: '224.99' });
    expect(totals.taxes).toEqual([
      { category: 'S', rate: '19.00', basis: '90.00', amount: '17.10', exemptionReason: null },
      { category: 'S', rate: '7.00', basis: '89.99', amount: '6.30', exemptionReason: null },
      { category: 'G', rate: '0.00', basis: '45.00', amount: '0.00', exemptionReason: 'Export outside the EU' },
    ]);
    expect(totals.gross).toBe('248.39');

    // The document the files are written from: a draft, with the seller as the profile is now, one allowance per group.
    const document = await server.app.services.clientInvoices.document(accessOf(b), created.body.id);
    expect(document).toMatchObject({ status: 'draft', number: null, seller: { legalName: 'Tally Test GmbH' }, buyer: { name: 'Buyer AG' } });
    expect(document.lines.map((line) => [line.quantity, line.unitPrice, line.netAmount, line.taxRate])).toEqual([
      ['60.0000', '100.00', '100.00', '19.00'],
      ['3.0000', '33.33', '99.99', '7.00'],
      ['1.0000', '50.00', '50.00', '0.00'],
    ]);
    expect(document.allowances).toEqual([
      { amount: '10.00', reason: 'Loyalty', taxCategory: 'S', taxRate: '19.00' },
      { amount: '10.00', reason: 'Loyalty', taxCategory: 'S', taxRate: '7.00' },
      { amount: '5.00', reason: 'Loyalty', taxCategory: 'G', taxRate: '0.00' },
    ]);
    expect(document.totals).toMatchObject({ lineNet: '249.99', allowances: '25.00', taxBasis: '224.99', tax: '23.40', gross: '248.39', due: '248.39' });
  });

  it('bills a reverse-charge client and a small business without VAT, each with its reason', async () => {
    const reverse = await billing(seller, { taxCategory: 'AE', vatId: 'ATU12345678' });
    await approvedEntry(reverse, reverse.projects[0]?.id as string, '2026-05-04T08:00:00Z', 60);
    const reverseInvoice = await reverse.api.post<ClientInvoice>(reverse.path, {
      clientId: reverse.clientId,
      periodFrom: '2026-05-01',
      periodTo: '2026-05-31',
    });
    expect(reverseInvoice.body.totals.taxes).toEqual([{ category: 'AE', rate: '0.00', basis: '100.00', amount: '0.00', exemptionReason: 'Reverse charge' }]);

    const small = await billing({ ...seller, smallBusiness: true });
    await approvedEntry(small, small.projects[1]?.id as string, '2026-05-04T08:00:00Z', 60);
    const smallInvoice = await small.api.post<ClientInvoice>(small.path, { clientId: small.clientId, periodFrom: '2026-05-01', periodTo: '2026-05-31' });
    expect(smallInvoice.body.totals).toMatchObject({ tax: '0.00', gross: '85.50' });
    expect(smallInvoice.body.totals.taxes[0]).toMatchObject({ category: 'E', exemptionReason: expect.stringContaining('§ 19 UStG') });
  });
});

const accessOf = (b: Billing) => systemAccess(b.tenant.tenant, systemActor('test'));

describe('billing in reports', () => {
  it('filters by invoiced, shows the invoice number in detailed rows and files, and sums what is not billed yet by client', async () => {
    const b = await billing();
    const [alpha, beta] = b.projects as unknown as [{ id: string }, { id: string }];
    const billed = await approvedEntry(b, alpha.id, '2026-10-05T08:00:00Z', 90);
    const open = await approvedEntry(b, beta.id, '2026-10-06T08:00:00Z', 30);
    const invoice = await b.api.post<ClientInvoice>(b.path, { clientId: b.clientId, periodFrom: '2026-10-01', periodTo: '2026-10-31', projectIds: [alpha.id] });
    expect(invoice.status, invoice.text).toBe(201);
    const issued = await b.api.post<ClientInvoice>(`${b.path}/${invoice.body.id}/issue`);
    const reports = `/tenants/${b.tenant.id}/reports`;
    const period = { from: '2026-10-01', to: '2026-10-31' };

    // "What have we not billed yet, by client": one call.
    const unbilled = await b.api.get<Json>(`${reports}/summary`, { query: { ...period, groupBy: 'client', invoiced: 'false', billable: 'true' } });
    expect(unbilled.status).toBe(200);
    expect(unbilled.body.groups).toEqual([
      expect.objectContaining({ key: b.clientId, label: 'Buyer AG', totals: expect.objectContaining({ billableAmount: open.billableAmount }) }),
    ]);
    const invoiced = await b.api.get<{ totals: { billableAmount: string } }>(`${reports}/summary`, {
      query: { ...period, groupBy: 'client', invoiced: 'true' },
    });
    expect(invoiced.body.totals.billableAmount).toBe(billed.billableAmount);

    const rows = await b.api.get<Json[]>(`${reports}/detailed`, { query: period });
    expect(rows.body.map((row) => [row.id, row.invoiceNumber])).toEqual([
      [open.id, null],
      [billed.id, issued.body.number],
    ]);
    const onlyBilled = await b.api.get<Json[]>(`${reports}/detailed`, { query: { ...period, invoiced: 'true' } });
    expect(onlyBilled.body.map((row) => row.id)).toEqual([billed.id]);

    const csv = await download(server.url, `${reports}/detailed`, { ...period, format: 'csv' }, { authorization: `Bearer ${b.tenant.key}` });
    expect(csv.response.status).toBe(200);
    const records = parse(csv.bytes, { columns: true, bom: true }) as Record<string, string>[];
    expect(records.map((record) => record.Invoice)).toEqual(['', issued.body.number]);
  });
});

describe('billing in search', () => {
  it('finds client invoices by number and by client, not for members', async () => {
    const b = await billing(seller, { name: 'Zebrafish Holdings' });
    const draft = await b.api.post<ClientInvoice>(b.path, {
      clientId: b.clientId,
      periodFrom: '2026-11-01',
      periodTo: '2026-11-30',
      lines: [{ description: 'Fee', quantity: '1', unitPrice: '10.00' }],
    });
    const issued = await b.api.post<ClientInvoice>(`${b.path}/${draft.body.id}/issue`);
    const search = (api: ApiClient, q: string) => api.get<{ type: string; id: string; title: string }[]>(`/tenants/${b.tenant.id}/search`, { query: { q } });
    const byNumber = await search(b.api, issued.body.number as string);
    expect(byNumber.body.filter((result) => result.type === 'clientInvoices').map((result) => result.id)).toEqual([draft.body.id]);
    const byClient = await search(b.api, 'zebrafish');
    expect(byClient.body.find((result) => result.type === 'clientInvoices')).toMatchObject({
      id: draft.body.id,
      title: `${issued.body.number} Zebrafish Holdings`,
    });
    expect((await search(b.member.api, 'zebrafish')).body.filter((result) => result.type === 'clientInvoices')).toEqual([]);
  });
});

describe('Idempotency-Key', () => {
  it('replays a create and an issue sent twice with the same key: one draft, one number', async () => {
    const b = await billing();
    await approvedEntry(b, b.projects[0]?.id as string, '2026-09-01T08:00:00Z', 45);
    const body = { clientId: b.clientId, periodFrom: '2026-09-01', periodTo: '2026-09-30' };
    const first = await b.api.post<ClientInvoice>(b.path, body, { headers: { 'idempotency-key': 'create-september' } });
    const again = await b.api.post<ClientInvoice>(b.path, body, { headers: { 'idempotency-key': 'create-september' } });
    expect([first.status, again.status]).toEqual([201, 201]);
    expect(again.body.id).toBe(first.body.id);
    expect(await server.app.db.clientInvoice.count({ where: { tenantId: b.tenant.id } })).toBe(1);

    const issue = () => b.api.post<ClientInvoice>(`${b.path}/${first.body.id}/issue`, undefined, { headers: { 'idempotency-key': 'issue-september' } });
    const issued = await issue();
    const replayed = await issue();
    expect([issued.status, replayed.status]).toEqual([200, 200]);
    expect(replayed.body.number).toBe(issued.body.number);
    expect((await server.app.db.invoiceNumberCounter.findFirstOrThrow({ where: { tenantId: b.tenant.id } })).last).toBe(1);
  });
});

describe('concurrency', () => {
  // The API processes as they are started: a test that times out while they start leaves its promises here, and
  // they are stopped once started (a process pushed after this hook ran would outlive the file).
  const starting: Promise<TallyProcess>[] = [];
  afterAll(async () => {
    const started = await Promise.allSettled(starting);
    await Promise.all(started.map((result) => (result.status === 'fulfilled' ? result.value.stop() : undefined)));
  });

  it('never lets two concurrent creates share an entry', async () => {
    const b = await billing();
    for (let day = 1; day <= 6; day++) await approvedEntry(b, b.projects[day % 2]?.id as string, `2026-06-0${day}T08:00:00Z`, 30);
    const answers = await Promise.all(
      Array.from({ length: 4 }, () =>
        b.api.post<ClientInvoice>(b.path, { clientId: b.clientId, periodFrom: '2026-06-01', periodTo: '2026-06-30', groupBy: 'entry' }),
      ),
    );
    const made = answers.filter((answer) => answer.status === 201);
    expect(made.length).toBeGreaterThanOrEqual(1);
    for (const answer of answers.filter((each) => each.status !== 201)) expect((answer.body as unknown as Problem).reason).toBe('NOTHING_TO_INVOICE');
    const counts = made.map((answer) => answer.body.lines.reduce((acc, line) => acc + line.entryCount, 0));
    expect(counts.reduce((acc, count) => acc + count, 0)).toBe(6);
    const entries = await server.app.db.entry.findMany({ where: { tenantId: b.tenant.id } });
    expect(new Set(entries.map((entry) => entry.clientInvoiceId)).size).toBe(made.length);
  });

  it('numbers 50 concurrent issues over two API processes without gaps, a failed issue in between giving its number back', async () => {
    starting.push(startTallyProcess('api', server.databaseUrl), startTallyProcess('api', server.databaseUrl));
    const processes = await Promise.all(starting);
    const b = await billing({ ...seller, numberPattern: 'RE-{YY}{MM}-{SEQ:3}' });
    const drafts: string[] = [];
    for (let index = 0; index < 51; index++) {
      const answer = await b.api.post<ClientInvoice>(b.path, {
        clientId: b.clientId,
        periodFrom: '2026-07-01',
        periodTo: '2026-07-31',
        issueDate: '2026-07-31',
        notes: index === 25 ? 'fail-issue' : `draft ${index}`,
        lines: [{ description: 'Fee', quantity: '1', unitPrice: '10.00' }],
      });
      expect(answer.status).toBe(201);
      drafts.push(answer.body.id);
    }
    // A failed issue transaction: the database refuses the write after the counter moved, so the whole issue rolls back.
    await server.app.db.$executeRawUnsafe(`CREATE OR REPLACE FUNCTION tally_test_fail_issue() RETURNS trigger AS $$
      BEGIN IF NEW.status = 'issued' AND NEW.notes = 'fail-issue' THEN RAISE EXCEPTION 'issue fails on purpose'; END IF; RETURN NEW; END $$ LANGUAGE plpgsql`);
    await server.app.db.$executeRawUnsafe(
      'CREATE OR REPLACE TRIGGER tally_test_fail_issue BEFORE UPDATE ON client_invoices FOR EACH ROW EXECUTE FUNCTION tally_test_fail_issue()',
    );
    try {
      const clients = processes.map((process) => apiClient(process.url, { apiKey: b.tenant.key }));
      const answers = await Promise.all(drafts.map((id, index) => (clients[index % 2] as ApiClient).post<ClientInvoice>(`${b.path}/${id}/issue`)));
      const refused = answers.filter((answer) => answer.status !== 200);
      expect(refused.map((answer) => `${answer.status} ${answer.text}`)).toHaveLength(1);
      expect(refused[0]?.status).toBe(500);
    } finally {
      await server.app.db.$executeRawUnsafe('DROP TRIGGER tally_test_fail_issue ON client_invoices');
    }
    const issued = await server.app.db.clientInvoice.findMany({ where: { tenantId: b.tenant.id, status: 'issued' }, orderBy: { numberSequence: 'asc' } });
    expect(issued.map((invoice) => invoice.numberSequence)).toEqual(Array.from({ length: 50 }, (_, index) => index + 1));
    expect(issued.map((invoice) => invoice.number)).toEqual(Array.from({ length: 50 }, (_, index) => `RE-2607-${String(index + 1).padStart(3, '0')}`));
    // In issue order: a later number was issued no earlier.
    const times = issued.map((invoice) => invoice.issuedAt?.getTime() ?? 0);
    expect(times).toEqual([...times].sort((a, b) => a - b));
    // The failed one is still a draft and takes the next number.
    const retried = await b.api.post<ClientInvoice>(`${b.path}/${drafts[25]}/issue`);
    expect(retried.body.number).toBe('RE-2607-051');
  }, 90_000); // Two processes started (each loads the whole program) and 102 requests: 8.5 s on a quiet machine, over 30 s at load 15.
});

describe('bad input: refused, the field named, nothing written', () => {
  let b: Billing;
  beforeAll(async () => {
    b = await billing();
    await approvedEntry(b, b.projects[0]?.id as string, '2026-08-03T08:00:00Z', 60);
  });

  const invoicesOf = () => server.app.db.clientInvoice.count({ where: { tenantId: b.tenant.id } });
  const claimed = () => server.app.db.entry.count({ where: { tenantId: b.tenant.id, clientInvoiceId: { not: null } } });
  const august = () => ({ clientId: b.clientId, periodFrom: '2026-08-01', periodTo: '2026-08-31' });

  it.each([
    ['clientId', 400, () => ({ ...august(), clientId: 'no-such-client' })],
    ['periodTo', 400, () => ({ ...august(), periodTo: '2026-07-01' })],
    ['discount.amount', 400, () => ({ ...august(), discount: { amount: '1000.00', reason: 'Too much' } })],
    ['lines.0.quantity', 400, () => ({ ...august(), lines: [{ description: 'Refund', quantity: '-1', unitPrice: '10.00' }] })],
    ['lines.0.taxCategory', 400, () => ({ ...august(), lines: [{ description: 'Fee', quantity: '1', unitPrice: '10.00', taxCategory: 'VAT' }] })],
    // Minutes are priced per hour and printed as h:mm: whole ones only.
    ['lines.0.quantity', 400, () => ({ ...august(), lines: [{ description: 'Call', quantity: '90.5', unit: 'MIN', unitPrice: '120.00' }] })],
    ['periodFrom', 409, () => ({ ...august(), periodFrom: '2026-09-01', periodTo: '2026-09-30' })],
  ])('create with a bad %s', async (field, status, body) => {
    const before = await invoicesOf();
    const answer = await b.api.post<Problem>(b.path, body());
    expect(answer.status).toBe(status);
    if (status === 409) expect(answer.body.reason).toBe('NOTHING_TO_INVOICE');
    else expect(answer.body.errors?.map((error) => error.path)).toContain(field);
    expect(await invoicesOf()).toBe(before);
    expect(await claimed()).toBe(0);
  });

  it("refuses another tenant's client by name", async () => {
    const other = await billing();
    const answer = await b.api.post<Problem>(b.path, { ...august(), clientId: other.clientId });
    expect(answer.status).toBe(400);
    expect(answer.body.errors?.[0]?.path).toBe('clientId');
    expect(await invoicesOf()).toBe(0);
  });

  it('refuses to pay a draft, and to issue without the profile an invoice needs, naming what is missing', async () => {
    const draft = await b.api.post<ClientInvoice>(b.path, august());
    expect(draft.status).toBe(201);
    const pay = await b.api.post<Problem>(`${b.path}/${draft.body.id}/pay`, { paidAt: '2026-09-01' });
    expect(pay.status).toBe(409);
    expect(pay.body.reason).toBe('INVOICE_NOT_ISSUED');
    expect(await server.app.db.clientInvoicePayment.count({ where: { clientInvoiceId: draft.body.id } })).toBe(0);

    expect((await b.api.patch(`/tenants/${b.tenant.id}/billing-profile`, { iban: null, email: null })).status).toBe(200);
    const issue = await b.api.post<Problem>(`${b.path}/${draft.body.id}/issue`);
    expect(issue.status).toBe(409);
    expect(issue.body.reason).toBe('BILLING_PROFILE_INCOMPLETE');
    expect(issue.body.errors?.map((error) => error.path).sort()).toEqual(['email', 'iban']);
    const after = await server.app.db.clientInvoice.findUniqueOrThrow({ where: { id: draft.body.id } });
    expect(after).toMatchObject({ status: 'draft', number: null, seller: null });
    expect(await server.app.db.invoiceNumberCounter.count({ where: { tenantId: b.tenant.id } })).toBe(0);

    await expect(server.app.services.clientInvoices.document(accessOf(b), draft.body.id)).rejects.toMatchObject({ reason: 'BILLING_PROFILE_INCOMPLETE' });

    // Deleting the draft releases its entry.
    expect((await b.api.delete(`${b.path}/${draft.body.id}`)).status).toBe(204);
    expect(await claimed()).toBe(0);
  });
});
