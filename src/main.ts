/**
 * Starting and stopping a `tally serve` process: its role (all, api or
 * worker) decides what src/runtime.ts builds. The integration tests start
 * Tally through here too.
 */
import type { App } from './app.js';
import type { Config, ProcessRole } from './config.js';
import type { LiveEvents } from './events/live.js';
import { createRuntime, type RuntimeOptions, type RuntimeRole } from './runtime.js';
import type { Workers } from './worker.js';

export type StartOptions = Omit<RuntimeOptions, 'roles'>;

export interface RunningTally {
  /** Where the HTTP server listens (undefined for a worker-only process). */
  url: string | undefined;
  databaseUrl: string;
  /** The HTTP app (undefined for a worker-only process, which never builds it). */
  app: App | undefined;
  /** The outbox dispatcher and job workers, in processes with the worker role. */
  workers: Workers | undefined;
  /** Live pushes to GraphQL subscribers (`counts()`: how many listen in this process). */
  live: LiveEvents;
  stop(): Promise<void>;
}

const rolesOf: Record<ProcessRole, readonly RuntimeRole[]> = { all: ['api', 'worker'], api: ['api'], worker: ['worker'] };

/** Starts what `config.role` runs, on the database it names (or the embedded one). */
export async function startTally(options: StartOptions & { config: Config }): Promise<RunningTally> {
  const runtime = await createRuntime({ ...options, roles: rolesOf[options.config.role] });
  return { url: runtime.url, databaseUrl: runtime.databaseUrl, app: runtime.app, workers: runtime.workers, live: runtime.live, stop: runtime.stop };
}
