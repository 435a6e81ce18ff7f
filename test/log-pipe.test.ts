/**
 * Regression: a `tally serve` whose log reader had stalled and then closed
 * its end of the stdout pipe finished stopping on SIGTERM (listener closed),
 * then hung for good in pino's exit hook, which flushed the undeliverable
 * lines synchronously and retried forever; no signal was handled again.
 * However the log reader fails, SIGTERM stops the process within seconds.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from './helpers/database.js';
import { startTallyProcess, type TallyProcess } from './helpers/processes.js';

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  await database?.drop();
});

/** Long paths make long request log lines: a few MiB of them fill any pipe. */
async function logALot(tally: TallyProcess, requests = 1500): Promise<void> {
  const url = `${tally.url}/no-such-path-${'x'.repeat(2000)}`;
  let sent = 0;
  await Promise.all(
    Array.from({ length: 20 }, async () => {
      while (sent < requests) {
        sent += 1;
        const response = await fetch(url);
        await response.arrayBuffer();
      }
    }),
  );
}

/** SIGTERM; the exit code and how long it took, or 'hung' after `limitMs` (then SIGKILL). */
async function terminate(tally: TallyProcess, limitMs = 8_000): Promise<{ code: number | null | 'hung'; ms: number }> {
  const started = Date.now();
  tally.command.child.kill('SIGTERM');
  let timer: NodeJS.Timeout | undefined;
  const code = await Promise.race([tally.command.exited, new Promise<'hung'>((resolve) => (timer = setTimeout(() => resolve('hung'), limitMs)))]);
  clearTimeout(timer);
  const ms = Date.now() - started;
  if (code === 'hung') await tally.kill();
  return { code, ms };
}

describe('tally serve when its log reader fails', () => {
  it('stops on SIGTERM when the reader closed the pipe before the process logged', async () => {
    const tally = await startTallyProcess('api', database.url);
    tally.command.child.stdout?.destroy();
    await logALot(tally, 20);
    const { code, ms } = await terminate(tally);
    expect(code).toBe(0);
    expect(ms).toBeLessThan(5_000);
  }, 60_000);

  it('stops on SIGTERM when the reader stopped reading, then closed the pipe', async () => {
    const tally = await startTallyProcess('api', database.url);
    tally.command.child.stdout?.pause();
    await logALot(tally);
    tally.command.child.stdout?.destroy();
    const { code, ms } = await terminate(tally);
    expect(code).toBe(0);
    expect(ms).toBeLessThan(5_000);
  }, 60_000);

  it('stops on SIGTERM while the reader is alive but not reading', async () => {
    const tally = await startTallyProcess('api', database.url);
    tally.command.child.stdout?.pause();
    await logALot(tally);
    // It still serves while its logs are stuck: logging never blocks a request.
    expect((await fetch(`${tally.url}/health`)).status).toBe(200);
    const { code, ms } = await terminate(tally);
    expect(code).toBe(0);
    expect(ms).toBeLessThan(5_000);
    tally.command.child.stdout?.destroy();
  }, 60_000);
});
