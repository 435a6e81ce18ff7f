/**
 * Running a function of a module in a worker thread under a memory and time
 * budget: for parsers of untrusted files (a PDF's structure) whose memory we
 * cannot bound from outside. The worker's JavaScript heap is capped by
 * `resourceLimits`; what the heap limit does not see (typed arrays a decoder
 * grows) is watched on the process's resident memory, sampled every few
 * milliseconds from the start of the call. Over either budget, or over the
 * time, the worker is terminated (which stops its JavaScript where it is and
 * frees its memory) and the call rejects with `BudgetExceeded`.
 *
 * Calls run one at a time per process, so that one budget is the most all of
 * them add to the process; the module runs in a fresh worker each time, so
 * nothing a hostile file left behind outlives its call. The module must be
 * self-contained (it is loaded anew in each worker): import libraries, not
 * the application.
 */
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';

/** The call needed more memory or time than its budget. */
export class BudgetExceeded extends Error {
  constructor(readonly resource: 'memory' | 'time') {
    super(`the worker went over its ${resource} budget`);
  }
}

export interface Budget {
  /** Resident memory the process may grow by during the call. */
  memoryBytes: number;
  /** The JavaScript heap of the worker. */
  heapMb: number;
  timeMs: number;
}

/** How often resident memory is sampled: a decoder grows it by a few megabytes in that time. */
const sampleMs = 5;

/** In a source checkout run by tsx or vitest, a worker needs tsx to load TypeScript; compiled code does not. */
function loaderFor(module: URL): string | undefined {
  if (!module.pathname.endsWith('.ts')) return undefined;
  const tsx = createRequire(import.meta.url).resolve('tsx/package.json');
  return pathToFileURL(tsx.replace(/package\.json$/, 'dist/esm/api/index.mjs')).href;
}

// CommonJS, as `eval` workers are: it loads the module, says so, and runs the call it is then sent.
const bootstrap = `
const { parentPort, workerData } = require('node:worker_threads');
(async () => {
  if (workerData.loader) (await import(workerData.loader)).register();
  const module = await import(workerData.module);
  parentPort.once('message', ({ args }) => {
    Promise.resolve()
      .then(() => module[workerData.name](...args))
      .then(
        (result) => parentPort.postMessage({ result }),
        (error) => parentPort.postMessage({ error: error instanceof Error ? error.stack ?? error.message : String(error) }),
      );
  });
  parentPort.postMessage({ ready: true });
})().catch((error) => parentPort.postMessage({ error: String(error && error.stack || error) }));
`;

let queue: Promise<unknown> = Promise.resolve();

function run<T>(module: URL, name: string, args: unknown[], budget: Budget, transfer: ArrayBuffer[]): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const worker = new Worker(bootstrap, {
      eval: true,
      workerData: { loader: loaderFor(module), module: module.href, name },
      resourceLimits: { maxOldGenerationSizeMb: budget.heapMb, maxYoungGenerationSizeMb: 8 },
      stdout: false,
      stderr: false,
    });
    let settled = false;
    let watch: NodeJS.Timeout | undefined;
    const finish = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearInterval(watch);
      clearTimeout(timer);
      void worker.terminate();
      outcome();
    };
    const timer = setTimeout(() => finish(() => reject(new BudgetExceeded('time'))), budget.timeMs);
    worker.on('message', (message: { ready?: true; result?: T; error?: string }) => {
      if (message.ready) {
        // Counted from here: loading the module is the same for every file; what the file makes it do is not.
        const start = process.memoryUsage.rss();
        watch = setInterval(() => {
          if (process.memoryUsage.rss() - start > budget.memoryBytes) finish(() => reject(new BudgetExceeded('memory')));
        }, sampleMs);
        worker.postMessage({ args }, transfer);
        return;
      }
      finish(() => ('error' in message ? reject(new Error(`worker failed: ${message.error}`)) : resolve(message.result as T)));
    });
    worker.on('error', (error: Error & { code?: string }) =>
      finish(() => reject(error.code === 'ERR_WORKER_OUT_OF_MEMORY' ? new BudgetExceeded('memory') : error)),
    );
    worker.on('exit', (code) => finish(() => reject(new Error(`worker exited with code ${code}`))));
  });
}

/** `module[name](...args)` in a worker thread under `budget`; `transfer` moves those buffers to it instead of copying them. */
export function runBounded<T>(module: URL, name: string, args: unknown[], budget: Budget, transfer: ArrayBuffer[] = []): Promise<T> {
  const call = queue.then(() => run<T>(module, name, args, budget, transfer));
  queue = call.catch(() => undefined);
  return call;
}
