/**
 * What printing money at its scale costs a list (`npx tsx test/bench/money-format.ts`): every amount of every
 * row passes through moneyText (docs/performance.md, "Money at its scale").
 *
 * 1. Per value: Prisma's Decimal as the Decimal scalar printed it before (String, "155.2"), as moneyText prints it
 *    now ("155.20", the currency's minor units from a Map), and, for scale, what building an Intl.NumberFormat per
 *    value (the naive way to ask a currency's digits) would cost.
 * 2. Per page: a page of 50 client invoices of 3 lines and a payment each, rendered through the REST schema's
 *    ClientInvoice type as a list answer is (src/rest/records.ts), with its 1,150 money and percent strings.
 */
import { performance } from 'node:perf_hooks';
import { Prisma } from '../../src/generated/prisma/client.js';
import { moneyText } from '../../src/lib/money.js';
import { createRecordRenderer } from '../../src/rest/records.js';
import { flatResourceSchema } from '../../src/rest/rest-schema.js';
import { schemaWithRestTypes } from '../../src/schema.js';

const d = (text: string) => new Prisma.Decimal(text);
const values = Array.from({ length: 10_000 }, (_, index) => d(`${(index * 7919) % 100_000}.${index % 100}`));

function perValue(label: string, print: (value: Prisma.Decimal) => string, rounds = 30): void {
  const times: number[] = [];
  let sink = 0;
  for (let round = 0; round < rounds; round += 1) {
    const started = performance.now();
    for (const value of values) sink += print(value).length;
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  const median = times[Math.floor(times.length / 2)] as number;
  process.stdout.write(`${label.padEnd(52)} ${((median / values.length) * 1e6).toFixed(0).padStart(6)} ns a value (${sink > 0 ? 'ok' : ''})\n`);
}

const decimal = /^-?\d+(\.\d+)?$/;
const before = (value: Prisma.Decimal) => {
  const text = String(value);
  return decimal.test(text) ? text : '';
};
const now_ = (value: Prisma.Decimal) => {
  const text = moneyText(value, 'EUR');
  return decimal.test(text) ? text : '';
};
// Each twice, in turns: the first rounds warm the JIT up for both.
for (const round of [1, 2]) {
  perValue(`before: String(decimal), as the scalar printed it (${round})`, before);
  perValue(`now: moneyText(decimal, currency) (${round})`, now_);
}
perValue(
  'naive: an Intl.NumberFormat per value, then toFixed',
  (value) => value.toFixed(new Intl.NumberFormat('en', { style: 'currency', currency: 'EUR' }).resolvedOptions().maximumFractionDigits ?? 2),
  3,
);

const renderer = createRecordRenderer(flatResourceSchema(schemaWithRestTypes));
const now = new Date('2026-11-28T12:00:00Z');
// A caller who has entered the tenant and reads rates: what a rate field asks of its request.
const context = { enteredTenant: () => ({ holds: () => true, tenant: { settings: { currency: 'EUR' } } }) };

/** The median and p90 (ms) of rendering `records` as `typeName` 200 times. */
async function perPage(label: string, typeName: string, records: object[]): Promise<void> {
  const times: number[] = [];
  let bytes = 0;
  for (let round = 0; round < 200; round += 1) {
    const started = performance.now();
    bytes = (await renderer.render(typeName, records, context)).length;
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  process.stdout.write(`${label.padEnd(52)} median ${(times[100] as number).toFixed(3)} ms, p90 ${(times[180] as number).toFixed(3)} ms (${bytes} bytes)\n`);
}

// A detailed report's page: 200 entries with four rates and amounts each.
const entries = Array.from({ length: 200 }, (_, index) => ({
  id: `entry-${index}`,
  tenantId: 'tenant',
  startedAt: now,
  endedAt: now,
  durationMinutes: 95,
  description: 'Work',
  billable: true,
  tags: ['a'],
  status: 'approved',
  projectId: 'project',
  projectName: 'Project',
  clientId: 'client',
  clientName: 'Client',
  tenantUserId: 'member',
  memberName: 'Member',
  taskId: null,
  taskTitle: null,
  hourlyRate: d('85.5'),
  costRate: d('40'),
  billableAmount: d('135.38'),
  costAmount: d('63.33'),
  currency: 'EUR',
  clientInvoiceId: null,
  invoiceNumber: null,
}));
await perPage('200 report entries (800 rates and amounts)', 'ReportEntry', entries);
// A page of invoices' parts: 150 lines (money and percents) and 50 totals.
const lines = Array.from({ length: 150 }, (_, index) => ({
  position: index,
  description: 'Work',
  quantity: d('1.5833'),
  unit: 'HUR',
  unitPrice: d('85.5'),
  netAmount: d('135.38'),
  taxCategory: 'S',
  taxRate: d('19'),
  taxExemptionReason: null,
  projectId: null,
  taskId: null,
  tenantUserId: null,
  entryCount: 1,
  currency: 'EUR',
}));
await perPage('150 invoice lines (450 money and percents)', 'ClientInvoiceLine', lines);
const totals = Array.from({ length: 50 }, () => ({
  currency: 'EUR',
  lineNet: d('291.25'),
  allowances: d('0'),
  taxBasis: d('291.25'),
  tax: d('55.34'),
  gross: d('346.59'),
  paid: d('346.59'),
  due: d('0'),
  taxes: [{ category: 'S', rate: '19.00', lineNet: '291.25', allowance: '0.00', basis: '291.25', amount: '55.34', exemptionReason: null }],
}));
await perPage('50 invoice totals (500 money and percents)', 'ClientInvoiceTotals', totals);
