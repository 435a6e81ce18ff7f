/**
 * The billing part of `npm run bench` (issue 31): over REST, against the
 * running API process,
 * - an invoice from 10,000 approved entries and 1,000 approved expenses of one client
 *   (BENCH_INVOICE_ENTRIES, BENCH_INVOICE_EXPENSES; goal under 2 s, issue 40), and how its
 *   net compares with the entries' sum and the expenses' billed amounts;
 * - issuing a draft, one at a time (median of 20; goal under 100 ms);
 * - the client-invoices list (BENCH_CLIENT_INVOICES invoices in the tenant, 50 a page,
 *   one client at a time) beside the floor's client-invoices list (the same two statements,
 *   printed to the same bytes by hand: checked before the rounds), and beside the notes list
 *   of the same API and of the floor, in alternating rounds (BENCH_LIST_ROUNDS, default 4).
 */
import pg from 'pg';

const invoiceEntries = Number(process.env.BENCH_INVOICE_ENTRIES ?? 10_000);
const invoiceExpenses = Number(process.env.BENCH_INVOICE_EXPENSES ?? 1_000);
const listedInvoices = Number(process.env.BENCH_CLIENT_INVOICES ?? 5_000);
/** Rounds of the three lists (floor notes, Tally notes, Tally invoices), alternated. */
const listRounds = Number(process.env.BENCH_LIST_ROUNDS ?? 4);

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};

export interface BillingBench {
  databaseUrl: string;
  url: string;
  key: string;
  tenantId: string;
  /** Median latency (ms, one client) of a 50-item page at `path` of the API under test. */
  listLatency(path: string): Promise<number>;
  /** The same of the floor (test/bench/floor.mjs), which serves the client-invoices list too. */
  floorListLatency(path: string): Promise<number>;
  /** The floor's base URL: its page is checked against the API's, byte for byte, before the rounds. */
  floorUrl: string;
  /** The same of the baseline's API (BENCH_BASELINE), on the same database: in the same rounds, when there is one. */
  baselineListLatency?: (path: string) => Promise<number>;
  /** The notes list's median latency (ms) of the API and of the floor, measured when called. */
  notesList: { tally: () => Promise<number>; floor: () => Promise<number> };
}

