/**
 * The client-invoices list (issue 41): it is read on a path of its own (a
 * statement with the payments, last send and credit note of the page, then one
 * for the page's lines), REST prints it without GraphQL, and it must answer
 * exactly what reading each invoice answers, byte for byte over REST and field
 * for field over GraphQL: drafts, issued invoices with
 * their snapshots, payments, sends, discounts, exemptions, a void invoice and
 * its credit note, in two currencies of different scales. Filters and pages
 * pick what they did.
 */
import { getNamedType, type GraphQLObjectType, isObjectType } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClientInvoice } from './generated/openapi/types.gen.js';
import { approvedEntry, type Billing, billingTenant, publicClient, xrechnungSeller } from './helpers/billing.js';
import type { Json } from './helpers/http.js';
import { startIdentityProvider, type IdentityProvider } from './helpers/oidc.js';
import { startTestServer, type TestServer } from './helpers/server.js';

let provider: IdentityProvider;
let server: TestServer;
let b: Billing;
/** Every invoice of the tenant, newest first, as the tests below made them. */
let made: string[];
let yenClientId: string;

/** Every field of a client invoice but its relations to other resources, nested ones too. */
const ownFields = `id tenantId clientId type creditNoteForId creditNoteId status number currency issueDate dueDate periodFrom periodTo groupBy
  buyerReference notes
  seller { legalName address { line1 line2 postcode city countryCode } vatId taxNumber email phone contactName electronicAddress { scheme id } iban bic bankName smallBusiness }
  buyer { name address { line1 line2 postcode city countryCode } vatId email electronicAddress { scheme id } }
  lines { position description quantity unit baseQuantity unitPrice netAmount taxCategory taxRate taxExemptionReason projectId taskId tenantUserId entryCount }
  discount { percent amount reason }
  totals { lineNet allowances taxBasis taxes { category rate basis amount exemptionReason } tax gross paid due }
  payments { paidAt amount } issuedAt sentAt sentTo lastSend { id status to cc attach messageId attempts lastError createdAt deliveredAt }
  paidAt voidedAt createdAt updatedAt`;
/** With the relations to the client and the voided invoice (GraphQL only). */
const allFields = `${ownFields} client { id name } creditNoteFor { id number }`;

/** The statements the server ran while `work` ran, but the API key's lookup. */
async function statementsOf(work: () => Promise<unknown>): Promise<string[]> {
  statements = [];
  await work();
  const ran = statements.filter((statement) => !statement.includes('api_keys'));
  statements = undefined;
  return ran;
}
let statements: string[] | undefined;

const ok = <T>(answer: { status: number; text: string; body: T }, status = 200): T => {
  expect(answer.status, answer.text).toBe(status);
  return answer.body;
};

