/**
 * One full garbage collection once a busy process has gone quiet.
 *
 * V8 collects when it needs room, not when a process rests: after a burst of
 * requests an API process kept its garbage, and the young generation it had
 * grown to, until V8's memory reducer came by, 25 s later or not at all
 * (measured: 195 MB resident 10 s after a load, 161 MB after one collection;
 * what V8 frees goes back to the system within a second or two). So when a
 * process that has served requests since its last collection has served none
 * for `quietMs`, it asks V8 for one major collection, marked concurrently
 * (`execution: 'async'`), so that a request arriving meanwhile waits for no
 * more than V8's short pauses.
 *
 * The `gc` function comes from a fresh V8 context once `--expose-gc` is set,
 * as the expose-gc package does: the process's own global gains no `gc`.
 */
import v8 from 'node:v8';
import vm from 'node:vm';
import type { Logger } from './logger.js';

type Collect = (options: { type: 'major'; execution: 'async' }) => Promise<void>;

export interface IdleCollector {
  /** Counts one piece of work (a request); cheap enough for every one. */
  busy(): void;
  close(): void;
}

let collect: Collect | undefined;

function collectorOnce(): Collect {
  if (!collect) {
    v8.setFlagsFromString('--expose-gc');
    collect = vm.runInNewContext('gc') as Collect;
  }
  return collect;
}

export function createIdleCollector({ quietMs, log }: { quietMs: number; log: Logger }): IdleCollector {
  const gc = collectorOnce();
  let served = 0;
  let servedAtLastLook = 0;
  let servedAtLastCollection = 0;
  let quietLooks = 0;
  let collecting = false;
  // Looked at every half of `quietMs`: quiet once two looks in a row saw no work, so after `quietMs` to 1.5 `quietMs`.
  const timer = setInterval(
    () => {
      quietLooks = served === servedAtLastLook ? quietLooks + 1 : 0;
      servedAtLastLook = served;
      if (quietLooks < 2 || served === servedAtLastCollection || collecting) return;
      servedAtLastCollection = served;
      collecting = true;
      const started = performance.now();
      gc({ type: 'major', execution: 'async' })
        .then(() => log.debug({ ms: Math.round(performance.now() - started), rssBytes: process.memoryUsage.rss() }, 'collected garbage while idle'))
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
    },
    close() {
      clearInterval(timer);
    },
  };
}
