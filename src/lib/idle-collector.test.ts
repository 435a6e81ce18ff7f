import v8 from 'node:v8';
import vm from 'node:vm';
import { afterEach, describe, expect, it } from 'vitest';
import { createIdleCollector, measuringCollect, type IdleCollector } from './idle-collector.js';
import { createLogger } from './logger.js';

/** A logger whose lines the test reads. */
function capturedLog() {
  const lines: { msg: string }[] = [];
  const log = createLogger('debug', {}, { write: (line: string) => lines.push(JSON.parse(line) as { msg: string }) });
  return { log, collections: () => lines.filter((line) => line.msg === 'collected garbage while idle').length };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Old-generation garbage: objects that lived long enough to be promoted, then let go. */
function promotedGarbage(megabytes: number): void {
  let kept: { index: number; text: string }[] | undefined = [];
  for (let index = 0; index < megabytes * 10_000; index++) kept.push({ index, text: `garbage ${index}` });
  kept = undefined;
}

/**
 * Old-generation pages left mostly empty: many promoted objects, of which one in fifty stays alive. Without
 * compaction a full collection frees the rest but keeps every page, held by the survivors.
 */
function sparselyHeld(megabytes: number): object[] {
  const all: { index: number; text: string }[] = [];
  for (let index = 0; index < megabytes * 10_000; index++) all.push({ index, text: `object ${index}` });
  return all.filter((_, index) => index % 50 === 0);
}

let collector: IdleCollector | undefined;
afterEach(() => collector?.close());

describe('the idle collector', () => {
  it('collects once after work stops, freeing what the work left behind, and Node warns of nothing', async () => {
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
    await sleep(500);
    expect(collections()).toBe(1);
    expect(process.memoryUsage().heapUsed).toBeLessThan(before - 20 * 1024 * 1024);
    // Quiet still, nothing served since: no second collection.
    await sleep(300);
    expect(collections()).toBe(1);
    process.off('warning', onWarning);
    expect(warnings).toEqual([]);
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
    await sleep(600);
    expect(collections()).toBe(1);
  });

  it('does not collect while a piece of work is under way, however long it takes (a download)', async () => {
    const { log, collections } = capturedLog();
    collector = createIdleCollector({ quietMs: 100, log });
    const done = collector.busy();
    await sleep(500);
    expect(collections()).toBe(0);
    done();
    await sleep(300);
    expect(collections()).toBe(1);
  });

  it('gives back the pages the garbage lived on: the collection compacts', async () => {
    const survivors = sparselyHeld(60);
    await measuringCollect();
    const old = v8.getHeapSpaceStatistics().find((space) => space.space_name === 'old_space');
    // Uncompacted, the survivors held some 50 MB of old-generation pages beside what is live; compacted, under 1 MB.
    expect((old?.space_size ?? 0) - (old?.space_used_size ?? 0)).toBeLessThan(15 * 1024 * 1024);
    expect(survivors.length).toBe(12_000);
    // For that one collection only: the next full collection (V8's own, or an uncompacted measurement) is as V8 chooses.
    const more = sparselyHeld(60);
    await vm.measureMemory({ mode: 'summary', execution: 'eager' });
    const after = v8.getHeapSpaceStatistics().find((space) => space.space_name === 'old_space');
    expect((after?.space_size ?? 0) - (after?.space_used_size ?? 0)).toBeGreaterThan(15 * 1024 * 1024);
    expect(more.length).toBe(12_000);
  });
});
