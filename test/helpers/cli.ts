import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

const cli = path.resolve('bin/tally.js');

/**
 * The environment of a newcomer: none of our variables (vitest itself sets
 * BASE_URL and NODE_ENV), plus `extra`.
 */
export function cliEnvironment(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (!/^(DATABASE_URL|DATA_DIR|BASE_URL|PORT|HOST|AUTH_|ENCRYPTION_KEY|ROLE|NODE_ENV|SUPERADMIN_EMAILS|TRUSTED_ORIGINS|VITEST|TEST_)/.test(name)) {
      env[name] = value;
    }
  }
  return { ...env, ...extra };
}

export interface RunningCommand {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

/** Starts `tally <args>` as its own process. */
export function startCli(args: string[], env: Record<string, string>): RunningCommand {
  const child = spawn(process.execPath, [cli, ...args], { env: cliEnvironment(env), stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output: () => output, exited };
}

/** Runs `tally <args>` to its end. */
export async function runCli(args: string[], env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const command = startCli(args, env);
  const code = await command.exited;
  return { code, output: command.output() };
}