beforeAll(async () => {
  provider = await startIdentityProvider();
  // An API process: statements are counted per request, and a worker's or the outbox dispatcher's transaction
  // committing meanwhile (the send's mail job, the events' reactions) would be counted with them.
  server = await startTestServer({ env: { ...provider.env, ROLE: 'api' }, onQuery: (statement) => statements?.push(statement) });
  b = await billingTenant(server, provider, xrechnungSeller, publicClient);
  const [alpha, beta] = b.projects as unknown as [{ id: string }, { id: string }];
  const post = (path: string, body?: Json) => b.api.post<ClientInvoice>(`${b.path}${path}`, body);
  const create = async (body: Json) => ok(await post('', { clientId: b.clientId, ...body }), 201);

  // From time: two projects, a discount and a manual line that is exempt.
  await approvedEntry(b, alpha.id, '2026-03-02T08:00:00Z', 95);
  await approvedEntry(b, beta.id, '2026-03-04T08:00:00Z', 50);
  await create({
    periodFrom: '2026-03-01',
    periodTo: '2026-03-31',
    notes: 'March',
    lines: [{ description: 'Exempt fee', quantity: '2.5', unit: 'HUR', unitPrice: '40.00', taxCategory: 'E', taxRate: '0', taxExemptionReason: 'Exempt' }],
    discount: { percent: '5', reason: 'Loyalty' },
  });
  // Issued, then paid in part and in full.
  const paid = await create({ periodFrom: '2026-04-01', periodTo: '2026-04-30', lines: [{ description: 'Fee', quantity: '1', unitPrice: '100.00' }] });
  ok(await post(`/${paid.id}/issue`));
  ok(await post(`/${paid.id}/pay`, { paidAt: '2026-05-02', amount: '19.00' }));
  ok(await post(`/${paid.id}/pay`, { paidAt: '2026-05-03' }));
  // Issued and sent (no SMTP: only marked sent, with its send row).
  const sent = await create({
    periodFrom: '2026-05-01',
    periodTo: '2026-05-31',
    dueDate: '2026-07-01',
    lines: [{ description: 'Amount off', quantity: '3', unitPrice: '10.00' }],
    discount: { amount: '5.00', reason: 'Agreed' },
  });
  ok(await post(`/${sent.id}/issue`));
  ok(await post(`/${sent.id}/send`));
  // Issued, then voided: a credit note cancels it.
  const voided = await create({ periodFrom: '2026-06-01', periodTo: '2026-06-30', lines: [{ description: 'Mistake', quantity: '1', unitPrice: '70.00' }] });
  ok(await post(`/${voided.id}/issue`));
  ok(await post(`/${voided.id}/void`));
  // A client in yen (no minor units).
  const yen = ok(
    await b.api.post<{ id: string }>(`/tenants/${b.tenant.id}/clients`, {
      name: 'Kaisha KK',
      currency: 'JPY',
      billingAddress: { line1: '1-1 Chiyoda', postcode: '100-0001', city: 'Tokyo', countryCode: 'JP' },
    }),
    201,
  );
  yenClientId = yen.id;
  const inYen = ok(
    await post('', {
      clientId: yen.id,
      periodFrom: '2026-07-01',
      periodTo: '2026-07-31',
      lines: [{ description: 'Yen work', quantity: '3', unitPrice: '1234' }],
    }),
    201,
  );
  ok(await post(`/${inYen.id}/issue`));
  // An empty draft of only a line with no tax.
  await create({ periodFrom: '2026-08-01', periodTo: '2026-08-31', lines: [{ description: 'Zero', quantity: '0', unitPrice: '0.00' }] });
  made = ok(await b.api.get<ClientInvoice[]>(b.path, { query: { limit: 200 } })).map((invoice) => invoice.id);
});
afterAll(async () => {
  await server?.stop();
  await provider?.close();
});

