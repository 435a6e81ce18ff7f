// The load generator of `npm run bench`, in a worker thread so that it does
// not share the server's event loop. Plain JavaScript: workers do not inherit
// the TypeScript loader. Types: LoadSpec and LoadResult in run.ts.
import { parentPort, workerData } from 'node:worker_threads';

async function run(spec) {
  const latencies = [];
  let errors = 0;
  let counter = 0;
  const deadline = performance.now() + spec.seconds * 1000;
  await Promise.all(
    Array.from({ length: spec.concurrency }, async () => {
      while (performance.now() < deadline) {
        const index = counter++;
        const started = performance.now();
        const response = await fetch(spec.urls[index % spec.urls.length], {
          method: spec.method,
          headers: spec.headers,
          ...(spec.body === undefined ? {} : { body: spec.body.replace('%i', String(index)) }),
        });
        await response.arrayBuffer();
        latencies.push(performance.now() - started);
        if (response.status !== spec.expectStatus) errors += 1;
      }
    }),
  );
  return { latencies, errors };
}

parentPort.postMessage(await run(workerData));
