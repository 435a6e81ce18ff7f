// The load generator of `npm run bench`, in a worker thread so that it does
// not share an event loop with the runner. Plain JavaScript: workers do not
// inherit the TypeScript loader. node:http with keep-alive, not fetch, so that
// the client costs as little CPU as it can on a small machine.
// Input (workerData): { url, method, paths[], headers, body?, expectStatus, seconds, concurrency }
// Output: { latencies: number[], errors: number, statuses: Record<string, number> }
import http from 'node:http';
import { parentPort, workerData } from 'node:worker_threads';

function request(agent, spec, index) {
  return new Promise((resolve) => {
    const path = spec.paths[index % spec.paths.length];
    const body = spec.body === undefined ? undefined : spec.body.replaceAll('%i', String(index));
    const started = performance.now();
    const outgoing = http.request(
      `${spec.url}${path}`,
      {
        method: spec.method,
        agent,
        headers: { ...spec.headers, ...(body === undefined ? {} : { 'content-length': Buffer.byteLength(body) }) },
      },
      (response) => {
        response.on('data', () => undefined);
        response.on('end', () => resolve({ status: response.statusCode, latency: performance.now() - started }));
      },
    );
    outgoing.on('error', () => resolve({ status: 0, latency: performance.now() - started }));
    outgoing.end(body);
  });
}

async function run(spec) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: spec.concurrency });
  const latencies = [];
  const statuses = {};
  let errors = 0;
  let counter = spec.startIndex ?? 0;
  const deadline = performance.now() + spec.seconds * 1000;
  await Promise.all(
    Array.from({ length: spec.concurrency }, async () => {
      while (performance.now() < deadline) {
        const { status, latency } = await request(agent, spec, counter++);
        latencies.push(latency);
        statuses[status] = (statuses[status] ?? 0) + 1;
        if (status !== spec.expectStatus) errors += 1;
      }
    }),
  );
  agent.destroy();
  return { latencies, errors, statuses };
}

parentPort.postMessage(await run(workerData));
