/**
 * The imports part of `npm run bench`: a Toggl detailed report of 10,000
 * rows (20 people, 8 clients, 40 projects, tags, amounts) uploaded to an API
 * process and imported by a worker process, as in production: seconds from
 * the upload to `done` (goal under 10 s), then the same file again (every
 * row found by its fingerprint, nothing written) and a dry run of it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { togglCsv } from '../helpers/imports.js';
import { startTally, stop, type Process } from './events.js';

const rows = Number(process.env.BENCH_IMPORT_ROWS ?? 10_000);

/** A Toggl detailed report (README of test/fixtures/imports): one entry a day and person slot, 09:00 onwards. */
function togglFile(count: number): Buffer {
  const body = Array.from({ length: count }, (_, index) => {
    const person = index % 20;
    const day = new Date(Date.UTC(2024, 0, 1) + Math.floor(index / 20) * 86_400_000).toISOString().slice(0, 10);
    const minutes = 30 + (index % 7) * 15;
    const end = `${String(9 + Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}:00`;
    return [
      `Person ${person}`,
      `person${person}@example.com`,
      `Client ${index % 8}`,
      `Project ${index % 40}`,
      index % 3 === 0 ? `Task ${index % 5}` : '',
      `Work item ${index}, with a comma`,
      index % 4 === 0 ? 'No' : 'Yes',
      day,
      '09:00:00',
      day,
      end,
      '',
      index % 2 === 0 ? 'dev, review' : 'meeting',
      index % 4 === 0 ? '' : (minutes * 1.5).toFixed(2),
    ];
  });
  return Buffer.from(togglCsv(body));
}

export async function measureImports({
  databaseUrl,
  secrets,
  tenantId,
  key,
}: {
  databaseUrl: string;
  secrets: Record<string, string>;
  tenantId: string;
  key: string;
}): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tally-bench-imports-'));
  const env = { DATABASE_URL: databaseUrl, NODE_ENV: 'production', DATA_DIR: dataDir, RATE_LIMIT_PER_MINUTE: '9999999', ...secrets };
  const processes: Process[] = [];
  try {
    processes.push(...(await Promise.all([startTally('api', env), startTally('worker', env)])));
    const [api] = processes as [Process];
    const file = togglFile(rows);
    const run = async (fields: Record<string, string>) => {
      const form = new FormData();
      for (const [name, value] of Object.entries({ source: 'toggl', timezone: 'Europe/Berlin', ...fields })) form.append(name, value);
      form.append('file', new Blob([new Uint8Array(file)], { type: 'text/csv' }), 'toggl.csv');
      const started = performance.now();
      const answer = await fetch(`${api.url}/tenants/${tenantId}/imports`, { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: form });
      const accepted = (await answer.json()) as { id: string };
      if (answer.status !== 202) throw new Error(`the import answered ${answer.status}: ${JSON.stringify(accepted)}`);
      for (;;) {
        const state = (await (
          await fetch(`${api.url}/tenants/${tenantId}/imports/${accepted.id}`, { headers: { authorization: `Bearer ${key}` } })
        ).json()) as {
          status: string;
          counts: { rows: number; imported: number; skipped: number; failed: number };
          lastError: string | null;
        };
        if (state.status === 'failed') throw new Error(`the import failed: ${state.lastError}`);
        if (state.status === 'done') return { seconds: (performance.now() - started) / 1000, counts: state.counts };
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    };
    const dry = await run({ dryRun: 'true' });
    const first = await run({});
    const again = await run({});
    const line = (label: string, result: { seconds: number; counts: { imported: number; skipped: number; failed: number } }) =>
      `${label} ${result.seconds.toFixed(2)} s (${Math.round(rows / result.seconds)} rows/s; ${result.counts.imported} imported, ${result.counts.skipped} skipped, ${result.counts.failed} failed)`;
    process.stdout.write(
      `\nimport of a ${rows}-row Toggl CSV (${(file.length / 1024).toFixed(0)} KiB), upload to done, API and worker processes: ` +
        `${line('first', first)}; goal under 10 s. ${line('The same file again:', again)}. ${line('A dry run (before):', dry)}\n`,
    );
  } finally {
    await stop(processes);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
