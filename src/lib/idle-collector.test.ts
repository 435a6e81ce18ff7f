import { afterEach, describe, expect, it, vi } from 'vitest';
import { createIdleCollector, type IdleCollector } from './idle-collector.js';
import { createLogger } from './logger.js';

/** A logger whose lines the test reads. */
function capturedLog() {
  const lines: { msg: string }[] = [];
  const log = createLogger('debug', {}, { write: (line: string) => lines.push(JSON.parse(line) as { msg: string }) });
  return { log, collections: () => lines.filter((line) => line.msg === 'collected garbage while idle').length };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits until `count` sequences of collections have ended: three full collections of this process's heap take longer on a loaded machine. */
async function untilCollected(collections: () => number, count: number): Promise<void> {
  await vi.waitFor(() => expect(collections()).toBe(count), { timeout: 10_000, interval: 20 });
}

/** Old-generation garbage: objects that lived long enough to be promoted, then let go. */
function promotedGarbage(megabytes: number): void {
  let kept: { index: number; text: string }[] | undefined = [];
  for (let index = 0; index < megabytes * 10_000; index++) kept.push({ index, text: `garbage ${index}` });
  kept = undefined;
}

let collector: IdleCollector | undefined;
afterEach(() => collector?.close());

describe('the idle collector', () => {
  it('collects after work stops, freeing what the work left behind, and Node warns of nothing', async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error): void => {
      warnings.push(warning.message);
    };
    process.on('warning', onWarning);
    const { log, collections } = capturedLog();
    collector = createIdleCollector({ quietMs: 100, log });
    promotedGarbage(40);
    collector.busy()();
    const before = process.memoryUsage().heapUsed;
    await untilCollected(collections, 1);
    expect(process.memoryUsage().heapUsed).toBeLessThan(before - 20 * 1024 * 1024);
    // Quiet still, nothing served since: no second round of collections.
    await sleep(300);
    expect(collections()).toBe(1);
    process.off('warning', onWarning);
    expect(warnings).toEqual([]);
  });

  it('collects three times in a row (the later ones compact the pages the first emptied), and stops as soon as work comes', async () => {
    const { log, collections } = capturedLog();
    let calls = 0;
    collector = createIdleCollector({
      quietMs: 100,
      log,
      collect: async () => {
        calls += 1;
      },
    });
    collector.busy()();
    await sleep(400);
    expect(collections()).toBe(1);
    expect(calls).toBe(3);

    // A request that comes during the first collection ends the sequence there.
    calls = 0;
    let request: (() => void) | undefined;
    const interrupted = createIdleCollector({
      quietMs: 100,
      log,
      collect: async () => {
        calls += 1;
        request ??= interrupted.busy();
      },
    });
    try {
      interrupted.busy()();
      await sleep(400);
      expect(calls).toBe(1);
      expect(collections()).toBe(2);
      // Once that request is answered, the process is quiet again and collects anew, three times.
      request?.();
      await sleep(400);
      expect(calls).toBe(4);
      expect(collections()).toBe(3);
    } finally {
      interrupted.close();
    }
  });

  it('does not collect while work keeps coming, nor before any came', async () => {
    const { log, collections } = capturedLog();
    collector = createIdleCollector({ quietMs: 200, log });
    await sleep(450);
    expect(collections()).toBe(0);
    for (let step = 0; step < 25; step++) {
      collector.busy()();
      await sleep(20);
    }
    expect(collections()).toBe(0);
    await untilCollected(collections, 1);
  });

  it('does not collect while a piece of work is under way, however long it takes (a download)', async () => {
    const { log, collections } = capturedLog();
    collector = createIdleCollector({ quietMs: 100, log });
    const done = collector.busy();
    await sleep(500);
    expect(collections()).toBe(0);
    done();
    await untilCollected(collections, 1);
  });
});
