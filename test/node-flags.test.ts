/**
 * `npm start`, `npm run dev` and the Docker image start Node with the same
 * flags (docs/performance.md, "Memory": why these), and this Node takes them:
 * the heap limits, and `--liftoff-only` (WebAssembly, Prisma's query
 * compiler, compiled by V8's baseline tier alone; Node refuses a V8 flag it
 * does not know, so an upgrade that drops it fails here).
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '..');
const scripts = (JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;

/** The flags between `node` and `bin/tally.js` of a package script. */
function flagsOfScript(name: string): string[] {
  const found = /\bnode ((?:--\S+ )*)bin\/tally\.js serve$/.exec(scripts[name] ?? '');
  if (!found) throw new Error(`scripts.${name} does not start Node on bin/tally.js serve: ${scripts[name]}`);
  return (found[1] ?? '').trim().split(' ').filter(Boolean);
}

describe('Node flags', () => {
  it('are the same for npm start, npm run dev and the Docker image', () => {
    const entrypoint = /^ENTRYPOINT (\[.*\])$/m.exec(fs.readFileSync(path.join(root, 'Dockerfile'), 'utf8'))?.[1];
    const image = (JSON.parse(entrypoint ?? '[]') as string[]).slice(1, -1);
    expect(flagsOfScript('start')).toEqual(expect.arrayContaining(['--max-old-space-size=1536', '--liftoff-only']));
    expect(flagsOfScript('dev')).toEqual(flagsOfScript('start'));
    expect(image).toEqual(flagsOfScript('start'));
  });

  it('are taken by this Node, and set the heap limit they say', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, [
      ...flagsOfScript('start'),
      '-e',
      "process.stdout.write(String(require('node:v8').getHeapStatistics().heap_size_limit))",
    ]);
    // The old generation's limit plus the young generation's (three semi-spaces).
    expect(Number(stdout) / 1024 / 1024).toBeGreaterThanOrEqual(1536);
    expect(Number(stdout) / 1024 / 1024).toBeLessThan(1600);
  });
});