export async function measureBilling({
  databaseUrl,
  url,
  key,
  tenantId,
  listLatency,
  floorListLatency,
  floorUrl,
  baselineListLatency,
  notesList,
}: BillingBench): Promise<void> {
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  const call = async <Body>(method: string, path: string, body?: unknown): Promise<Body> => {
    const response = await fetch(`${url}/tenants/${tenantId}${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
    return (await response.json()) as Body;
  };
  await call('PATCH', '/billing-profile', {
    legalName: 'Bench GmbH',
    address: { line1: 'Hauptstraße 1', postcode: '10115', city: 'Berlin', countryCode: 'DE' },
    vatId: 'DE123456789',
    email: 'billing@example.com',
    iban: 'DE89370400440532013000',
    defaultTaxRate: '19.00',
  });
  // Issuing asks for the buyer's address (every EN 16931 invoice names it).
  const client = await call<{ id: string }>('POST', '/clients', {
    name: `Bench client ${Date.now()}`,
    currency: 'EUR',
    billingAddress: { line1: 'Ring 2', postcode: '1010', city: 'Wien', countryCode: 'AT' },
  });
  const projects = [
    await call<{ id: string }>('POST', '/projects', { name: `Bench A ${Date.now()}`, clientId: client.id, hourlyRate: '100.00' }),
    await call<{ id: string }>('POST', '/projects', { name: `Bench B ${Date.now()}`, clientId: client.id, hourlyRate: '85.50' }),
  ];

  // The entries as approved time of one member: written in bulk (what the entry API would have made of them:
  // 45 minutes at the project's rate, its amount half-up to cents).
  const database = new pg.Client({ connectionString: databaseUrl });
  await database.connect();
  try {
    const member = await database.query<{ id: string }>(
      `INSERT INTO tenant_users (id, "tenantId", email, name, role, status, "createdAt", "updatedAt")
       VALUES (uuidv7()::text, $1, 'bench-biller-' || $2 || '@example.com', 'Bench Biller', 'member', 'active', now(), now()) RETURNING id`,
      [tenantId, Date.now()],
    );
    await database.query(
      `INSERT INTO entries (id, "tenantId", "tenantUserId", "projectId", "startedAt", "endedAt", "breakMinutes", "durationMinutes", billable,
                            "hourlyRate", "billableAmount", currency, status, "submittedAt", "reviewedAt", description, tags, "createdAt", "updatedAt")
       SELECT uuidv7()::text, $1, $2, CASE WHEN g % 2 = 0 THEN $3 ELSE $4 END,
              timestamptz '2025-01-01 08:00Z' + (g * interval '61 minutes'), timestamptz '2025-01-01 08:45Z' + (g * interval '61 minutes'), 0, 45, true,
              CASE WHEN g % 2 = 0 THEN 100.00 ELSE 85.50 END, CASE WHEN g % 2 = 0 THEN 75.00 ELSE 64.13 END, 'EUR', 'approved', now(), now(),
              'Bench work ' || g, '{}', now(), now()
         FROM generate_series(1, $5::int) g`,
      [tenantId, member.rows[0]?.id, projects[0]?.id, projects[1]?.id, invoiceEntries],
    );
    // The expenses as the expense API would have made them: 11.90 gross at 19% is 10.00 net, 11.00 with a 10% markup.
    await database.query(
      `INSERT INTO expenses (id, "tenantId", "tenantUserId", date, "projectId", "clientId", category, description, amount, "netAmount", "taxAmount",
                             currency, "taxRate", billable, "markupPercent", "billedAmount", status, "submittedAt", "reviewedAt", "createdAt", "updatedAt")
       SELECT uuidv7()::text, $1, $2, date '2025-01-01' + (g % 365), $3, $4, CASE WHEN g % 2 = 0 THEN 'travel' ELSE 'lodging' END, 'Bench expense ' || g,
              11.90, 10.00, 1.90, 'EUR', 19, true, 10, 11.00, 'approved', now(), now(), now(), now()
         FROM generate_series(1, $5::int) g`,
      [tenantId, member.rows[0]?.id, projects[0]?.id, client.id, invoiceExpenses],
    );
    await database.query('ANALYZE entries');
    await database.query('ANALYZE expenses');

    const started = performance.now();
    const invoice = await call<{ id: string; totals: { lineNet: string }; lines: unknown[] }>('POST', '/client-invoices', {
      clientId: client.id,
      periodFrom: '2025-01-01',
      periodTo: '2025-12-31',
      groupBy: 'day',
    });
    const createMs = performance.now() - started;
    const sum = await database.query<{ sum: string }>('SELECT trim_scale(sum("billableAmount"))::text AS sum FROM entries WHERE "clientInvoiceId" = $1', [
      invoice.id,
    ]);
    process.stdout.write(
      `\nclient invoice from ${invoiceEntries} approved entries and ${invoiceExpenses} expenses (by day, one line an expense: ${invoice.lines.length} lines): ` +
        `${createMs.toFixed(0)} ms (goal < 2000); net ${invoice.totals.lineNet}, entries' sum ${sum.rows[0]?.sum} + expenses ${(invoiceExpenses * 11).toFixed(2)}\n`,
    );

    // Issue: drafts of one manual line each, issued one at a time.
    const issueTimes: number[] = [];
    for (let index = 0; index < 21; index++) {
      const draft = await call<{ id: string }>('POST', '/client-invoices', {
        clientId: client.id,
        periodFrom: '2026-01-01',
        periodTo: '2026-01-31',
        lines: [{ description: 'Fee', quantity: '1', unitPrice: '100.00' }],
      });
      const issuing = performance.now();
      await call('POST', `/client-invoices/${draft.id}/issue`);
      // The first warms the route up.
      if (index > 0) issueTimes.push(performance.now() - issuing);
    }
    process.stdout.write(`issue a draft, median of ${issueTimes.length}: ${median(issueTimes).toFixed(1)} ms (goal < 100)\n`);

    // The list, over a tenant with many invoices of three lines each: written as drafts, then issued (an issued
    // invoice takes no more lines: the records trigger refuses them). A millisecond apart and newer than the invoices
    // above, so that the page measured is the 50 newest of them: a second apart, the page held the invoice from
    // 10,000 entries (1,731 lines) and the issued drafts, not 50 invoices of three lines.
    await database.query(
      `WITH made AS (
         INSERT INTO client_invoices (id, "tenantId", "clientId", "clientName", currency, "periodFrom", "periodTo", status, number, "createdAt", "updatedAt")
         SELECT uuidv7()::text, $1, $2, 'Bench client', 'EUR', '2025-01-01', '2025-01-31', 'draft', 'L-' || g, now() - (g * interval '1 millisecond'), now()
           FROM generate_series(1, $3::int) g RETURNING id)
       INSERT INTO client_invoice_lines (id, "clientInvoiceId", position, description, quantity, unit, "unitPrice", "netAmount", "taxCategory", "taxRate", source)
       SELECT uuidv7()::text, made.id, p, 'Line ' || p, 1, 'HUR', 100, 100, 'S', 19, 'manual' FROM made, generate_series(1, 3) p`,
      [tenantId, client.id, listedInvoices],
    );
    await database.query(`UPDATE client_invoices SET status = 'issued', "issueDate" = '2025-02-01' WHERE "tenantId" = $1 AND number LIKE 'L-%'`, [tenantId]);
    await database.query('ANALYZE');
    // The floor's notes list, Tally's notes list and the invoices list in alternating rounds, so that a shared
    // machine's drift hits all three alike; each figure is the median of the rounds' medians.
    const invoicesPath = `/tenants/${tenantId}/client-invoices?limit=50`;
    // The floor does the same work only if it answers the same: the same invoices, lines and values, byte for byte.
    const page = async (base: string): Promise<string> => (await fetch(`${base}${invoicesPath}`, { headers })).text();
    const [tallyPage, floorPage] = [await page(url), await page(floorUrl)];
    if (tallyPage !== floorPage || (JSON.parse(tallyPage) as unknown[]).length !== 50) {
      throw new Error(`the floor's client-invoices page is not Tally's:\n${tallyPage.slice(0, 400)}\n${floorPage.slice(0, 400)}`);
    }
    const rounds: { floorNotes: number; notes: number; invoices: number; floorInvoices: number; baseline: number }[] = [];
    for (let round = 0; round < listRounds; round++) {
      const floorNotes = await notesList.floor();
      const notes = await notesList.tally();
      const invoices = await listLatency(invoicesPath);
      const floorInvoices = await floorListLatency(invoicesPath);
      rounds.push({ floorNotes, notes, invoices, floorInvoices, baseline: baselineListLatency ? await baselineListLatency(invoicesPath) : Number.NaN });
    }
    const [floorNotesMs, notesMs, invoicesMs, floorInvoicesMs] = (['floorNotes', 'notes', 'invoices', 'floorInvoices'] as const).map((name) =>
      median(rounds.map((round) => round[name])),
    ) as [number, number, number, number];
    const spread = (ratio: (round: (typeof rounds)[number]) => number): string => {
      const sorted = rounds.map(ratio).sort((a, b) => a - b);
      return `rounds ${sorted[0]?.toFixed(2)} to ${sorted.at(-1)?.toFixed(2)}`;
    };
    process.stdout.write(
      `client-invoices list p50 (50 of ${listedInvoices}, 3 lines each, ${(tallyPage.length / 1024).toFixed(0)} KB, 1 client; median of ${listRounds} ` +
        `alternating rounds): ${invoicesMs.toFixed(2)} ms; the floor's ${floorInvoicesMs.toFixed(2)} ms (same statements, same bytes): ` +
        `${(invoicesMs / floorInvoicesMs).toFixed(2)}x the floor (${spread((round) => round.invoices / round.floorInvoices)})\n` +
        `  beside the notes lists: Tally's ${notesMs.toFixed(2)} ms, the floor's ${floorNotesMs.toFixed(2)} ms (8 KB): the invoices ` +
        `${(invoicesMs / floorNotesMs).toFixed(2)}x the floor's notes (${spread((round) => round.invoices / round.floorNotes)}); ` +
        `notes ${(notesMs / floorNotesMs).toFixed(2)}x\n`,
    );
    if (baselineListLatency) {
      const baselineMs = median(rounds.map((round) => round.baseline));
      process.stdout.write(
        `the baseline's client-invoices list in the same rounds: ${baselineMs.toFixed(2)} ms, ${(baselineMs / floorInvoicesMs).toFixed(2)}x the floor ` +
          `(Tally/baseline ${(invoicesMs / baselineMs).toFixed(2)})\n`,
      );
    }
  } finally {
    await database.end();
  }
}
