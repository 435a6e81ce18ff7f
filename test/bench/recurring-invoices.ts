/**
 * How long one worker takes to make the recurring invoices due on one day (issue 40: 1,000 in under 60 s,
 * never twice). Not part of `npm test`: `npx tsx test/bench/recurring-invoices.ts` starts Tally (ROLE=api:
 * no worker of its own) on an embedded database of its own, makes a tenant with a billing profile and
 * BENCH_RECURRING_CLIENTS (50) clients, BENCH_RECURRING_PLANS (1,000) monthly plans due today (issued as
 * they are made), runs the recurring-invoice work once, timed, and again (it must make none), and checks that
 * every plan made exactly one invoice. `npm run bench` runs it as its part `recurring-invoices`.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { systemActor } from '../../src/auth/actor.js';
import { systemAccess } from '../../src/auth/tenant-access.js';
import { loadConfig } from '../../src/config.js';
import { systemClock } from '../../src/lib/clock.js';
import { createLogger } from '../../src/lib/logger.js';
import { startTally } from '../../src/main.js';
import { createRecurringInvoiceWork } from '../../src/modules/billing/recurring-invoice/recurring-invoice.work.js';

const planCount = Number(process.env.BENCH_RECURRING_PLANS ?? 1000);
const clientCount = Number(process.env.BENCH_RECURRING_CLIENTS ?? 50);
const goalSeconds = 60;

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tally-bench-recurring-'));
fs.chmodSync(dataDir, 0o777);
const config = loadConfig({ NODE_ENV: 'development', PORT: '0', DATA_DIR: dataDir, RATE_LIMIT_PER_MINUTE: '0', LOG_LEVEL: 'warn', ROLE: 'api' });
const tally = await startTally({ config, log: createLogger('warn'), bootstrap: false });
try {
  const app = tally.app;
  if (!app) throw new Error('no API in this process');
  const actor = systemActor('bench');
  const tenant = await app.services.tenants.create(actor, {
    name: 'Recurring bench',
    slug: `recurring-${Date.now()}`,
    settings: { timezone: 'Europe/Berlin' },
  });
  const access = systemAccess(tenant, actor);
  await app.services.billingProfile.update(access, {
    legalName: 'Bench GmbH',
    address: { line1: 'Hauptstraße 1', postcode: '10115', city: 'Berlin', countryCode: 'DE' },
    vatId: 'DE123456789',
    email: 'billing@example.com',
    iban: 'DE89370400440532013000',
    defaultTaxRate: '19.00',
  } as Parameters<typeof app.services.billingProfile.update>[1]);
  const clients = [];
  for (let index = 0; index < clientCount; index++) {
    clients.push(
      await app.services.clients.create(access, {
        name: `Client ${index}`,
        currency: 'EUR',
        billingAddress: { line1: 'Ring 2', postcode: '1010', city: 'Wien', countryCode: 'AT' },
      } as Parameters<typeof app.services.clients.create>[1]),
    );
  }
  const today = systemClock.today('Europe/Berlin');
  const database = new pg.Client({ connectionString: tally.databaseUrl });
  database.on('error', () => undefined);
  await database.connect();
  await database.query(
    `INSERT INTO recurring_invoices (id, "tenantId", "clientId", lines, interval, "dayOfPeriod", "startDate", "autoIssue", "nextPeriodStart", "nextRunDate", "updatedAt")
     SELECT uuidv7()::text, $1, ($2::text[])[1 + g % array_length($2::text[], 1)],
            '[{"description": "Retainer", "quantity": "1", "unit": "C62", "unitPrice": "100.00"}]'::jsonb,
            'month', 1, $3::date, true, $3::date, $3::date, now()
       FROM generate_series(1, $4::int) g`,
    [tenant.id, clients.map((client) => client.id), today, planCount],
  );

  const work = createRecurringInvoiceWork({ db: app.db, clock: systemClock, services: app.services });
  const log = createLogger('warn');
  const started = performance.now();
  const made = await work.runDue(log);
  const seconds = (performance.now() - started) / 1000;
  const again = await work.runDue(log);
  const counts = await database.query<{ invoices: string; runs: string; issued: string }>(
    `SELECT (SELECT count(*) FROM client_invoices WHERE "tenantId" = $1) AS invoices,
            (SELECT count(*) FROM client_invoices WHERE "tenantId" = $1 AND status = 'issued') AS issued,
            (SELECT count(*) FROM recurring_invoice_runs r JOIN recurring_invoices p ON p.id = r."recurringInvoiceId" WHERE p."tenantId" = $1) AS runs`,
    [tenant.id],
  );
  await database.end();
  const row = counts.rows[0] as { invoices: string; runs: string; issued: string };
  console.log(
    `recurring invoices: ${made} of ${planCount} plans made and issued by one worker in ${seconds.toFixed(1)} s ` +
      `(${((seconds * 1000) / Math.max(made, 1)).toFixed(1)} ms each; goal: under ${goalSeconds} s); a second run made ${again}; ` +
      `${row.invoices} invoices (${row.issued} issued), ${row.runs} periods recorded`,
  );
  if (made !== planCount || again !== 0 || Number(row.invoices) !== planCount || Number(row.runs) !== planCount) {
    throw new Error('each plan must make exactly one invoice');
  }
  if (seconds >= goalSeconds) throw new Error(`${planCount} recurring invoices took ${seconds.toFixed(1)} s, over the ${goalSeconds} s goal`);
} catch (error) {
  console.error(error);
  process.exitCode = 1;
} finally {
  await tally.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
}
