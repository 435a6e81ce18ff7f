/**
 * The tests' IMAP server (test/services/imap-server.sh) is started by the
 * global setup through `ensureImapServer`, which reads the script's output.
 * Dovecot keeps running after the script ends, so if it kept the stdio it
 * was started with, the caller would wait for the end of that output until
 * Dovecot stopped: `npm test` on a machine where Dovecot was not yet running
 * hung at its start. Checked on an instance of its own (port and directory),
 * so that the run's server is left alone.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from './helpers/server.js';

const script = path.resolve(import.meta.dirname, 'services/imap-server.sh');
const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'tally-imap-start-'));

describe('the IMAP server script', () => {
  let environment: NodeJS.ProcessEnv | undefined;
  afterAll(() => {
    if (environment) execFileSync('bash', [script, 'stop'], { stdio: 'ignore', env: environment });
    fs.rmSync(directory, { recursive: true, force: true });
  });

  it('returns once Dovecot listens, to a caller that reads its output', async () => {
    environment = { ...process.env, IMAP_DIR: directory, IMAP_PORT: String(await freePort()) };
    // With Dovecot holding the script's stdout or stderr, this waits until the timeout and throws ETIMEDOUT.
    const output = execFileSync('bash', [script, 'start'], { stdio: 'pipe', env: environment, timeout: 20_000 }).toString();
    expect(output).toContain(`dovecot ready on 127.0.0.1:${environment.IMAP_PORT}`);
    expect(execFileSync('bash', [script, 'status'], { env: environment }).toString().trim()).toBe('running');
  });
});
