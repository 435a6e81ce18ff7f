/**
 * Tally as separate processes (`tally serve --role api|worker`) on one
 * database, as a scaled-out deployment runs it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startCli, type RunningCommand } from './cli.js';
import { testClockEnvironment } from './clock.js';
import { freePort, testSecrets, unlimitedRates } from './server.js';

export interface TallyProcess {
  role: 'api' | 'worker';
  /** Where an API process listens. */
  url: string;
  command: RunningCommand;
  /** SIGTERM, and wait for the exit. */
  stop(): Promise<void>;
  /** SIGKILL: no goodbye, as a crashed machine. */
  kill(): Promise<void>;
}

const startedLine = { api: 'Tally is listening', worker: 'workers started' } as const;

/**
 * Starts `tally serve --role <role>` on `databaseUrl` and waits until it serves (or works), on the test clock
 * (unless `env` makes it a production process, which runs on the system clock).
 */
export async function startTallyProcess(role: 'api' | 'worker', databaseUrl: string, env: Record<string, string> = {}): Promise<TallyProcess> {
  const port = await freePort();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `tally-${role}-`));
  const url = `http://localhost:${port}`;
  const { TEST_CLOCK } = testClockEnvironment();
  const command = startCli(['serve', '--role', role], {
    NODE_ENV: 'test',
    DATABASE_URL: databaseUrl,
    PORT: String(port),
    BASE_URL: url,
    DATA_DIR: dataDir,
    LOG_LEVEL: 'info',
    ...unlimitedRates,
    ...testSecrets,
    ...((env.NODE_ENV ?? 'test') === 'test' ? { TEST_CLOCK } : {}),
    ...env,
  });
  const deadline = Date.now() + 60_000;
  while (!command.output().includes(startedLine[role])) {
    if (command.child.exitCode !== null || Date.now() > deadline) {
      command.child.kill('SIGKILL');
      throw new Error(`tally serve --role ${role} did not start:\n${command.output()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const cleanUp = () => fs.rmSync(dataDir, { recursive: true, force: true });
  return {
    role,
    url,
    command,
    async stop() {
      if (command.child.exitCode === null && command.child.signalCode === null) command.child.kill('SIGTERM');
      await command.exited;
      cleanUp();
    },
    async kill() {
      command.child.kill('SIGKILL');
      await command.exited;
      cleanUp();
    },
  };
}
