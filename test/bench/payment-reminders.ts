/**
 * How long the payment reminder sweep takes for 1,000 overdue invoices (issue 40: under 60 s), and that a
 * second sweep writes none. Not part of `npm test`: `npx tsx test/bench/payment-reminders.ts` starts Tally on
 * an embedded database of its own (a temporary DATA_DIR), issues BENCH_REMINDER_INVOICES (1,000) invoices of a
 * German client through the service, each 44 days overdue, then times one sweep (each invoice raised to level
 * 2, its PDF written) and a second one. `npm run bench` runs it as its part `payment-reminders`.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { systemActor } from '../../src/auth/actor.js';
import { systemAccess } from '../../src/auth/tenant-access.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/lib/logger.js';
import { startTally } from '../../src/main.js';
import { UpdateBillingProfileDto } from '../../src/modules/billing/billing-profile/billing-profile.service.js';
import { CreateClientInvoiceDto } from '../../src/modules/billing/client-invoice/client-invoice.dto.js';
import { CreateClientDto } from '../../src/modules/tracking/client/client.service.js';

const invoiceCount = Number(process.env.BENCH_REMINDER_INVOICES ?? 1_000);
const goalSeconds = 60;

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tally-bench-reminders-'));
fs.chmodSync(dataDir, 0o777);
const config = loadConfig({ NODE_ENV: 'development', PORT: '0', DATA_DIR: dataDir, RATE_LIMIT_PER_MINUTE: '0', LOG_LEVEL: 'warn' });
const log = createLogger('warn');
const tally = await startTally({ config, log, bootstrap: false });
try {
  const app = tally.app;
  const work = tally.workers?.work.paymentReminders;
  if (!app || !work) throw new Error('no API and workers in this process');
  const actor = systemActor('bench');
  const tenant = await app.services.tenants.create(actor, { name: 'Reminder bench', slug: `reminders-${Date.now()}`, settings: { timezone: 'Europe/Berlin' } });
  const access = systemAccess(tenant, actor);
  await app.services.billingProfile.update(
    access,
    UpdateBillingProfileDto.parse({
      legalName: 'Bench GmbH',
      address: { line1: 'Hauptstraße 1', postcode: '10115', city: 'Berlin', countryCode: 'DE' },
      vatId: 'DE123456789',
      email: 'billing@example.com',
      iban: 'DE89370400440532013000',
      defaultTaxRate: '19.00',
    }),
  );
  const client = await app.services.clients.create(
    access,
    CreateClientDto.parse({
      name: 'Kunde AG',
      currency: 'EUR',
      language: 'de',
      billingAddress: { line1: 'Ring 2', postcode: '1010', city: 'Wien', countryCode: 'AT' },
    }),
  );
  const today = new Date();
  const day = (daysBefore: number) => new Date(today.getTime() - daysBefore * 86_400_000).toISOString().slice(0, 10);
  const seeding = performance.now();
  for (let index = 0; index < invoiceCount; index++) {
    const draft = await app.services.clientInvoices.create(
      access,
      CreateClientInvoiceDto.parse({
        clientId: client.id,
        periodFrom: day(90),
        periodTo: day(60),
        issueDate: day(58),
        dueDate: day(44),
        lines: [{ description: `Fixed fee ${index + 1}`, quantity: '1', unitPrice: '200.00' }],
      }),
    );
    await app.services.clientInvoices.issue(access, draft.id);
  }
  console.log(`seeded ${invoiceCount} issued invoices, 44 days overdue, in ${((performance.now() - seeding) / 1000).toFixed(1)} s`);

  const first = performance.now();
  const claimed = await work.claimOverdue();
  const claimSeconds = (performance.now() - first) / 1000;
  await work.writeDocuments(claimed);
  const firstSeconds = (performance.now() - first) / 1000;
  const second = performance.now();
  const again = await work.remindOverdue(log);
  const secondSeconds = (performance.now() - second) / 1000;
  const levels = await app.db.clientInvoiceReminder.groupBy({ by: ['level'], where: { tenantId: tenant.id }, _count: true });
  const missing = await app.db.clientInvoiceReminder.count({ where: { tenantId: tenant.id, content: null } });
  // The worker's start enqueued a sweep of its own, which may have taken some invoices first: each still once.
  const written = claimed.length;
  console.log(
    `sweep of ${invoiceCount} overdue invoices: ${written} reminded (rows and events) in ${claimSeconds.toFixed(1)} s, their PDFs written by ${firstSeconds.toFixed(1)} s ` +
      `(${(((firstSeconds - claimSeconds) * 1000) / Math.max(written, 1)).toFixed(1)} ms a PDF; goal under ${goalSeconds} s: ${firstSeconds < goalSeconds ? 'met' : 'MISSED'}); ` +
      `levels ${JSON.stringify(levels.map((row) => [row.level, row._count]))}, ${missing} without a PDF; a second sweep: ${again} in ${secondSeconds.toFixed(2)} s`,
  );
  const total = levels.reduce((sum, row) => sum + row._count, 0);
  if (total !== invoiceCount || levels.length !== 1 || again !== 0 || missing > 0 || firstSeconds >= goalSeconds) process.exitCode = 1;
} catch (error) {
  console.error(error);
  process.exitCode = 1;
} finally {
  await tally.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
}
