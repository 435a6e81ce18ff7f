/**
 * `tally` from a checkout runs compiled code (bin/build.mjs): it compiles
 * src/ into dist/ when the sources changed, reuses dist/ when they did not,
 * and processes starting at once compile once. Checked on a small project of
 * its own, so that the repository's dist/ is left to the processes the other
 * tests start; and through bin/tally.js itself.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error: bin/build.mjs is plain JavaScript without types
import { ensureBuilt } from '../bin/build.mjs';

type Outcome = { outcome: 'fresh' } | { outcome: 'built'; ms: number };
const build = ensureBuilt as (root: string) => Promise<Outcome>;

let root: string;

beforeAll(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'tally-checkout-'));
  fs.mkdirSync(path.join(root, 'src', 'lib'), { recursive: true });
  fs.writeFileSync(path.join(root, 'src', 'lib', 'greeting.ts'), "export const greeting = (name: string): string => 'hello ' + name;\n");
  fs.writeFileSync(path.join(root, 'src', 'main.ts'), "import { greeting } from './lib/greeting.js';\nexport const answer: string = greeting('tally');\n");
  fs.writeFileSync(path.join(root, 'src', 'main.test.ts'), "import { expect } from 'vitest';\nexpect(1).toBe(1);\n");
});
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

/** What the compiled program says, read by a fresh Node process (this one's module cache keeps what it loaded). */
const answer = async (): Promise<string> =>
  (
    await promisify(execFile)(process.execPath, [
      '--input-type=module',
      '-e',
      `const { answer } = await import(${JSON.stringify(path.join(root, 'dist', 'main.js'))}); process.stdout.write(answer);`,
    ])
  ).stdout;

describe('a checkout compiles its sources once per change', () => {
  it('compiles the first time, reuses dist/ while nothing changed, and compiles again after a change', async () => {
    expect(await build(root)).toMatchObject({ outcome: 'built' });
    expect(await answer()).toBe('hello tally');
    expect(fs.existsSync(path.join(root, 'dist', 'main.test.js'))).toBe(false);
    expect(fs.existsSync(path.join(root, 'dist', 'main.js.map'))).toBe(true);
    expect(await build(root)).toEqual({ outcome: 'fresh' });
    fs.writeFileSync(path.join(root, 'src', 'lib', 'greeting.ts'), "export const greeting = (name: string): string => 'hi ' + name;\n");
    expect(await build(root)).toMatchObject({ outcome: 'built' });
    expect(await answer()).toBe('hi tally');
    // A test file is not part of the program: changing it compiles nothing.
    fs.appendFileSync(path.join(root, 'src', 'main.test.ts'), '// changed\n');
    expect(await build(root)).toEqual({ outcome: 'fresh' });
  });

  it('compiles once when several processes start together', async () => {
    fs.writeFileSync(path.join(root, 'src', 'lib', 'greeting.ts'), "export const greeting = (name: string): string => 'hey ' + name;\n");
    const outcomes = await Promise.all(Array.from({ length: 4 }, () => build(root)));
    expect(outcomes.filter((outcome) => outcome.outcome === 'built')).toHaveLength(1);
    expect(await answer()).toBe('hey tally');
    expect(fs.existsSync(path.join(root, 'dist', '.building'))).toBe(false);
  });

  it('imports no esbuild when dist/ is fresh: a started process would keep it', async () => {
    expect(await build(root)).toEqual({ outcome: 'fresh' });
    const log = path.join(root, 'resolved.txt');
    const script = [
      "import { register } from 'node:module';",
      `register(${JSON.stringify(new URL('helpers/record-resolved.mjs', import.meta.url).href)});`,
      `const { ensureBuilt } = await import(${JSON.stringify(new URL('../bin/build.mjs', import.meta.url).href)});`,
      `process.stdout.write((await ensureBuilt(${JSON.stringify(root)})).outcome);`,
    ].join('\n');
    const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], { env: { ...process.env, RESOLVED_LOG: log } });
    expect(stdout).toBe('fresh');
    const resolved = fs.readFileSync(log, 'utf8').split('\n');
    expect(resolved.some((url) => url.endsWith('/bin/build.mjs'))).toBe(true);
    expect(resolved.filter((url) => url.includes('/node_modules/esbuild/'))).toEqual([]);
  });

  it('bin/tally.js runs the compiled program of this checkout', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, [path.resolve('bin/tally.js'), '--help'], { env: { PATH: process.env.PATH ?? '' } });
    expect(stdout).toContain('Usage: tally');
    const stamp = fs.readFileSync(path.resolve('dist/.sources'), 'utf8');
    expect(stamp).toMatch(/^[0-9a-f]{64}\n$/);
  });
});
