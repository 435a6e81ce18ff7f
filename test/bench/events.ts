/**
 * The events part of `npm run bench`: Tally scaled out as in production
 * (two API processes and one worker, from dist/), with
 *
 * - webhook throughput: BENCH_WEBHOOK_EVENTS (1,000) notes written through
 *   API process 1 by 20 clients at once, each delivered to one loopback
 *   receiver; latency from the event's commit (its envelope `timestamp`) to
 *   receipt; then 500 more at a steady 50/s, where latency is the pipeline's
 *   own rather than a backlog's;
 * - live notifications: 1,000 `notificationAdded` subscriptions open on API
 *   process 2 (20 members, 50 each), tasks assigned to those members through
 *   API process 1; latency from the assigning request to each push.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { connectWs, type WsConnection } from '../helpers/graphql-ws.js';
import { apiClient } from '../helpers/http.js';
import { startIdentityProvider } from '../helpers/oidc.js';
import { signIn, uniqueEmail } from '../helpers/sessions.js';

const projectRoot = path.resolve(import.meta.dirname, '../..');
const webhookEvents = Number(process.env.BENCH_WEBHOOK_EVENTS ?? 1000);
const members = 20;
const subscriptionsPerMember = 50;
const assignments = 200;

export interface Process {
  url: string;
  child: ChildProcess;
}

async function freePort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** `tally serve` from dist/, ready once its log says so. */
export async function startTally(role: 'api' | 'worker', env: Record<string, string>): Promise<Process> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, ['dist/cli/main.js', 'serve'], {
    cwd: projectRoot,
    env: { PATH: process.env.PATH ?? '', ...env, ROLE: role, PORT: String(port), HOST: '127.0.0.1', BASE_URL: url, LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-8000)));
  child.stderr?.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-8000)));
  const ready = role === 'api' ? 'Tally is listening' : 'workers started';
  const deadline = Date.now() + 60_000;
  while (!output.includes(ready)) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`tally serve --role ${role} did not start:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { url, child };
}

export async function stop(processes: Process[]): Promise<void> {
  for (const { child } of processes) {
    if (child.exitCode !== null) continue;
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
  }
}

function percentile(values: number[], fraction: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] ?? Number.NaN;
}

/** Runs `task` for each index with at most `concurrency` at once. */
async function pool(count: number, concurrency: number, task: (index: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) await task(next++);
    }),
  );
}

export async function measureEvents({
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
  const provider = await startIdentityProvider();
  // Each run counts its own receipts; the receiver records the commit time the envelope carries.
  let receipts: { receivedAt: number; committedAt: number }[] = [];
  let expected = 0;
  let allReceived: () => void = () => undefined;
  const receiver = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const receivedAt = Date.now();
      const envelope = JSON.parse(Buffer.concat(chunks).toString()) as { timestamp: string };
      receipts.push({ receivedAt, committedAt: Date.parse(envelope.timestamp) });
      response.end();
      if (receipts.length === expected) allReceived();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  const env = {
    DATABASE_URL: databaseUrl,
    NODE_ENV: 'production',
    WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
    RATE_LIMIT_PER_MINUTE: '9999999',
    AUTH_RATE_LIMIT_PER_MINUTE: '9999999',
    ...secrets,
    ...provider.env,
  };
  const processes: Process[] = [];
  const sockets: WsConnection[] = [];
  try {
    processes.push(...(await Promise.all([startTally('api', env), startTally('api', env), startTally('worker', env)])));
    const [first, second] = processes as [Process, Process];
    const admin = apiClient(first.url, { apiKey: key });
    const hook = await admin.post(`/tenants/${tenantId}/webhooks`, { url: receiverUrl, events: ['note.created'] });
    if (hook.status !== 201) throw new Error(`creating the webhook answered ${hook.status}: ${hook.text}`);

    /** Writes `count` notes (20 clients, or one every `intervalMs`) and waits for every delivery. */
    const deliverNotes = async (label: string, count: number, intervalMs?: number) => {
      receipts = [];
      expected = count;
      const received = new Promise<void>((resolve) => (allReceived = resolve));
      const started = Date.now();
      const write = async (index: number) => {
        const answer = await admin.post(`/tenants/${tenantId}/notes`, { content: `${label} ${index}` });
        if (answer.status !== 201) throw new Error(`a note answered ${answer.status}`);
      };
      if (intervalMs === undefined) await pool(count, 20, write);
      else {
        const writes: Promise<void>[] = [];
        for (let index = 0; index < count; index += 1) {
          writes.push(write(index));
          await new Promise((resolve) => setTimeout(resolve, intervalMs));
        }
        await Promise.all(writes);
      }
      const written = Date.now();
      await Promise.race([
        received,
        new Promise((_resolve, reject) => setTimeout(() => reject(new Error(`only ${receipts.length} deliveries in 120 s`)), 120_000)),
      ]);
      const lastReceipt = Math.max(...receipts.map((receipt) => receipt.receivedAt));
      const latencies = receipts.map((receipt) => receipt.receivedAt - receipt.committedAt);
      process.stdout.write(
        `webhooks, ${label}: ${count} events written in ${((written - started) / 1000).toFixed(1)} s (${(count / ((written - started) / 1000)).toFixed(0)}/s), ` +
          `all delivered ${((lastReceipt - started) / 1000).toFixed(1)} s after the first write (${(count / ((lastReceipt - started) / 1000)).toFixed(0)} events/s); ` +
          `commit to receipt p50 ${percentile(latencies, 0.5).toFixed(0)} ms, p99 ${percentile(latencies, 0.99).toFixed(0)} ms\n`,
      );
    };
    process.stdout.write('\nevents: 2 API processes and 1 worker from dist/, on the same machine as the database and this client\n');
    // As fast as 20 clients write: faster than one worker delivers on these machines, so latency is the backlog's.
    await deliverNotes('burst', webhookEvents);
    // At a steady 50 events/s, below the worker's throughput: latency is the pipeline's own.
    await deliverNotes('steady 50/s', Math.min(500, webhookEvents), 20);

    // Live: members signed in through the identity provider, each with 50 subscriptions on API process 2.
    const list = await admin.post<{ id: string }>(`/tenants/${tenantId}/task-lists`, { name: 'Bench assignments' });
    const people: { id: string; pushes: number[] }[] = [];
    for (let index = 0; index < members; index += 1) {
      const email = uniqueEmail('bench');
      const invited = await admin.post<{ id: string }>(`/tenants/${tenantId}/users`, { email, role: 'member' });
      const signedIn = await signIn({ url: first.url }, provider, { email });
      const socket = connectWs(second.url, { headers: { cookie: signedIn.cookie, origin: second.url } });
      sockets.push(socket);
      const person = { id: invited.body.id, pushes: [] as number[] };
      for (let subscription = 0; subscription < subscriptionsPerMember; subscription += 1) {
        socket.client.subscribe(
          { query: 'subscription ($t: ID!) { notificationAdded(tenantId: $t) { id } }', variables: { t: tenantId } },
          {
            next: () => person.pushes.push(Date.now()),
            error: (error) => process.stderr.write(`subscription error: ${JSON.stringify(error)}\n`),
            complete: () => undefined,
          },
        );
      }
      people.push(person);
    }
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const liveLatencies: number[] = [];
    let missing = 0;
    for (let index = 0; index < assignments; index += 1) {
      const person = people[index % members] as (typeof people)[number];
      const before = person.pushes.length;
      const sent = Date.now();
      await admin.post(`/tenants/${tenantId}/task-lists/${list.body.id}/tasks`, { title: `Bench task ${index}`, assigneeId: person.id });
      const deadline = Date.now() + 5_000;
      while (person.pushes.length < before + subscriptionsPerMember && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 2));
      const arrived = person.pushes.slice(before, before + subscriptionsPerMember);
      missing += subscriptionsPerMember - arrived.length;
      liveLatencies.push(...arrived.map((at) => at - sent));
    }
    process.stdout.write(
      `live: ${members * subscriptionsPerMember} notificationAdded subscriptions open on API process 2; ${assignments} task assignments through API process 1; ` +
        `request to push p50 ${percentile(liveLatencies, 0.5).toFixed(0)} ms, p99 ${percentile(liveLatencies, 0.99).toFixed(0)} ms` +
        `${missing > 0 ? `, ${missing} pushes missing` : ''}\n`,
    );
  } finally {
    await Promise.all(sockets.map((socket) => socket.client.dispose()));
    await stop(processes);
    receiver.closeAllConnections();
    await new Promise((resolve) => receiver.close(resolve));
    await provider.close();
  }
}
