/**
 * Full garbage collections once a busy process has gone quiet.
 *
 * V8 collects when it needs room, not when a process rests: after a burst of
 * requests an API process kept its garbage, and the young generation it had
 * grown to, until V8's memory reducer came by, many seconds later or not at
 * all. So when a process that has done work since its last collection has
 * done none for `quietMs`, it has V8 collect (docs/performance.md,
 * "Memory", has what it saves).
 *
 * Up to three times in a row, stopping as soon as work comes.
 * One collection freed the garbage but left the old generation's pages as
 * fragmented as the load had made them: V8 picks the pages to compact when
 * a collection starts, by what the last sweep found live on them, and
 * before the first quiet collection that was still the load's garbage. The
 * second and third collections see how empty the pages are and move their
 * objects together: some 40 MB less resident in an idle API process
 * after issue 41's warm-up, for 180 to 210 ms of collecting in all while
 * nothing waits (docs/performance.md, "Stop 50 on main"). A request that
 * comes meanwhile waits for one collection at most.
 *
 * The collection is `vm.measureMemory({ execution: 'eager' })`, which has V8
 * run a full collection at once to measure what is live: Node's public API
 * for it. Not the `gc` of `--expose-gc`: with V8's gc extension installed,
 * on the global object or in a fresh context (as the expose-gc package
 * does), every Prisma write was slower, whether or not gc was ever called.
 * Nor `v8.queryObjects`, whose collection of all available garbage held an
 * idle API process for most of a second. V8's flags are left as they are:
 * compacting this one collection (switching `--compact-on-every-full-gc` on
 * around it) saved less than a lever must be worth.
 */
import vm from 'node:vm';
import type { Logger } from './logger.js';

/** A full garbage collection. */
export type Collect = () => Promise<void>;

export interface IdleCollector {
  /**
   * Counts one piece of work (a request) as under way until the function it returns is called: a process
   * with work under way is not quiet, however long that work takes (a download that streams for a minute).
   * Cheap enough for every request.
   */
  busy(): () => void;
  close(): void;
}

/**
 * A full collection through vm.measureMemory. Node marks the API experimental and warns once, when it is first
 * called: that warning, and only it, is not printed (its first use is this collector's, on purpose).
 */
export const measuringCollect: Collect = async () => {
  const emitWarning = process.emitWarning;
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    if (String(warning).includes('vm.measureMemory')) return;
    (emitWarning as (...args: unknown[]) => void).call(process, warning, ...rest);
  }) as typeof process.emitWarning;
  let measured: Promise<unknown>;
  try {
    measured = vm.measureMemory({ mode: 'summary', execution: 'eager' });
  } finally {
    process.emitWarning = emitWarning;
  }
  await measured;
};

/** Collections in a row once quiet: after the first, the others compact the pages it emptied (see above). */
const collectionsWhenQuiet = 3;

export function createIdleCollector({ quietMs, log, collect = measuringCollect }: { quietMs: number; log: Logger; collect?: Collect }): IdleCollector {
  let served = 0;
  let underWay = 0;
  let servedAtLastLook = 0;
  let servedAtLastCollection = 0;
  let quietLooks = 0;
  let collecting = false;
  // Looked at every half of `quietMs`: quiet once two looks in a row saw no new work and none under way, so after
  // `quietMs` to 1.5 `quietMs`.
  const timer = setInterval(
    () => {
      quietLooks = served === servedAtLastLook && underWay === 0 ? quietLooks + 1 : 0;
      servedAtLastLook = served;
      if (quietLooks < 2 || served === servedAtLastCollection || collecting) return;
      servedAtLastCollection = served;
      collecting = true;
      const started = performance.now();
      const servedBefore = served;
      const stillQuiet = () => served === servedBefore && underWay === 0;
      (async () => {
        let collections = 0;
        do {
          await collect();
          collections += 1;
        } while (collections < collectionsWhenQuiet && stillQuiet());
        log.debug({ collections, ms: Math.round(performance.now() - started), rssBytes: process.memoryUsage.rss() }, 'collected garbage while idle');
      })()
        .catch((error: unknown) => log.warn({ err: error }, 'an idle garbage collection failed'))
        .finally(() => {
          collecting = false;
        });
    },
    Math.max(10, Math.floor(quietMs / 2)),
  );
  timer.unref();
  return {
    busy() {
      served += 1;
      underWay += 1;
      let ended = false;
      return () => {
        if (ended) return;
        ended = true;
        underWay -= 1;
      };
    },
    close() {
      clearInterval(timer);
    },
  };
}