describe('the client-invoices list', () => {
  it('holds every kind of invoice the tests made', () => {
    // Four invoices of the euro client, the credit note, the yen invoice and the zero draft.
    expect(made).toHaveLength(7);
  });

  it('answers over REST exactly what reading each invoice answers, byte for byte, from two statements (the invoices, then their lines)', async () => {
    let list = await b.api.get<ClientInvoice[]>(b.path);
    expect(await statementsOf(async () => (list = await b.api.get<ClientInvoice[]>(b.path, { query: { limit: 50 } })))).toHaveLength(2);
    expect(list.status).toBe(200);
    const each = [];
    for (const id of made) each.push((await b.api.get(`${b.path}/${id}`)).text);
    expect(list.text).toBe(`[${each.join(',')}]`);
    const statuses = new Set(list.body.map((invoice) => invoice.status));
    expect([...statuses].sort()).toEqual(['draft', 'issued', 'paid', 'sent', 'void']);
    expect(list.body.some((invoice) => invoice.type === 'credit_note' && invoice.creditNoteForId !== null)).toBe(true);
    expect(list.body.some((invoice) => invoice.lastSend !== null && invoice.payments.length === 0)).toBe(true);
    expect(list.body.some((invoice) => invoice.payments.length === 2)).toBe(true);
  });

  it('answers REST from its plain read, with the fields of the REST schema, every nested type shown', async () => {
    // The row answers without GraphQL (client-invoice.plain.ts): the byte-for-byte test above holds its values.
    const row = server.app.rest.routes.find((route) => route.operationId === 'clientInvoiceControllerFindAll');
    expect(row?.kind === 'graphql' && row.plain !== undefined).toBe(true);
    const list = await b.api.get<ClientInvoice[]>(b.path, { query: { limit: 50 } });
    const one = await b.api.get(`${b.path}/${made[0]}`);
    expect(list.headers.get('content-type')).toBe(one.headers.get('content-type'));
    // Each object has its type's fields in the schema's order, and each nested type appears (not null, not empty) at
    // least once, so that comparing the bytes compares every key of every type.
    const shown = new Set<string>();
    const walk = (type: GraphQLObjectType, value: Record<string, unknown>) => {
      shown.add(type.name);
      const fields = Object.values(type.getFields());
      expect(Object.keys(value), type.name).toEqual(fields.map((field) => field.name));
      for (const field of fields) {
        const named = getNamedType(field.type);
        if (!isObjectType(named)) continue;
        const nested = value[field.name];
        for (const each of Array.isArray(nested) ? nested : nested === null ? [] : [nested]) walk(named, each as Record<string, unknown>);
      }
    };
    const invoiceType = server.app.rest.restSchema.getType('ClientInvoice') as GraphQLObjectType;
    for (const invoice of list.body) walk(invoiceType, invoice as unknown as Record<string, unknown>);
    const nestedTypes = new Set<string>();
    const collect = (type: GraphQLObjectType) => {
      if (nestedTypes.has(type.name)) return;
      nestedTypes.add(type.name);
      for (const field of Object.values(type.getFields())) {
        const named = getNamedType(field.type);
        if (isObjectType(named)) collect(named);
      }
    };
    collect(invoiceType);
    expect([...shown].sort()).toEqual([...nestedTypes].sort());
  });

  it.each([
    ['its own fields (two statements)', ownFields, 2],
    ['the client and the voided invoice too (through Prisma)', allFields, undefined],
  ])('answers over GraphQL what reading each invoice answers: %s', async (_name, fields, statementCount) => {
    const listQuery = `query ($t: ID!) { clientInvoices(tenantId: $t, limit: 50) { ${fields} } }`;
    let list = await b.api.graphql<{ clientInvoices: Json[] }>(listQuery, { t: b.tenant.id });
    const ran = await statementsOf(async () => (list = await b.api.graphql<{ clientInvoices: Json[] }>(listQuery, { t: b.tenant.id })));
    if (statementCount !== undefined) expect(ran).toHaveLength(statementCount);
    expect(list.body.errors).toBeUndefined();
    const each = [];
    for (const id of made) {
      const one = await b.api.graphql<{ clientInvoice: Json }>(`query ($t: ID!, $id: ID!) { clientInvoice(tenantId: $t, id: $id) { ${fields} } }`, {
        t: b.tenant.id,
        id,
      });
      expect(one.body.errors).toBeUndefined();
      each.push(one.body.data?.clientInvoice);
    }
    expect(JSON.stringify(list.body.data?.clientInvoices)).toBe(JSON.stringify(each));
  });

  it('answers a selection of a few fields over GraphQL', async () => {
    // A selection of a few fields, nested ones among them.
    const few = await b.api.graphql<{ clientInvoices: { id: string; totals: { due: string }; lines: { netAmount: string }[] }[] }>(
      'query ($t: ID!) { clientInvoices(tenantId: $t) { id totals { due } lines { netAmount } } }',
      { t: b.tenant.id },
    );
    const rest = ok(await b.api.get<ClientInvoice[]>(b.path));
    expect(few.body.data?.clientInvoices).toEqual(
      rest.map((invoice) => ({ id: invoice.id, totals: { due: invoice.totals.due }, lines: invoice.lines.map((line) => ({ netAmount: line.netAmount })) })),
    );
  });

  it('filters and pages as before', async () => {
    const ids = async (query: Record<string, string | number>) => ok(await b.api.get<ClientInvoice[]>(b.path, { query })).map((invoice) => invoice.id);
    const all = ok(await b.api.get<ClientInvoice[]>(b.path, { query: { limit: 50 } }));
    const where = (keep: (invoice: ClientInvoice) => boolean) => all.filter(keep).map((invoice) => invoice.id);
    expect(await ids({ status: 'draft' })).toEqual(where((invoice) => invoice.status === 'draft'));
    expect(await ids({ status: 'void' })).toEqual(where((invoice) => invoice.status === 'void'));
    expect(await ids({ clientId: yenClientId })).toEqual(where((invoice) => invoice.clientId === yenClientId));
    expect(await ids({ clientId: b.clientId, status: 'issued' })).toEqual(where((invoice) => invoice.clientId === b.clientId && invoice.status === 'issued'));
    const issuedDays = all.map((invoice) => invoice.issueDate).filter((day): day is string => day !== null);
    expect(issuedDays.length).toBeGreaterThan(0);
    const day = [...issuedDays].sort()[0] as string;
    expect(await ids({ from: day, to: day })).toEqual(where((invoice) => invoice.issueDate === day));
    expect(await ids({ limit: 2, offset: 3 })).toEqual(made.slice(3, 5));
    expect(await ids({ offset: 100 })).toEqual([]);
  });

  it('names a bad filter', async () => {
    const bad = await b.api.get(b.path, { query: { status: 'lost' } });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('status');
  });
});
